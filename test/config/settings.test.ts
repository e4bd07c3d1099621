import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { authSettingsSchema } from '../../shared/config/auth.js';
import { finopsSettingsSchema } from '../../shared/config/finops.js';
import { loadConfig, type Settings } from '../../shared/config/index.js';
import { metricsSettingsSchema } from '../../shared/config/metrics.js';
import { platformSettingsSchema } from '../../shared/config/platform.js';
import { parseAppSettings, readInfraBicep } from '../infra/bicep-source.js';

/**
 * Settings as data: the names documented in docs/settings.md, wired in infra/*.bicep and listed in
 * local.settings.sample.json are compared with the names the configuration schema reads, and every
 * documented setting, given in the environment, changes the loaded configuration.
 */

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');

/** The first cell of every table row of a section of docs/settings.md, per section heading. */
function documentedSettings(markdown: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let heading = '';
  for (const line of markdown.split('\n')) {
    const h = /^## (.+)$/.exec(line);
    if (h) {
      heading = h[1]!.trim();
      continue;
    }
    const cell = /^\| `([A-Za-z][A-Za-z0-9_.]*)` \|/.exec(line);
    if (cell) sections.set(heading, [...(sections.get(heading) ?? []), cell[1]!]);
  }
  return sections;
}

const schemas = [platformSettingsSchema, authSettingsSchema, finopsSettingsSchema, metricsSettingsSchema];
const schemaNames = schemas.flatMap((s) => Object.keys(s.shape)).sort();
const docs = documentedSettings(read('docs/settings.md'));
/** Read from the process environment before the configuration loads, so outside the schema. */
const overrides = docs.get('Build and runtime overrides') ?? [];
const documented = [...docs.entries()]
  .filter(([heading]) => heading !== 'Build and runtime overrides')
  .flatMap(([, names]) => names)
  .sort();

/** Settings of the Azure platform itself, which the Functions host or App Service reads. */
const azurePlatform = (name: string) =>
  name === 'APPLICATIONINSIGHTS_CONNECTION_STRING' || name.startsWith('AzureWebJobsStorage');

const without = (a: readonly string[], b: readonly string[]) => a.filter((n) => !b.includes(n));

describe('settings as data', () => {
  it('docs/settings.md documents every setting the configuration reads, and only those', () => {
    expect(documented.length).toBeGreaterThan(50);
    expect(without(schemaNames, documented), 'read but not documented').toEqual([]);
    expect(
      without(documented, schemaNames).filter((n) => !azurePlatform(n)),
      'documented but not read',
    ).toEqual([]);
  });

  it('local.settings.sample.json lists every setting the configuration reads, and only those', () => {
    const sample = Object.keys(
      (JSON.parse(read('local.settings.sample.json')) as { Values: Settings }).Values,
    );
    expect(without(schemaNames, sample), 'missing from the sample').toEqual([]);
    expect(
      without(sample, [...schemaNames, ...overrides]).filter(
        (n) => !azurePlatform(n) && n !== 'FUNCTIONS_WORKER_RUNTIME',
      ),
      'in the sample but not read',
    ).toEqual([]);
  });

  it("the Bicep template's app settings are settings the app reads, the Azure platform's or a runtime override", () => {
    const bicepNames = [...parseAppSettings(readInfraBicep()).keys()];
    // App Service turns '.' into '_' on Linux; the loader accepts both spellings.
    const known = new Set([...schemaNames, ...overrides].flatMap((n) => [n, n.replaceAll('.', '_')]));
    expect(bicepNames.filter((n) => !known.has(n) && !azurePlatform(n))).toEqual([]);
  });

  it('the Bicep template sets every setting of the original services, under the same name', () => {
    const bicepNames = new Set(parseAppSettings(readInfraBicep()).keys());
    const original = JSON.parse(read('test/infra/original-settings.json')) as { names: string[] };
    // App Service turns '.' into '_' on Linux: a dotted name is set in its '_' form too.
    expect(
      original.names.filter((n) => !bicepNames.has(n) && !bicepNames.has(n.replaceAll('.', '_'))),
    ).toEqual([]);
  });

  it('reads every setting of the original services under its original name', () => {
    const original = JSON.parse(read('test/infra/original-settings.json')) as { names: string[] };
    const known = new Set([...schemaNames, ...overrides]);
    expect(original.names.filter((n) => !known.has(n) && !azurePlatform(n))).toEqual([]);
  });
});

// A development base the loader accepts, so one setting at a time can be varied.
const BASE: Settings = { WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' };

/** Flattens the loaded configuration's sections into one name -> value map. */
function loaded(settings: Settings): Record<string, unknown> {
  const c = loadConfig(settings);
  return { ...c.platform, ...c.auth, ...c.finops, ...c.metrics };
}

/** Options of an enum setting (its schema under the preprocessing wrappers). */
function enumOptions(name: string): string[] {
  for (const s of schemas) {
    let field = (s.shape as Record<string, unknown>)[name] as
      | { def?: { type?: string; out?: unknown; innerType?: unknown; entries?: Record<string, string> } }
      | undefined;
    for (let i = 0; i < 6 && field?.def; i++) {
      if (field.def.type === 'enum') return Object.values(field.def.entries ?? {});
      field = (field.def.out ?? field.def.innerType) as typeof field;
    }
  }
  return [];
}

// Made per run: a key written in the repository is refused in Production (published-keys test).
const KEY = randomBytes(32).toString('base64url');
const CANDIDATES = [
  'https://sample.example/path',
  'postgresql://sample@127.0.0.1:5432/sample',
  '7b1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e9f',
  'ops@sample.example',
  'sample.example',
  KEY,
  '1',
  '2',
  '45',
  'Warning',
  'Monday',
  '0 0 * * * *',
  'sample-value',
  'sample-export=7b1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e9f',
];

/** A raw value for a setting that loads as something else than its default, or undefined. */
function sampleFor(name: string, defaults: Record<string, unknown>): string | undefined {
  const d = defaults[name];
  const raw: string[] = [];
  if (typeof d === 'boolean') raw.push(String(!d));
  if (typeof d === 'number') raw.push(String(d + 1), String(d - 1), String(d * 2));
  if (Array.isArray(d))
    raw.push('alpha.example,beta.example', 'a@sample.example,b@sample.example', `${CANDIDATES[2]}`);
  raw.push(...enumOptions(name), ...CANDIDATES);
  for (const value of raw) {
    try {
      const out = loaded({
        ...BASE,
        ...(name === 'WEBAPP_ENVIRONMENT'
          ? { Jwt__Key: KEY, ConnectionStrings__SqlConnectionString: CANDIDATES[1] }
          : {}),
        [name]: value,
      });
      if (JSON.stringify(out[name]) !== JSON.stringify(d)) return value;
    } catch {
      // Not a valid value of this setting: try the next.
    }
  }
  return undefined;
}

describe('every documented setting changes the loaded configuration', () => {
  const defaults = loaded(BASE);
  const readable = documented.filter((n) => !azurePlatform(n));

  it('has a value for each documented setting that loads as something else than its default', () => {
    const none = readable.filter((n) => sampleFor(n, defaults) === undefined);
    expect(none, 'documented settings that no value changes (not read, or read under another name)').toEqual(
      [],
    );
  });

  it('refuses an invalid value of a numeric setting by name', () => {
    const numeric = readable.filter((n) => typeof defaults[n] === 'number');
    expect(numeric.length).toBeGreaterThan(10);
    for (const name of numeric) {
      expect(() => loaded({ ...BASE, [name]: 'not-a-number' }), name).toThrow(new RegExp(`Setting ${name} `));
    }
  });

  it('schemas are objects of settings (one level, the env names)', () => {
    for (const s of schemas) expect(s).toBeInstanceOf(z.ZodObject);
  });
});
