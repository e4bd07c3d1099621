// Text-level readers for the service specs' configuration tables and for infra/*.bicep.
// There is no Bicep compiler on the development machines, so the tests read the source text:
// enough to check names and wiring, not a substitute for `az bicep build`.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Maintainers who hold the service specifications can point FINWATCH_SPEC_DIR at them to check the
 * checked-in copy of their setting names; everyone else uses that copy.
 */
export const liveSpecDir = process.env.FINWATCH_SPEC_DIR ? path.resolve(process.env.FINWATCH_SPEC_DIR) : '';
export const specFiles = ['auth-service.md', 'finops-service.md'] as const;
export const checkedInSpecSettings = path.join(repoRoot, 'test/infra/spec-settings.json');

export interface SpecSettingsCopy {
  note: string;
  settings: Record<(typeof specFiles)[number], string[]>;
}

const settingToken = /^[A-Za-z][A-Za-z0-9_.]*$/;

/**
 * Setting names of a spec: the first cell of every row of every table whose first header cell is
 * "Variable". A cell may list several names ("smtpHost, smtpPort, ...", "... and further options");
 * names are the tokens with an upper-case letter or an underscore, so English words drop out.
 * Plus the setting names the prose mentions (see below).
 */
export function parseSpecSettings(markdown: string): string[] {
  const names = new Set<string>();
  let inTable = false;
  for (const rawLine of markdown.split('\n')) {
    const line = rawLine.trim();
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((c) => c.trim());
    const first = cells[0] ?? '';
    if (first === 'Variable') {
      inTable = true;
      continue;
    }
    if (!inTable || /^:?-+:?$/.test(first)) continue;
    for (const token of first.replaceAll('`', '').split(/[\s,]+/)) {
      if (settingToken.test(token) && /[A-Z_]/.test(token)) names.add(token);
    }
  }
  // Settings the prose names outside the tables (e.g. "Cloud__TenantId, Cloud__ClientId, ..." in
  // the FinOps spec's authentication section): nested names with a double underscore and
  // UPPER_SNAKE names. Placeholders such as <API_KEY> and wildcards such as Jwt__* are not names.
  const prose = markdown.replace(/<[^>\n]*>/g, ' ');
  for (const m of prose.matchAll(/(?<![\w.-])([A-Za-z][A-Za-z0-9]*__[A-Za-z0-9_.]*[A-Za-z0-9])(?![\w*])/g)) {
    names.add(m[1]!);
  }
  for (const m of prose.matchAll(/(?<![\w.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w*])/g)) names.add(m[1]!);
  return [...names];
}

/** Spec setting names per file: from the live spec when reachable, else from the checked-in copy. */
export function loadSpecSettings(): { source: 'live' | 'copy'; settings: SpecSettingsCopy['settings'] } {
  if (liveSpecDir && specFiles.every((f) => existsSync(path.join(liveSpecDir, f)))) {
    const settings = Object.fromEntries(
      specFiles.map((f) => [f, parseSpecSettings(readFileSync(path.join(liveSpecDir, f), 'utf8'))]),
    ) as SpecSettingsCopy['settings'];
    return { source: 'live', settings };
  }
  const copy = JSON.parse(readFileSync(checkedInSpecSettings, 'utf8')) as SpecSettingsCopy;
  return { source: 'copy', settings: copy.settings };
}

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
