import { describe, expect, it } from 'vitest';
import { nextOccurrence } from '../../shared/app/ncrontab.js';
import { queueTrigger, weeklyTimerTrigger } from '../../shared/app/triggers.js';
import { weeklyNcrontab } from '../../shared/app/weekly-schedule.js';
import { loadConfig } from '../../shared/config/index.js';

const settings = (s: Record<string, string>) =>
  loadConfig({ WEBAPP_ENVIRONMENT: 'Development', ...s }).finops;

describe('weekly analysis schedule', () => {
  it('defaults to Sunday 02:00 UTC', () => {
    const f = settings({});
    expect(weeklyNcrontab(f)).toBe('0 0 2 * * 0');
  });

  it('is built from the day, hour and minute settings (day names in any case)', () => {
    const f = settings({
      WeeklyAnalysis__DayOfWeekUtc: 'wednesday',
      WeeklyAnalysis__HourUtc: '23',
      WeeklyAnalysis__MinuteUtc: '45',
    });
    expect(f.WeeklyAnalysis__DayOfWeekUtc).toBe('Wednesday');
    expect(weeklyNcrontab(f)).toBe('0 45 23 * * 3');
    expect(weeklyNcrontab(settings({ WeeklyAnalysis__DayOfWeekUtc: 'Saturday' }))).toBe('0 0 2 * * 6');
  });

  it('refuses an unknown day, an hour above 23 and a minute above 59', () => {
    expect(() => settings({ WeeklyAnalysis__DayOfWeekUtc: 'Funday' })).toThrow(
      /WeeklyAnalysis__DayOfWeekUtc/,
    );
    expect(() => settings({ WeeklyAnalysis__HourUtc: '24' })).toThrow(/WeeklyAnalysis__HourUtc/);
    expect(() => settings({ WeeklyAnalysis__MinuteUtc: '60' })).toThrow(/WeeklyAnalysis__MinuteUtc/);
  });

  it('registers no timer when WeeklyAnalysis__Enabled=false', () => {
    const off = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', WeeklyAnalysis__Enabled: 'false' });
    expect(weeklyTimerTrigger(off)).toBeUndefined();
    const on = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', WeeklyAnalysis__MinuteUtc: '30' });
    expect(weeklyTimerTrigger(on)).toEqual({ name: 'weekly-analysis', schedule: '0 30 2 * * 0' });
    expect(queueTrigger(on).queueName).toBe(on.platform.AnalysisQueue__Name);
  });

  describe('next run (the local host fires the timer at the NCRONTAB Azure is given)', () => {
    const nextWeeklyRun = (f: ReturnType<typeof settings>, from: Date) =>
      nextOccurrence(weeklyNcrontab(f), from);
    const sunday2 = settings({});
    it('is later the same day when the time has not come yet', () => {
      // 2026-11-22 is a Sunday.
      expect(nextWeeklyRun(sunday2, new Date('2026-11-22T01:59:59Z')).toISOString()).toBe(
        '2026-11-22T02:00:00.000Z',
      );
    });
    it('is a week later when it is exactly the scheduled time or after it', () => {
      expect(nextWeeklyRun(sunday2, new Date('2026-11-22T02:00:00Z')).toISOString()).toBe(
        '2026-11-29T02:00:00.000Z',
      );
      expect(nextWeeklyRun(sunday2, new Date('2026-11-22T02:00:01Z')).toISOString()).toBe(
        '2026-11-29T02:00:00.000Z',
      );
    });
    it('finds the next matching weekday across a month and a year end', () => {
      const fri = settings({ WeeklyAnalysis__DayOfWeekUtc: 'Friday', WeeklyAnalysis__HourUtc: '6' });
      expect(nextWeeklyRun(fri, new Date('2026-11-28T12:00:00Z')).toISOString()).toBe(
        '2026-12-04T06:00:00.000Z',
      );
      expect(nextWeeklyRun(fri, new Date('2026-12-31T12:00:00Z')).toISOString()).toBe(
        '2027-01-01T06:00:00.000Z',
      );
    });
    it('always lands on the configured weekday, hour and minute, within seven days', () => {
      const s = settings({
        WeeklyAnalysis__DayOfWeekUtc: 'Tuesday',
        WeeklyAnalysis__HourUtc: '13',
        WeeklyAnalysis__MinuteUtc: '7',
      });
      for (let h = 0; h < 24 * 14; h += 5) {
        const from = new Date(Date.UTC(2026, 2, 1, h, 17));
        const next = nextWeeklyRun(s, from);
        expect(next.getUTCDay()).toBe(2);
        expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([13, 7, 0]);
        expect(next.getTime()).toBeGreaterThan(from.getTime());
        expect(next.getTime() - from.getTime()).toBeLessThanOrEqual(7 * 86_400_000);
      }
    });
  });
});
