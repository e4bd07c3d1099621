// Text-level readers for infra/*.bicep.
// There is no Bicep compiler on the development machines, so the tests read the source text:
// enough to check names and wiring, not a substitute for `az bicep build`.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** All .bicep files under infra/, concatenated (main.bicep first). */
export function readInfraBicep(): string {
  const infraDir = path.join(repoRoot, 'infra');
  const files = readdirSync(infraDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.bicep'))
    .sort((a, b) => (a === 'main.bicep' ? -1 : b === 'main.bicep' ? 1 : a.localeCompare(b)));
  return files.map((f) => readFileSync(path.join(infraDir, f), 'utf8')).join('\n');
}

/** Drops `//` line comments (outside strings) so commented-out text cannot satisfy a check. */
export function stripComments(bicep: string): string {
  return bicep
    .split('\n')
    .map((line) => {
      let inString = false;
      for (let i = 0; i < line.length; i++) {
        const ch = line[i];
        if (ch === "'" && line[i - 1] !== '\\') inString = !inString;
        if (!inString && ch === '/' && line[i + 1] === '/') return line.slice(0, i);
      }
      return line;
    })
    .join('\n');
}

/**
 * App settings declared in `var <name>AppSettings = { ... }` objects: setting name -> the Bicep
 * text of its value. Keys are read at the object's top level only.
 */
export function parseAppSettings(bicep: string): Map<string, string> {
  const settings = new Map<string, string>();
  const lines = stripComments(bicep).split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^var \w*AppSettings = \{\s*$/.test(lines[i] ?? '')) continue;
    let depth = 1;
    let current: string | undefined;
    for (i++; i < lines.length && depth > 0; i++) {
      const line = lines[i] ?? '';
      const key =
        depth === 1 ? /^\s*(?:'([A-Za-z0-9_.]+)'|([A-Za-z_][A-Za-z0-9_]*))\s*:(.*)$/.exec(line) : null;
      if (key) {
        current = key[1] ?? key[2]!;
        settings.set(current, key[3]!.trim());
      } else if (current && depth === 1 && line.trim() !== '}') {
        settings.set(current, `${settings.get(current)} ${line.trim()}`.trim());
      }
      for (const ch of line) {
        if (ch === '{') depth++;
        else if (ch === '}') depth--;
      }
    }
  }
  return settings;
}

/** Names of the Key Vault secrets the Bicep declares (`Microsoft.KeyVault/vaults/secrets` resources). */
export function declaredKeyVaultSecrets(bicep: string): string[] {
  const names: string[] = [];
  const resource = /'Microsoft\.KeyVault\/vaults\/secrets@[^']+'\s*=\s*(?:if\s*\(.*?\)\s*)?\{([\s\S]*?)\n\}/g;
  for (const m of stripComments(bicep).matchAll(resource)) {
    const name = /^\s*name:\s*'([^']+)'/m.exec(m[1]!);
    if (name) names.push(name[1]!);
  }
  return names;
}

/** Secret names referenced by `@Microsoft.KeyVault(SecretUri=.../secrets/<name>/)` values. */
export function referencedKeyVaultSecrets(text: string): string[] {
  return [
    ...text.matchAll(/@Microsoft\.KeyVault\(SecretUri=\$\{kvSecretBaseUri\}\/([A-Za-z0-9-]+)\/?\)/g),
  ].map((m) => m[1]!);
}

/** Default value of a `param <name> string = '<value>'` declaration. */
export function paramDefault(bicep: string, name: string): string | undefined {
  return new RegExp(`^param ${name} string = '([^']*)'`, 'm').exec(bicep)?.[1];
}
