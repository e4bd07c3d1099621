import { AzureAuthorityHosts, ClientSecretCredential } from '@azure/identity';
import { type Agent, request } from 'undici';
import type { AuthSettings } from '../config/auth.js';
import type { Logger } from '../observability/logger.js';

export interface DirectoryUser {
  email: string;
  displayName?: string;
}

const KNOWN_AUTHORITIES = new Set<string>(
  Object.values(AzureAuthorityHosts).map((h) => h.replace(/\/+$/, '').toLowerCase()),
);

/**
 * Looks users up in the directory's graph API (DownstreamApi__BaseUrl) with the app's client
 * credentials (CloudAd__TenantId/ClientId/ClientSecret; authority CloudAd__Instance).
 */
export class GraphLookup {
  readonly #settings: AuthSettings;
  readonly #log: Logger;
  readonly #dispatcher: Agent;
  readonly #credential: ClientSecretCredential | undefined;

  constructor(settings: AuthSettings, log: Logger, dispatcher: Agent, ca: string | undefined) {
    this.#settings = settings;
    this.#log = log;
    this.#dispatcher = dispatcher;
    const { CloudAd__TenantId: tenant, CloudAd__ClientId: id, CloudAd__ClientSecret: secret } = settings;
    if (settings.DownstreamApi__BaseUrl && tenant && id && secret) {
      const authorityHost = settings.CloudAd__Instance.replace(/\/+$/, '');
      const custom = !KNOWN_AUTHORITIES.has(authorityHost.toLowerCase());
      this.#credential = new ClientSecretCredential(tenant, id, secret, {
        authorityHost,
        // Instance discovery asks login.microsoftonline.com about the authority: off for others.
        ...(custom ? { disableInstanceDiscovery: true } : {}),
        ...(ca ? { tlsOptions: { ca } } : {}),
      });
    }
  }

  get configured(): boolean {
    return this.#credential !== undefined;
  }

  /** The directory user with this mail or UPN, or undefined (also when the lookup fails). */
  async find(email: string): Promise<DirectoryUser | undefined> {
    if (!this.#credential) return undefined;
    try {
      const scopes = this.#settings.DownstreamApi__Scopes.split(/[\s,]+/).filter(Boolean);
      const token = await this.#credential.getToken(scopes);
      const base = this.#settings.DownstreamApi__BaseUrl!.replace(/\/+$/, '');
      const quoted = email.replace(/'/g, "''");
      const url = new URL(`${base}/users`);
      url.searchParams.set('$filter', `mail eq '${quoted}' or userPrincipalName eq '${quoted}'`);
      url.searchParams.set('$select', 'id,displayName,mail,userPrincipalName');
      const res = await request(url, {
        dispatcher: this.#dispatcher,
        headers: { authorization: `Bearer ${token.token}`, accept: 'application/json' },
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      if (res.statusCode === 404) {
        await res.body.dump();
        return undefined;
      }
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw new Error(`graph answered ${res.statusCode}`);
      }
      const body = (await res.body.json()) as {
        value?: { displayName?: string; mail?: string | null; userPrincipalName?: string | null }[];
      };
      const lower = email.toLowerCase();
      const hit = body.value?.find(
        (u) => u.mail?.toLowerCase() === lower || u.userPrincipalName?.toLowerCase() === lower,
      );
      return hit ? { email: lower, ...(hit.displayName ? { displayName: hit.displayName } : {}) } : undefined;
    } catch (err) {
      this.#log.warn({ err }, 'directory graph lookup failed');
      return undefined;
    }
  }
}
