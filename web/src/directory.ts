/**
 * "Sign in with Microsoft": MSAL's redirect flow (authorization code with PKCE) against the
 * directory the API validates, then the directory token is exchanged for finwatch's own token
 * (`POST /auth/api/Auth/refreshToken` with the directory token as bearer: the API answers any valid
 * caller with an own token), so the rest of the console works as after a password sign-in.
 * MSAL is loaded only when the button is used or a directory answer comes back, never on a signed-in
 * page load.
 */
import type { Configuration, IPublicClientApplication } from '@azure/msal-browser';
import { get, request, setToken } from './api';
import { BASE } from './router';

export interface DirectoryConfig {
  authority: string;
  clientId: string;
  scopes: string[];
  knownAuthorities: string[];
}

let configPromise: Promise<DirectoryConfig | null> | undefined;

/** The directory the console may sign in with; null when the server offers none. */
export function directoryConfig(): Promise<DirectoryConfig | null> {
  configPromise ??= get<{ directory: DirectoryConfig | null }>(`${BASE}/config.json`).then(
    (c) => c.directory,
    () => null,
  );
  return configPromise;
}

/** MSAL sends the console back here; the server answers index.html for it like any console path. */
const redirectUri = () => `${window.location.origin}${BASE}/`;

async function msal(config: DirectoryConfig): Promise<IPublicClientApplication> {
  const { createStandardPublicClientApplication } = await import('@azure/msal-browser');
  const options: Configuration = {
    auth: {
      clientId: config.clientId,
      authority: config.authority,
      // MSAL asks Microsoft's instance discovery whether an authority is genuine unless its host is
      // listed here ("knownAuthorities", docs/configuration.md of msal-browser): the operator named
      // this directory in CloudAd__Instance, so it is trusted as configured (a sovereign cloud, or a
      // local stand-in). The protocol stays MSAL's default ProtocolMode.AAD: the metadata is read at
      // <authority>/v2.0/.well-known/openid-configuration, where the API reads it too.
      knownAuthorities: config.knownAuthorities,
      redirectUri: redirectUri(),
    },
    // The directory session lives for this tab only: finwatch's own token is what stays.
    cache: { cacheLocation: 'sessionStorage' },
  };
  return createStandardPublicClientApplication(options);
}

/** Leaves for the directory's sign-in page; `returnTo` (a console path) is where the viewer lands. */
export async function startDirectorySignIn(config: DirectoryConfig, returnTo: string): Promise<void> {
  const app = await msal(config);
  await app.loginRedirect({ scopes: config.scopes, state: returnTo, redirectUri: redirectUri() });
}

/** Whether this page load is the directory sending the viewer back (an answer in the fragment). */
export function isDirectoryAnswer(): boolean {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  return hash.has('state') && (hash.has('code') || hash.has('error'));
}

/**
 * Completes a sign-in the directory sent back: the directory token becomes finwatch's own token.
 * Returns the console path the sign-in started on, or null when this load was no such answer.
 */
export async function finishDirectorySignIn(config: DirectoryConfig): Promise<string | null> {
  const app = await msal(config);
  // The answer is handled on the redirect page itself (no second navigation to where it started).
  const result = await app.handleRedirectPromise({ navigateToLoginRequestUrl: false });
  if (!result) return null;
  const own = await request<{ token: string }>('/auth/api/Auth/refreshToken', {
    method: 'POST',
    headers: { authorization: `Bearer ${result.accessToken}` },
  });
  await app.clearCache();
  setToken(own.data.token);
  return result.state?.startsWith('/') ? result.state : '/';
}
