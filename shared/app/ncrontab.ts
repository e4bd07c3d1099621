/**
 * The Functions timer's six-field NCRONTAB (second minute hour day month day-of-week, UTC),
 * evaluated with cron-parser: the local host fires timers at the times Azure would, and a setting
 * that Azure would refuse at startup is refused here with the setting's name instead.
 */
import { CronExpressionParser } from 'cron-parser';

const SIX_FIELDS = /^\S+( \S+){5}$/;

/** Why an expression is not a six-field NCRONTAB, or undefined when it is one. */
export function ncrontabError(expression: string): string | undefined {
  if (!SIX_FIELDS.test(expression)) return 'must be an NCRONTAB expression of six fields';
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC' });
    return undefined;
  } catch (e) {
    return `is not a valid NCRONTAB expression (${(e as Error).message})`;
  }
}

/** The first occurrence strictly after `from`. */
export function nextOccurrence(expression: string, from: Date): Date {
  return CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: from }).next().toDate();
}
