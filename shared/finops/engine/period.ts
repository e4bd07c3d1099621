/**
 * Which days an analysis covers. `current`: month-to-date, with history from the first day of the
 * month six months back through today. `previous`: the last full calendar month (UTC), with history
 * from the first day of the month six months before it through that month's last day.
 */
import { type CostPeriod, historyRange, MONTH_TO_DATE, previousMonthPeriod } from '../azure/index.js';

export type MonthSelection = 'current' | 'previous';

export const HISTORY_MONTHS = 6;

export interface AnalysisPeriod {
  monthSelection: MonthSelection;
  /** The cost query period of the month-to-date (or the previous month) figures. */
  cost: CostPeriod;
  /** First and last day of the cost figures, yyyy-MM-dd (inclusive). */
  from: string;
  to: string;
  /** The daily history range, yyyy-MM-dd (inclusive). */
  history: { from: string; to: string };
}

const ymd = (d: Date) => d.toISOString().slice(0, 10);

export function analysisPeriod(monthSelection: MonthSelection, now: Date): AnalysisPeriod {
  if (monthSelection === 'previous') {
    const cost = previousMonthPeriod(now);
    if (cost.kind !== 'Range') throw new Error('previous month period must be a range');
    const end = new Date(`${cost.to}T00:00:00Z`);
    return { monthSelection, cost, from: cost.from, to: cost.to, history: historyRange(end, HISTORY_MONTHS) };
  }
  return {
    monthSelection,
    cost: MONTH_TO_DATE,
    from: ymd(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))),
    to: ymd(now),
    history: historyRange(now, HISTORY_MONTHS),
  };
}

/** `current` / `previous` (any case); anything else is undefined. Missing means current. */
export function parseMonthSelection(value: string | null | undefined): MonthSelection | undefined {
  if (value === null || value === undefined || value.trim() === '') return 'current';
  const v = value.trim().toLowerCase();
  return v === 'current' || v === 'previous' ? v : undefined;
}
