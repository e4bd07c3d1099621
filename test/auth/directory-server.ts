import { createHash, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import jwt from 'jsonwebtoken';

// A loopback stand-in for the directory (Entra ID): OpenID metadata, JWKS, the client-credentials
// token endpoint and the graph API's user search, and what a browser app's MSAL needs for an
// interactive sign-in: the authorize endpoint (signs `interactiveUser` in at once and redirects
// back with a code), the authorization-code grant with its PKCE check, and CORS on what the page
// fetches. HTTPS (MSAL refuses a non-https authority) with the development certificate of
// dev/azure-sim, which the host trusts through CloudAd__CaFile.

export const CA_FILE = fileURLToPath(new URL('../../dev/azure-sim/tls/sim-cert.pem', import.meta.url));
const KEY_FILE = fileURLToPath(new URL('../../dev/azure-sim/tls/sim-key.pem', import.meta.url));

export const TENANT = '7a1e0c52-3d9b-4f6a-9c2e-5b8d1f0a4e73';
export const CLIENT_ID = '2c4f6a8b-1d3e-4f5a-8b7c-9d0e1f2a3b4c';
export const CLIENT_SECRET = 'directory-client-secret';

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function newKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid: randomBytes(6).toString('hex'), privateKey, publicKey };
}

export interface DirectoryServer {
  url: string;
  issuer: string;
  /** Keys published in the JWKS (rotate by replacing). */
  published: SigningKey[];
  counts: { metadata: number; jwks: number; token: number; graph: number; authorize: number };
  /** Who the authorize endpoint signs in (null: it answers access_denied). */
  interactiveUser: { email: string; name: string; oid: string } | null;
  /** Directory users the graph API knows. */
  graphUsers: { mail: string; userPrincipalName: string; displayName: string }[];
  sign(
    claims: Record<string, unknown>,
    o?: { key?: SigningKey; kid?: string; audience?: string; issuer?: string; expiresIn?: number },
  ): string;
  close(): Promise<void>;
}

export async function startDirectoryServer(): Promise<DirectoryServer> {
  let base = '';
  const state: DirectoryServer = {
    url: '',
    issuer: '',
    published: [newKey()],
    counts: { metadata: 0, jwks: 0, token: 0, graph: 0, authorize: 0 },
    interactiveUser: null,
    graphUsers: [],
    sign(claims, o = {}) {
      const key = o.key ?? state.published[0]!;
      return jwt.sign({ tid: TENANT, ...claims }, key.privateKey, {
        algorithm: 'RS256',
        keyid: o.kid ?? key.kid,
        issuer: o.issuer ?? state.issuer,
        audience: o.audience ?? CLIENT_ID,
        expiresIn: o.expiresIn ?? 3600,
      });
    },
    close: async () => {},
  };
  // A browser page fetches the metadata and the token endpoint from its own origin.
  const CORS = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': '*',
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', ...CORS });
    res.end(JSON.stringify(body));
  };
  /** Codes the authorize endpoint handed out, redeemed once at the token endpoint. */
  const codes = new Map<
    string,
    {
      clientId: string;
      redirectUri: string;
      challenge: string;
      scope: string;
      nonce: string;
      user: NonNullable<DirectoryServer['interactiveUser']>;
    }
  >();
  const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', base);
    const p = url.pathname;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      return res.end();
    }
    if (p === `/${TENANT}/oauth2/v2.0/authorize` && req.method === 'GET') {
      state.counts.authorize++;
      const q = url.searchParams;
      const redirectUri = q.get('redirect_uri') ?? '';
      const answer = new URLSearchParams({ state: q.get('state') ?? '' });
      const user = state.interactiveUser;
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256') {
        answer.set('error', 'invalid_request');
        answer.set('error_description', 'response_type=code with an S256 code_challenge is required');
      } else if (!user) {
        answer.set('error', 'access_denied');
        answer.set('error_description', 'The user declined to sign in.');
      } else {
        const code = randomBytes(16).toString('base64url');
        codes.set(code, {
          clientId: q.get('client_id') ?? '',
          redirectUri,
          challenge: q.get('code_challenge') ?? '',
          scope: q.get('scope') ?? '',
          nonce: q.get('nonce') ?? '',
          user,
        });
        answer.set('code', code);
        answer.set('client_info', b64url({ uid: user.oid, utid: TENANT }));
      }
      const sep = q.get('response_mode') === 'query' ? '?' : '#';
      res.writeHead(302, { location: `${redirectUri}${sep}${answer}` });
      return res.end();
    }
    if (p === `/${TENANT}/v2.0/.well-known/openid-configuration`) {
      state.counts.metadata++;
      return send(res, 200, {
        issuer: state.issuer,
        jwks_uri: `${base}/${TENANT}/discovery/v2.0/keys`,
        token_endpoint: `${base}/${TENANT}/oauth2/v2.0/token`,
        authorization_endpoint: `${base}/${TENANT}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${base}/${TENANT}/oauth2/v2.0/logout`,
        device_authorization_endpoint: `${base}/${TENANT}/oauth2/v2.0/devicecode`,
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        response_types_supported: ['code', 'id_token'],
        id_token_signing_alg_values_supported: ['RS256'],
        subject_types_supported: ['pairwise'],
        scopes_supported: ['openid'],
      });
    }
    if (p === `/${TENANT}/discovery/v2.0/keys`) {
      state.counts.jwks++;
      return send(res, 200, {
        keys: state.published.map((k) => ({
          ...k.publicKey.export({ format: 'jwk' }),
          kid: k.kid,
          use: 'sig',
          alg: 'RS256',
        })),
      });
    }
    if (p === `/${TENANT}/oauth2/v2.0/token` && req.method === 'POST') {
      state.counts.token++;
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      if (form.get('grant_type') === 'authorization_code') {
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const proof = createHash('sha256').update(verifier).digest('base64url');
        if (
          !grant ||
          grant.clientId !== form.get('client_id') ||
          grant.redirectUri !== form.get('redirect_uri') ||
          grant.challenge !== proof
        ) {
          return send(res, 400, {
            error: 'invalid_grant',
            error_description: 'bad code, redirect or verifier',
          });
        }
        const { user } = grant;
        const identity = { oid: user.oid, sub: user.oid, name: user.name, preferred_username: user.email };
        // The access token is for the API whose scope was asked for (api://<id>/access_as_user).
        const resource = /(api:\/\/[^/\s]+)\//.exec(grant.scope)?.[1];
        return send(res, 200, {
          token_type: 'Bearer',
          scope: grant.scope,
          expires_in: 3599,
          ext_expires_in: 3599,
          access_token: state.sign(
            { ...identity, email: user.email, scp: 'access_as_user' },
            resource ? { audience: resource } : {},
          ),
          id_token: state.sign({ ...identity, nonce: grant.nonce }, { audience: grant.clientId }),
          client_info: b64url({ uid: user.oid, utid: TENANT }),
        });
      }
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
        return send(res, 401, { error: 'invalid_client', error_description: 'bad secret' });
      }
      return send(res, 200, {
        token_type: 'Bearer',
        expires_in: 3599,
        ext_expires_in: 3599,
        access_token: 'graph-access-token',
      });
    }
    if (p === '/v1.0/users') {
      state.counts.graph++;
      if (req.headers.authorization !== 'Bearer graph-access-token')
        return send(res, 401, { error: { code: 'InvalidAuthenticationToken' } });
      const filter = url.searchParams.get('$filter') ?? '';
      const wanted = /mail eq '([^']*)'/.exec(filter)?.[1]?.toLowerCase();
      const value = state.graphUsers.filter(
        (u) => u.mail.toLowerCase() === wanted || u.userPrincipalName.toLowerCase() === wanted,
      );
      return send(res, 200, { value });
    }
    send(res, 404, { error: 'not found' });
  };
  const server = createServer({ cert: readFileSync(CA_FILE), key: readFileSync(KEY_FILE) }, (req, res) => {
    handler(req, res).catch(() => send(res, 500, {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.url = base;
  state.issuer = `${base}/${TENANT}/v2.0`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
