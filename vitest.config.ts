import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/support/sequencer.js';

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'agent/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: two files at a time keeps PGlite/Azurite start-up from starving each other.
    maxWorkers: 2,
    // The longest files start first, so neither core is left with one at the end.
    sequence: { sequencer: LongFilesFirst },
  },
});
