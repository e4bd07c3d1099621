import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import jwt from 'jsonwebtoken';

// A loopback stand-in for the directory (Entra ID): OpenID metadata, JWKS, the client-credentials
// token endpoint and the graph API's user search. HTTPS (MSAL refuses a non-https authority) with
// the development certificate of dev/azure-sim, which the host trusts through CloudAd__CaFile.

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
  counts: { metadata: number; jwks: number; token: number; graph: number };
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
    counts: { metadata: 0, jwks: 0, token: 0, graph: 0 },
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
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', base);
    const p = url.pathname;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
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
