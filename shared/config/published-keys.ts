import { DEV_JWT_KEY } from './auth.js';

/**
 * Every signing-key value written anywhere in this repository (the development key, test, package
 * and benchmark fixtures). Anyone can read them, so a Production host started with one of them would
 * accept tokens forged by anyone; loadConfig refuses them there. test/hostile/published-keys.test.ts
 * scans the repository and fails when a new one is not listed here.
 */
export const PUBLISHED_JWT_KEYS: ReadonlySet<string> = new Set([
  DEV_JWT_KEY,
  'test-signing-key-0123456789-0123456789-abcdef',
  'package-test-signing-key-0123456789-0123456789',
  'bench-signing-key-0123456789-0123456789-abcdef',
  'a-real-production-signing-key-of-enough-length-42',
  'a-completely-different-signing-key-0123456789',
]);
