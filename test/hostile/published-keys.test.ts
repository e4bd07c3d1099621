import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEV_JWT_KEY } from '../../shared/config/auth.js';
import { ConfigError, loadConfig } from '../../shared/config/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = [
  'shared',
  'dev',
  'functions',
  'test',
  'bench',
  'scripts',
  'docs',
  'infra',
  'README.md',
  'local.settings.sample.json',
];

function* files(entry: string): Generator<string> {
  const full = path.join(ROOT, entry);
  if (statSync(full).isFile()) {
    if (/\.(ts|md|json|bicep|mjs)$/.test(full)) yield full;
    return;
  }
  for (const name of readdirSync(full)) {
    if (name === 'node_modules' || name === 'generated') continue;
    yield* files(path.join(entry, name));
  }
}

/** String literals that look like a signing key: on a Jwt__Key / JWT_KEY line, or naming a key. */
function keyLiterals(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of [...SCANNED.flatMap((e) => [...files(e)])]) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(/['"`]([A-Za-z0-9._~+/=-]{32,})['"`]/g)) {
        const value = m[1]!;
        if (/^\w+__\w+$/.test(value)) continue; // a setting's name, not a value
        if (/Jwt__Key|JWT_KEY/.test(line) || /signing-key|signing_key/i.test(value)) {
          found.set(value, `${path.relative(ROOT, file)}:${i + 1}`);
        }
      }
    });
  }
  return found;
}

const production = (key: string) => () =>
  loadConfig({
    WEBAPP_ENVIRONMENT: 'Production',
    Jwt__Key: key,
    ConnectionStrings__SqlConnectionString: 'postgresql://u:p@db.example:5432/finwatch',
  });

// A Production host started with the development key printed in
// shared/config/auth.ts accepted a token forged with it.
describe('keys published in the repository', () => {
  it('refuses the development key and every key value written in the repository in Production', () => {
    const literals = keyLiterals();
    expect(literals.get(DEV_JWT_KEY)).toBe('shared/config/auth.ts:4');
    expect(literals.size).toBeGreaterThanOrEqual(5);
    const accepted = [...literals].filter(([key]) => {
      try {
        production(key)();
        return true;
      } catch (e) {
        return !(e instanceof ConfigError && /published in the finwatch repository/.test(e.message));
      }
    });
    expect(accepted.map(([key, where]) => `${where}: ${key}`)).toEqual([]);
  });

  it("still accepts a key of the operator's own in Production, and the development key in Development", () => {
    expect(production('an-operator-secret-that-is-nowhere-in-the-repo-7f3a')).not.toThrow();
    expect(loadConfig({ WEBAPP_ENVIRONMENT: 'Development', Jwt__Key: DEV_JWT_KEY }).auth.Jwt__Key).toBe(
      DEV_JWT_KEY,
    );
  });
});
