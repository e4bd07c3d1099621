import type { FinopsSettings } from '../config/finops.js';
import { WEEK_DAYS } from '../config/finops.js';

type WeeklySettings = Pick<
  FinopsSettings,
  'WeeklyAnalysis__DayOfWeekUtc' | 'WeeklyAnalysis__HourUtc' | 'WeeklyAnalysis__MinuteUtc'
>;

/** The timer trigger's six-field NCRONTAB (second minute hour day month day-of-week), in UTC. */
export function weeklyNcrontab(s: WeeklySettings): string {
  const dow = WEEK_DAYS.indexOf(s.WeeklyAnalysis__DayOfWeekUtc);
  return `0 ${s.WeeklyAnalysis__MinuteUtc} ${s.WeeklyAnalysis__HourUtc} * * ${dow}`;
}

/** The first weekly occurrence strictly after `from` (the local host's timer). */
export function nextWeeklyRun(s: WeeklySettings, from: Date): Date {
  const dow = WEEK_DAYS.indexOf(s.WeeklyAnalysis__DayOfWeekUtc);
  const next = new Date(
    Date.UTC(
      from.getUTCFullYear(),
      from.getUTCMonth(),
      from.getUTCDate(),
      s.WeeklyAnalysis__HourUtc,
      s.WeeklyAnalysis__MinuteUtc,
    ),
  );
  next.setUTCDate(next.getUTCDate() + ((dow - next.getUTCDay() + 7) % 7));
  if (next.getTime() <= from.getTime()) next.setUTCDate(next.getUTCDate() + 7);
  return next;
}
