import { sleep } from './limiter.js';
import type { Logger } from './logger.js';

export interface LoopOptions {
  intervalMs: number;
  /** Longest wait between cycles while the API server or the ingest API is down. */
  maxBackoffMs?: number;
  onCycleStart?: () => void;
  onCycleEnd?: () => void;
}

/**
 * Fixed-rate loop: a cycle starts every interval, measured start to start. Cycles never overlap: a slow
 * one delays the next, which starts right after it, and the loop says so. While the API server is
 * unreachable the wait doubles per degraded cycle, up to maxBackoffMs (default 5 min or the interval), to
 * spare it. An unreachable ingest API gets no back-off: the next cycle's cheap probe is one interval away,
 * so data flows again within one interval of its return.
 */
export async function runLoop(
  cycle: () => Promise<{ degraded: boolean; ingestDown?: boolean }>,
  options: LoopOptions,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  const maxBackoff = Math.max(options.intervalMs, options.maxBackoffMs ?? 300_000);
  let degradedCycles = 0;
  while (!signal.aborted) {
    const started = Date.now();
    let degraded = true;
    options.onCycleStart?.();
    try {
      ({ degraded } = await cycle());
    } catch (error) {
      log.error({ err: error }, 'cycle failed');
    } finally {
      options.onCycleEnd?.();
    }
    if (signal.aborted) break;
    const elapsed = Date.now() - started;
    let wait = Math.max(0, options.intervalMs - elapsed);
    if (elapsed > options.intervalMs) {
      log.warn(
        { durationMs: elapsed, intervalMs: options.intervalMs },
        'cycle took longer than the interval; the next cycle starts late',
      );
    }
    if (degraded) {
      degradedCycles++;
      const backoff = Math.min(options.intervalMs * 2 ** degradedCycles, maxBackoff);
      wait = Math.max(wait, backoff - elapsed);
      log.warn({ waitMs: wait, degradedCycles }, 'Kubernetes API unreachable; backing off');
    } else degradedCycles = 0;
    await sleep(wait, signal);
  }
}
