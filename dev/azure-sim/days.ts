/** The simulator's calendar: whole UTC days, numbered from 1970-01-01. */

export const DAY_MS = 86_400_000;

/** Day number (days since 1970-01-01, UTC) of a Date. */
export function dayNumber(d: Date): number {
  return Math.floor(d.getTime() / DAY_MS);
}

export function dayToDate(day: number): Date {
  return new Date(day * DAY_MS);
}

/** yyyyMMdd as a number, as the cost API writes UsageDate. */
export function usageDate(day: number): number {
  const d = dayToDate(day);
  return d.getUTCFullYear() * 10000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
}

/** An ISO timestamp `days` before `now`. */
export function daysBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString();
}
