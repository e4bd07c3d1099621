import { readFileSync } from 'node:fs';
import https from 'node:https';
import jwt from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { Agent, request } from 'undici';
import type { AuthSettings } from '../config/auth.js';
import type { Logger } from '../observability/logger.js';
import { clockTolerance } from './tokens.js';

interface Metadata {
  issuer: string;
  jwks_uri: string;
}

/** The extra CA of CloudAd__CaFile, read once per module. */
export function directoryCa(settings: AuthSettings): string | undefined {
  return settings.CloudAd__CaFile ? readFileSync(settings.CloudAd__CaFile, 'utf8') : undefined;
}

/**
 * Validates directory (Entra ID) access tokens: RS256, issuer and keys from the tenant's OpenID
 * metadata, audience the client id or api://<client id>. Keys are cached; an unknown kid refetches
 * the key set, rate-limited (jwks-rsa).
 */
export class DirectoryTokens {
  readonly #settings: AuthSettings;
  readonly #log: Logger;
  readonly #dispatcher: Agent;
  readonly #httpsAgent: https.Agent | undefined;
  #metadata: Promise<Metadata> | undefined;
  #metadataFetchedAt = 0;
  #jwks: JwksClient | undefined;
  #jwksUri: string | undefined;

  constructor(settings: AuthSettings, log: Logger, ca: string | undefined, cacheEnabled: boolean) {
    this.#settings = settings;
    this.#log = log;
    this.#dispatcher = new Agent(ca ? { connect: { ca } } : {});
    this.#httpsAgent = ca ? new https.Agent({ ca, keepAlive: true }) : undefined;
    this.cacheEnabled = cacheEnabled;
  }

  readonly cacheEnabled: boolean;

  get configured(): boolean {
    return Boolean(this.#settings.CloudAd__TenantId && this.#settings.CloudAd__ClientId);
  }

  metadataUrl(): string {
    const instance = this.#settings.CloudAd__Instance.replace(/\/*$/, '/');
    return `${instance}${this.#settings.CloudAd__TenantId}/v2.0/.well-known/openid-configuration`;
  }

  async #fetchMetadata(): Promise<Metadata> {
    const res = await request(this.metadataUrl(), {
      dispatcher: this.#dispatcher,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`OpenID metadata answered ${res.statusCode}`);
    }
    const body = (await res.body.json()) as Partial<Metadata>;
    if (typeof body.issuer !== 'string' || typeof body.jwks_uri !== 'string') {
      throw new Error('OpenID metadata lacks issuer or jwks_uri');
    }
    return { issuer: body.issuer, jwks_uri: body.jwks_uri };
  }

  /** The metadata, cached for an hour (or refetched every time with the cache off). */
  async metadata(): Promise<Metadata> {
    const maxAge = this.cacheEnabled ? 3_600_000 : 0;
    if (!this.#metadata || Date.now() - this.#metadataFetchedAt > maxAge) {
      this.#metadataFetchedAt = Date.now();
      const p = this.#fetchMetadata();
      this.#metadata = p;
      p.catch(() => {
        if (this.#metadata === p) this.#metadata = undefined;
      });
    }
    return this.#metadata;
  }

  #client(jwksUri: string): JwksClient {
    if (!this.#jwks || this.#jwksUri !== jwksUri) {
      this.#jwksUri = jwksUri;
      this.#jwks = new JwksClient({
        jwksUri,
        cache: this.cacheEnabled,
        cacheMaxEntries: 20,
        cacheMaxAge: 6 * 3_600_000,
        // An unknown kid refetches the set, at most this often (key rotation without a flood).
        rateLimit: true,
        jwksRequestsPerMinute: 10,
        timeout: 10_000,
        ...(this.#httpsAgent ? { requestAgent: this.#httpsAgent } : {}),
      });
    }
    return this.#jwks;
  }

  /** Validates a directory token and returns its claims; throws on any failure. */
  async verify(token: string): Promise<jwt.JwtPayload> {
    if (!this.configured) throw new Error('directory sign-in is not configured');
    const decoded = jwt.decode(token, { complete: true });
    const kid = decoded?.header.kid;
    if (decoded?.header.alg !== 'RS256' || !kid) throw new Error('not an RS256 token with a kid');
    const meta = await this.metadata();
    const key = await this.#client(meta.jwks_uri).getSigningKey(kid);
    const clientId = this.#settings.CloudAd__ClientId!;
    const tenant = this.#settings.CloudAd__TenantId!;
    const payload = jwt.verify(token, key.getPublicKey(), {
      algorithms: ['RS256'],
      // v2 tokens carry the metadata's issuer; v1 tokens (accessTokenAcceptedVersion 1) the STS one.
      issuer: [meta.issuer, `https://sts.windows.net/${tenant}/`],
      audience: [clientId, `api://${clientId}`],
      clockTolerance: clockTolerance(this.#settings),
    });
    if (typeof payload === 'string' || typeof payload.exp !== 'number') throw new Error('bad token payload');
    return payload;
  }

  /** HTTP dispatcher trusting CloudAd__CaFile (graph API calls). */
  get dispatcher(): Agent {
    return this.#dispatcher;
  }

  async close(): Promise<void> {
    this.#httpsAgent?.destroy();
    await this.#dispatcher.close().catch((e: unknown) => this.#log.debug({ err: e }, 'dispatcher close'));
  }
}
