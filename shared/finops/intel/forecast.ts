/**
 * Month-end forecast of a daily cost series: the days of the month already known are summed, the
 * rest come from the robust seasonal baseline (weekday factors, a damped trend) fitted on the last
 * eight weeks, with a 90 % interval from the baseline's noise. The naive run rate (month-to-date ÷
 * days elapsed × days in month) is kept for comparison (bench/anomalies.ts).
 */
import { fitBaseline, WINDOW_DAYS } from './baseline.js';

export interface MonthForecast {
  actualToDate: number;
  forecast: number;
  low: number;
  high: number;
  method: 'seasonal-baseline' | 'run-rate';
}

/** z of a two-sided 90 % interval. */
const Z90 = 1.645;
/** The trend is trusted for about two weeks ahead, then flattened (damped), as cost trends rarely hold. */
const TREND_HORIZON_DAYS = 14;

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * @param x the daily series, index 0 = first day with data, consecutive days
 * @param monthStart index of the first day of the month (may be negative or past the data)
 * @param monthDays days in the month
 * @param lastKnown index of the last complete day (≥ monthStart − 1)
 */
export function forecastMonth(
  x: number[],
  monthStart: number,
  monthDays: number,
  lastKnown: number,
): MonthForecast {
  let actualToDate = 0;
  for (let i = Math.max(0, monthStart); i <= lastKnown && i < monthStart + monthDays; i++)
    actualToDate += x[i] ?? 0;
  const elapsed = Math.max(0, Math.min(monthDays, lastKnown - monthStart + 1));
  const remaining = monthDays - elapsed;
  if (remaining === 0) {
    const a = round2(actualToDate);
    return { actualToDate: a, forecast: a, low: a, high: a, method: 'seasonal-baseline' };
  }
  const available = lastKnown + 1;
  if (available < 14) {
    const rate = elapsed > 0 ? actualToDate / elapsed : 0;
    const f = actualToDate + rate * remaining;
    return {
      actualToDate: round2(actualToDate),
      forecast: round2(f),
      low: round2(actualToDate),
      high: round2(f + (f - actualToDate) * 0.5),
      method: 'run-rate',
    };
  }
  // Whole weeks, so that every weekday weighs the same in the level and the trend.
  const length = Math.min(WINDOW_DAYS, Math.floor(available / 7) * 7);
  const b = fitBaseline(x, available - length, length);
  // exp of a log-level is the median day; the mean of a log-normal day is exp(σ²/2) above it.
  const mean = (b.sigma * b.sigma) / 2;
  let rest = 0;
  for (let k = 1; k <= remaining; k++) {
    const t = lastKnown + k;
    const log = b.intercept + b.slope * (lastKnown + Math.min(k, TREND_HORIZON_DAYS)) + b.offsets[t % 7]!;
    rest += Math.exp(log + mean);
  }
  // Daily noise adds up as √n; the level's own uncertainty (σ/√window per day) adds up linearly.
  const perDay = rest / remaining;
  const spread = Z90 * b.sigma * perDay * (Math.sqrt(remaining) + remaining / Math.sqrt(length));
  const forecast = actualToDate + rest;
  return {
    actualToDate: round2(actualToDate),
    forecast: round2(forecast),
    low: round2(Math.max(actualToDate, forecast - spread)),
    high: round2(forecast + spread),
    method: 'seasonal-baseline',
  };
}

/** The naive run rate, for comparison. */
export function runRateForecast(
  x: number[],
  monthStart: number,
  monthDays: number,
  lastKnown: number,
): number {
  let sum = 0;
  for (let i = monthStart; i <= lastKnown; i++) sum += x[i] ?? 0;
  const elapsed = lastKnown - monthStart + 1;
  return elapsed > 0 ? (sum / elapsed) * monthDays : 0;
}
