/**
 * The app's timer functions in one table: what each runs, under which name and NCRONTAB schedule.
 * Azure registers them (functions/register.ts); the local host fires them at the same times
 * (dev/timers.ts), so a timer's settings are read in one place for both.
 */
import type { InvocationContext, Timer } from '@azure/functions';
import type { AppConfig } from '../config/index.js';
import { exportImportTimerTrigger } from '../finops/imports/exports.js';
import { deliverDue, outboxDeps } from '../notify/outbox.js';
import type { AppServices } from './services.js';
import {
  jobSweepTimerTrigger,
  metricsHousekeepingTimerTrigger,
  metricsSilenceTimerTrigger,
  notificationTimerTrigger,
  weeklyTimerTrigger,
} from './triggers.js';

export type TimerKind = 'weekly' | 'exports' | 'sweep' | 'housekeeping' | 'silence' | 'notifications';

export interface TimerFunction {
  kind: TimerKind;
  name: string;
  schedule: string;
  run(services: AppServices, tick: Timer, context: InvocationContext): Promise<unknown>;
}

/** The timers these settings call for (a disabled one is left out). */
export function timerFunctions(config: AppConfig): TimerFunction[] {
  const timers: TimerFunction[] = [];
  const weekly = weeklyTimerTrigger(config);
  if (weekly) {
    timers.push({ kind: 'weekly', ...weekly, run: (s, tick, ctx) => s.finops.handleWeeklyTimer(tick, ctx) });
  }
  const exportsTimer = exportImportTimerTrigger(config);
  if (exportsTimer) {
    timers.push({
      kind: 'exports',
      ...exportsTimer,
      run: (s, tick, ctx) => s.finops.handleExportTimer(tick, ctx),
    });
  }
  timers.push({ kind: 'sweep', ...jobSweepTimerTrigger(), run: (s) => s.finops.engine.sweepJobs() });
  timers.push({
    kind: 'housekeeping',
    ...metricsHousekeepingTimerTrigger(),
    run: async (s) => {
      const partitions = await s.metrics.housekeeping();
      // The cost read's per-day sums of the days that closed since the last run, so a month's
      // first read does not sum them itself.
      const costDays = await s.finops.kubernetesUsage.prepareClosedDays?.();
      if (costDays?.length) s.log.info({ costDays }, 'Kubernetes cost days summed');
      return { ...partitions, costDays };
    },
  });
  const silence = metricsSilenceTimerTrigger(config);
  if (silence) timers.push({ kind: 'silence', ...silence, run: (s) => s.metricsAlerts.checkSilence() });
  timers.push({
    kind: 'notifications',
    ...notificationTimerTrigger(config),
    run: (s) => deliverDue(outboxDeps(s)),
  });
  return timers;
}
