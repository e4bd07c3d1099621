import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { POSTGRES_PASS } from '../../vitest.postgres.config.js';

const root = new URL('../../', import.meta.url);

describe('the PostgreSQL pass (npm run test:postgres)', () => {
  it('names only test files that exist, so a renamed file is not silently left out', () => {
    expect(POSTGRES_PASS.filter((file) => !existsSync(new URL(file, root)))).toEqual([]);
  });

  it('leaves out files npm test already runs on PostgreSQL or that pin PGlite', () => {
    const repeated = POSTGRES_PASS.filter((file) => {
      const text = readFileSync(new URL(file, root), 'utf8');
      return file.endsWith('-postgres.test.ts') || /TEST_DATABASES|database: 'pglite'/.test(text);
    });
    expect(repeated).toEqual([]);
  });
});
