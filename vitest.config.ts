import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/support/sequencer.js';

/** One Azurite and one migrated PGlite template for the run (not per project). */
export const GLOBAL_SETUP = 'test/support/global-setup.ts';

/**
 * Files that need a module graph of their own: they mock a module (`vi.mock`) the rest of the
 * suite imports for real. Every other file shares its worker's modules with the files that ran
 * there before it (isolate: false): each file still starts its own hosts and databases, but the
 * app's modules are loaded once per worker instead of once per file (about 2.5 s a file on two
 * cores: some six minutes of a run's import time went there).
 */
export const OWN_MODULES = ['test/functions/registration.test.ts'];

const EXCLUDE = ['**/node_modules/**', 'agent/**'];

/** What every project of the run shares (a project's own fields replace these, none are merged). */
export const COMMON = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
} as const;

export default defineConfig({
  test: {
    ...COMMON,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Two cores: two files at a time keeps PGlite/Azurite start-up from starving each other.
    maxWorkers: 2,
    // The longest files start first, so neither core is left with one at the end.
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        test: {
          ...COMMON,
          name: 'shared-modules',
          include: ['test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...OWN_MODULES],
          isolate: false,
          globalSetup: [GLOBAL_SETUP],
        },
      },
      // Registers the Functions app against a mocked host: no Azurite, no database, no set-up.
      { test: { ...COMMON, name: 'own-modules', include: OWN_MODULES, exclude: EXCLUDE } },
    ],
  },
});
