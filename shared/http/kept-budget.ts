import type { PlatformSettings } from '../config/platform.js';

/**
 * How Http__KeptAnswersMiB is shared between the stores of answers an instance keeps to send
 * again, in 120ths: at the default of 120 each share is one MiB. History pages, lists of a run's
 * rows and run details are answers of immutable runs (shared/finops/routes/read/kept.ts); unpaged
 * histories are kept compressed (historical-costs.ts); compressed copies are br or gzip bodies of
 * any answer, found by the body's hash (compression.ts).
 */
export const KEPT_SHARES = {
  historyPages: 32,
  lists: 24,
  details: 16,
  unpagedHistory: 32,
  compressedCopies: 16,
} as const;
const SHARES_TOTAL = 120;

export type KeptStore = keyof typeof KEPT_SHARES;

/** Bytes one store may hold on one instance; 0 when the setting is 0 (nothing is kept). */
export function keptBytes(
  platform: Pick<PlatformSettings, 'Http__KeptAnswersMiB'>,
  store: KeptStore,
): number {
  return Math.floor((platform.Http__KeptAnswersMiB * 1024 * 1024 * KEPT_SHARES[store]) / SHARES_TOTAL);
}
