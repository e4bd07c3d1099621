import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authSettingsSchema } from '../../shared/config/auth.js';
import { finopsSettingsSchema } from '../../shared/config/finops.js';
import { platformSettingsSchema } from '../../shared/config/platform.js';

const docs = readFileSync(new URL('../../docs/settings.md', import.meta.url), 'utf8');
const sample = JSON.parse(
  readFileSync(new URL('../../local.settings.sample.json', import.meta.url), 'utf8'),
) as {
  Values: Record<string, string>;
};

describe('settings documentation', () => {
  const names = [platformSettingsSchema, authSettingsSchema, finopsSettingsSchema].flatMap((s) =>
    Object.keys(s.shape),
  );

  it.each(names)('documents %s in docs/settings.md', (name) => {
    expect(docs).toContain(`\`${name}\``);
  });

  it.each(names)('lists %s in local.settings.sample.json', (name) => {
    expect(Object.keys(sample.Values)).toContain(name);
  });
});
