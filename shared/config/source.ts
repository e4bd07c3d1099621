import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type Settings = Record<string, string | undefined>;

/**
 * The settings a process runs with: the environment (Azure app settings arrive that way), over the
 * `Values` of local.settings.json for local runs, in the Functions host's format.
 */
export function readSettings(env: Settings = process.env, cwd = process.cwd()): Settings {
  const file = path.join(cwd, 'local.settings.json');
  let local: Settings = {};
  if (existsSync(file)) {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { Values?: Record<string, unknown> };
      local = Object.fromEntries(
        Object.entries(parsed.Values ?? {}).map(([k, v]) => [
          k,
          v === null || v === undefined ? undefined : String(v),
        ]),
      );
    } catch (e) {
      throw new ConfigError(`local.settings.json is not valid JSON: ${(e as Error).message}`);
    }
  }
  return withLinuxAliases({ ...local, ...env });
}

/**
 * Linux app settings reach the process with every '.' turned into '_', so a setting such as
 * Logging__LogLevel__Vendor.IdentityModel... arrives as Logging__LogLevel__Vendor_IdentityModel...
 */
const DOTTED = ['Logging__LogLevel__Vendor.IdentityModel.LoggingExtensions.IdentityLoggerAdapter'];

function withLinuxAliases(settings: Settings): Settings {
  for (const name of DOTTED) {
    const alias = name.replaceAll('.', '_');
    if (settings[name] === undefined && settings[alias] !== undefined) settings[name] = settings[alias];
  }
  return settings;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
