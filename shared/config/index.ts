import type { z } from 'zod';
import { type AuthSettings, authSettingsSchema } from './auth.js';
import { type FinopsSettings, finopsSettingsSchema } from './finops.js';
import { refuseUnresolvedKeyVaultReferences } from './key-vault.js';
import { type MetricsSettings, metricsSettingsSchema } from './metrics.js';
import { type PlatformSettings, platformSettingsSchema } from './platform.js';
import { PUBLISHED_JWT_KEYS } from './published-keys.js';
import { ConfigError, readSettings, type Settings } from './source.js';

export { ConfigError, readSettings, type Settings } from './source.js';

export interface AppConfig {
  platform: PlatformSettings;
  auth: AuthSettings;
  finops: FinopsSettings;
  metrics: MetricsSettings;
  isDevelopment: boolean;
}

const PLACEHOLDER_KEYS = new Set([
  'fakekey',
  'your_jwt_key',
  'changeme',
  'change-me',
  'secret',
  'your-secret-key',
]);

function parseSection<S extends z.ZodType>(schema: S, settings: Settings): z.infer<S> {
  const r = schema.safeParse(settings);
  if (r.success) return r.data;
  const first = r.error.issues[0]!;
  const name = String(first.path[0] ?? '?');
  const value = settings[name];
  const shown =
    value === undefined ? 'unset' : /key|secret|password|connection/i.test(name) ? '***' : `"${value}"`;
  throw new ConfigError(`Setting ${name} (${shown}) ${first.message}.`);
}

/**
 * Reads and validates every setting once. A missing or invalid required setting throws a
 * ConfigError whose message is one line naming the setting, which startup prints and exits on.
 */
export function loadConfig(settings: Settings = readSettings()): AppConfig {
  // Every setting finwatch reads (the secrets above all).
  refuseUnresolvedKeyVaultReferences(settings, [
    ...Object.keys(platformSettingsSchema.shape),
    ...Object.keys(authSettingsSchema.shape),
    ...Object.keys(finopsSettingsSchema.shape),
    ...Object.keys(metricsSettingsSchema.shape),
  ]);
  const platform = parseSection(platformSettingsSchema, settings);
  const auth = parseSection(authSettingsSchema, settings);
  const finops = parseSection(finopsSettingsSchema, settings);
  const metrics = parseSection(metricsSettingsSchema, settings);
  const isDevelopment = platform.WEBAPP_ENVIRONMENT === 'Development';
  if (!isDevelopment) {
    if (!auth.Jwt__Key) {
      throw new ConfigError('Setting Jwt__Key is required in Production (the signing key of own tokens).');
    }
    if (PLACEHOLDER_KEYS.has(auth.Jwt__Key.toLowerCase()) || auth.Jwt__Key.length < 32) {
      throw new ConfigError(
        'Setting Jwt__Key must be a real secret of at least 32 characters in Production.',
      );
    }
    if (PUBLISHED_JWT_KEYS.has(auth.Jwt__Key)) {
      throw new ConfigError(
        'Setting Jwt__Key is a key published in the finwatch repository (development or test); use a secret of your own in Production.',
      );
    }
    if (!platform.ConnectionStrings__SqlConnectionString) {
      throw new ConfigError(
        'Setting ConnectionStrings__SqlConnectionString is required in Production (a postgresql:// URL).',
      );
    }
  } else if (auth.Jwt__Key && auth.Jwt__Key.length < 32) {
    throw new ConfigError('Setting Jwt__Key must be at least 32 characters (HS256 key).');
  }
  return { platform, auth, finops, metrics, isDevelopment };
}
