import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (seconds each took in a CI run on two cores). Vitest
 * runs two files at a time and, on a clean clone with no timings of earlier runs, starts the
 * largest files first: a long file that is short in lines (a hundred full-cost password checks)
 * could start last and keep one core busy for a minute after the other had run out of files.
 * Started first, the rest of the suite fills the other core meanwhile.
 */
export const LONG_FILES_FIRST = [
  'test/console/console-browser.test.ts', // 56: a browser through every console page
  'test/hostile/login-throttle.test.ts', // 56: 100 full-cost password checks, slowed guesses
  'test/finops-api/streaming.test.ts', // 42: 66 MB of answers, concurrent and held
  'test/package/host-routing.test.ts', // 41: the deployment package's build, every route
  'test/auth/admin-command-pglite.test.ts', // about 30: two processes, each starting PGlite
  'test/hostile/resilience-lost-jobs.test.ts', // 31: the job sweeper's heartbeats
  'test/db/migrations.test.ts', // 29: initdb and every migration, on each database
  'test/hostile/sweep.test.ts', // 26: 2,000 malformed requests
];

/** Vitest's own order (failed first, then by earlier timings or size), the long files ahead of it. */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = LONG_FILES_FIRST.findIndex((f) => spec.moduleId.endsWith(`/${f}`));
      return i < 0 ? LONG_FILES_FIRST.length : i;
    };
    // Array.prototype.sort is stable: files off the list keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
