/**
 * What the console reads at run time (`/console/config.json`): today, how to sign in with the
 * directory (Entra ID), derived from the auth service's own directory settings so the console asks
 * for exactly the token the API accepts.
 */
import type { AuthSettings } from '../config/auth.js';

export interface ConsoleDirectory {
  /** `<instance><tenant>`: MSAL's authority. */
  authority: string;
  clientId: string;
  scopes: string[];
  /** The authority's host: MSAL trusts it without asking Microsoft's instance discovery. */
  knownAuthorities: string[];
}

export interface ConsoleConfig {
  /** Null: the sign-in page offers the password form only. */
  directory: ConsoleDirectory | null;
}

/** The console's settings from the auth settings (the same directory the API validates against). */
export function consoleConfig(auth: AuthSettings): ConsoleConfig {
  const tenant = auth.CloudAd__TenantId;
  const apiClient = auth.CloudAd__ClientId;
  if (!auth.Console__DirectorySignIn || !tenant || !apiClient) return { directory: null };
  let instance: URL;
  try {
    instance = new URL(auth.CloudAd__Instance.replace(/\/*$/, '/'));
  } catch {
    return { directory: null };
  }
  const scopes = auth.Console__DirectoryScopes.length
    ? auth.Console__DirectoryScopes
    : [`api://${apiClient}/access_as_user`];
  return {
    directory: {
      authority: new URL(encodeURIComponent(tenant), instance).href,
      clientId: auth.Console__DirectoryClientId ?? apiClient,
      scopes,
      knownAuthorities: [instance.host],
    },
  };
}

/** Origins the page must reach besides its own (MSAL fetches the authority's metadata and tokens). */
export function connectSources(config: ConsoleConfig | undefined): string[] {
  return config?.directory ? [new URL(config.directory.authority).origin] : [];
}
