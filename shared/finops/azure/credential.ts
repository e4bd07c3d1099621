/** The service principal's credential (Cloud__TenantId / ClientId / ClientSecret). */
import type { TokenCredential } from '@azure/core-auth';
import { AzureAuthorityHosts, ClientSecretCredential } from '@azure/identity';
import { requestTimeoutPolicy } from './request-timeout.js';

export interface CredentialOptions {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Default: the public cloud (https://login.microsoftonline.com). */
  authorityHost?: string;
  /** Extra trusted CA (PEM), e.g. the simulator's self-signed certificate. */
  ca?: string;
  /** Deadline of one token request (ms); unset: none. */
  requestTimeoutMs?: number;
}

const KNOWN_AUTHORITIES = new Set<string>(
  Object.values(AzureAuthorityHosts).map((h) => h.replace(/\/+$/, '').toLowerCase()),
);

export function createCredential(opts: CredentialOptions): TokenCredential {
  const authorityHost = opts.authorityHost?.replace(/\/+$/, '');
  // MSAL's instance discovery calls login.microsoftonline.com to validate an authority; for any
  // other host (the simulator, a private authority) we must switch it off or MSAL never asks ours.
  const custom = authorityHost !== undefined && !KNOWN_AUTHORITIES.has(authorityHost.toLowerCase());
  return new ClientSecretCredential(opts.tenantId, opts.clientId, opts.clientSecret, {
    ...(authorityHost ? { authorityHost } : {}),
    ...(custom ? { disableInstanceDiscovery: true } : {}),
    ...(opts.ca ? { tlsOptions: { ca: opts.ca } } : {}),
    ...(opts.requestTimeoutMs
      ? {
          additionalPolicies: [
            { policy: requestTimeoutPolicy(opts.requestTimeoutMs), position: 'perRetry' as const },
          ],
        }
      : {}),
  });
}
