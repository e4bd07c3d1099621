import { setTimeout as wait } from 'node:timers/promises';

/**
 * Waits `ms` milliseconds, or less when `signal` aborts: the wait then ends quietly (it resolves,
 * it does not throw), so a stopping host stops waiting and goes on to its own checks. Built on
 * node:timers/promises, which removes its abort listener when the wait ends: a signal that lives
 * as long as the host does not gather one listener per wait.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  try {
    await wait(ms, undefined, signal ? { signal } : undefined);
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
}
