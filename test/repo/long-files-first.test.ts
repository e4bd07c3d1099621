import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import LongFilesFirst, { LONG_FILES_FIRST } from '../support/sequencer.js';

const root = new URL('../../', import.meta.url);
const rootPath = root.pathname.replace(/\/$/, '');

/** A file as the sequencer sees it, on a clean clone (no timings of earlier runs). */
const spec = (file: string) =>
  ({
    moduleId: `${rootPath}/${file}`,
    project: { name: '', config: { sequence: { groupOrder: 0 }, isolate: true } },
  }) as unknown as TestSpecification;

describe('the order test files start in (test/support/sequencer.ts)', () => {
  it('names only test files that exist, so a renamed long file does not silently start late', () => {
    expect(LONG_FILES_FIRST.filter((file) => !existsSync(new URL(file, root)))).toEqual([]);
    expect(new Set(LONG_FILES_FIRST).size).toBe(LONG_FILES_FIRST.length);
  });

  it('starts the long files first, in their order, and the others in vitest order (larger first) after them', async () => {
    const sizes: Record<string, number> = {
      'test/a-big.test.ts': 9_000,
      'test/b-small.test.ts': 100,
      [LONG_FILES_FIRST[1]!]: 500,
      [LONG_FILES_FIRST[0]!]: 5_000,
    };
    const ctx = {
      config: { root: rootPath },
      cache: {
        getFileTestResults: () => undefined,
        getFileStats: (key: string) => ({ size: sizes[key.slice(1)] ?? 0 }),
      },
    } as unknown as Vitest;
    const files = ['test/b-small.test.ts', LONG_FILES_FIRST[1]!, 'test/a-big.test.ts', LONG_FILES_FIRST[0]!];
    const sorted = await new LongFilesFirst(ctx).sort(files.map(spec));
    expect(sorted.map((s) => s.moduleId.slice(rootPath.length + 1))).toEqual([
      LONG_FILES_FIRST[0],
      LONG_FILES_FIRST[1],
      'test/a-big.test.ts',
      'test/b-small.test.ts',
    ]);
  });
});
