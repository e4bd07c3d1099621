/**
 * The pauses of a run, as the original paced its cost queries: 15–25 s between the month-to-date query and the historical
 * fetch, 2–4 s before the first history page, 8–12 s before each later page. Every pause is
 * multiplied by paceScale (CostQuery__PaceScale; 0 turns them off).
 */

import { sleep } from '../../app/sleep.js';

export const PACE_MS = {
  betweenMtdAndHistory: [15_000, 25_000],
  firstHistoryPage: [2_000, 4_000],
  laterHistoryPage: [8_000, 12_000],
} as const satisfies Record<string, readonly [number, number]>;

export interface Pacer {
  /** The pause between the month-to-date query and the historical fetch; the engine calls it. */
  betweenMtdAndHistory(): Promise<void>;
  /** The pause before history page `pageIndex` (0 = the first request). */
  beforeHistoryPage(pageIndex: number): Promise<void>;
  /** A pause of `ms` (before scaling). */
  pause(ms: number): Promise<void>;
}

export interface PacerOptions {
  paceScale: number;
  sleep: (ms: number) => Promise<void>;
  random?: () => number;
}

export const realSleep = (ms: number): Promise<void> => sleep(ms);

export function createPacer(opts: PacerOptions): Pacer {
  const random = opts.random ?? Math.random;
  const pause = async (ms: number) => {
    const scaled = ms * opts.paceScale;
    if (scaled > 0) await opts.sleep(scaled);
  };
  const between = ([lo, hi]: readonly [number, number]) => pause(lo + (hi - lo) * random());
  return {
    betweenMtdAndHistory: () => between(PACE_MS.betweenMtdAndHistory),
    beforeHistoryPage: (pageIndex) =>
      between(pageIndex === 0 ? PACE_MS.firstHistoryPage : PACE_MS.laterHistoryPage),
    pause,
  };
}
