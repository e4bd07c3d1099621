/**
 * The local host's timers: each timer function fired at the times its NCRONTAB schedule names, as
 * Azure would fire it, with a Timer and an InvocationContext of its own.
 */
import { randomUUID } from 'node:crypto';
import azf, { type Timer } from '@azure/functions';
import { nextOccurrence } from '../shared/app/ncrontab.js';
import type { AppServices } from '../shared/app/services.js';
import type { TimerFunction } from '../shared/app/timer-functions.js';

/** setTimeout holds at most ~24.8 days: a later run is waited for in steps and re-planned. */
const LONGEST_WAIT_MS = 20 * 86_400_000;

export interface RunningTimers {
  /** No more runs; resolves once the runs under way have finished. */
  stop(): Promise<void>;
}

export function startTimers(services: AppServices, timers: TimerFunction[]): RunningTimers {
  const pending = new Map<string, NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();
  let stopped = false;
  for (const t of timers) {
    const schedule = () => {
      if (stopped) return;
      const next = nextOccurrence(t.schedule, new Date());
      const wait = Math.min(next.getTime() - Date.now(), LONGEST_WAIT_MS);
      const handle = setTimeout(() => {
        if (Date.now() < next.getTime()) return schedule();
        const ctx = new azf.InvocationContext({ functionName: t.name, invocationId: randomUUID() });
        const tick: Timer = {
          isPastDue: false,
          schedule: { adjustForDST: false },
          scheduleStatus: {
            last: next.toISOString(),
            next: nextOccurrence(t.schedule, next).toISOString(),
            lastUpdated: new Date().toISOString(),
          },
        };
        const run = t
          .run(services, tick, ctx)
          .catch((e) => services.log.error({ err: e, timer: t.name }, 'timer function failed'))
          .finally(() => {
            running.delete(run);
            schedule();
          });
        running.add(run);
      }, wait);
      handle.unref();
      pending.set(t.name, handle);
    };
    schedule();
  }
  return {
    async stop() {
      stopped = true;
      for (const handle of pending.values()) clearTimeout(handle);
      pending.clear();
      await Promise.allSettled([...running]);
    },
  };
}
