import { ConfigError, type Settings } from './source.js';

// App Service leaves an app setting's value as the literal `@Microsoft.KeyVault(...)` text when it
// cannot resolve the reference (no access to the vault, a wrong secret name, the identity not yet
// granted): "If a reference isn't resolved properly, the reference string is used instead"
// (learn.microsoft.com, "Use Key Vault references as app settings", Troubleshooting).
const UNRESOLVED = /^\s*@Microsoft\.KeyVault\s*\(/i;

/**
 * Refuses any of the named settings that still holds a Key Vault reference. Without this a
 * reference would start the app with the reference text as its signing key, connection string or
 * client secret, and fail later, far from the cause (or, for Jwt__Key, sign tokens with it).
 */
export function refuseUnresolvedKeyVaultReferences(settings: Settings, names: Iterable<string>): void {
  for (const name of names) {
    const value = settings[name];
    if (value !== undefined && UNRESOLVED.test(value)) {
      throw new ConfigError(
        `Setting ${name} holds an unresolved Key Vault reference: App Service could not read the secret (check the app's managed identity has Get access to the vault and the secret name; the portal shows the reference status under Environment variables).`,
      );
    }
  }
}
