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
