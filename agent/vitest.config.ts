import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', '../test/support/summary-reporter.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
