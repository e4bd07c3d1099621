import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { optionalDependencies?: Record<string, string> }>;
};

describe('package-lock.json', () => {
  it('lists every optional platform package its dependencies declare, so npm ci accepts it everywhere', () => {
    const missing: string[] = [];
    for (const [path, pkg] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
        const nested = `${path ? `${path}/` : ''}node_modules/${dep}`;
        if (!lock.packages[nested] && !lock.packages[`node_modules/${dep}`])
          missing.push(`${path || '(root)'} → ${dep}`);
      }
    }
    // When this fails: run `node scripts/complete-lockfile.mjs` after the npm install that pruned them.
    expect(missing).toEqual([]);
  });
});
