import { describe, expect, it } from 'vitest';
import { forecastBudgetStatus } from '../../shared/finops/intel/budget-status.js';
import { forecastMonth, runRateForecast } from '../../shared/finops/intel/forecast.js';

/** Weekdays 100, weekends 40, no noise: the month's total is known exactly. */
const seasonal = (days: number) => Array.from({ length: days }, (_, d) => (d % 7 >= 5 ? 40 : 100));

describe('month-end forecast', () => {
  it('forecasts a noiseless seasonal month exactly, where the run rate is off', () => {
    const x = seasonal(63 + 30);
    // The month starts on day 63 (weekday index 0) and lasts 30 days; forecast on day 3 (Mon-Wed known).
    const actual = x.slice(63, 93).reduce((a, b) => a + b, 0);
    const f = forecastMonth(x, 63, 30, 65);
    expect(f.method).toBe('seasonal-baseline');
    expect(f.actualToDate).toBe(300);
    expect(f.forecast).toBeCloseTo(actual, 1);
    expect(runRateForecast(x, 63, 30, 65)).toBe(3000);
    expect(actual).toBe(2520);
  });

  it('gives an interval around the forecast that never goes below the actual to date', () => {
    const x = seasonal(80).map((v, i) => v * (1 + 0.08 * Math.sin(i * 2.1)));
    const f = forecastMonth(x, 63, 31, 70);
    expect(f.low).toBeLessThan(f.forecast);
    expect(f.high).toBeGreaterThan(f.forecast);
    expect(f.low).toBeGreaterThanOrEqual(f.actualToDate);
  });

  it('falls back to the run rate with under two weeks of history', () => {
    const x = [10, 10, 10, 10, 10];
    expect(forecastMonth(x, 0, 30, 4)).toMatchObject({ method: 'run-rate', actualToDate: 50, forecast: 300 });
  });

  it('answers the actual total once the month is complete', () => {
    const x = seasonal(100);
    const f = forecastMonth(x, 63, 30, 92);
    expect(f).toMatchObject({ actualToDate: 2520, forecast: 2520, low: 2520, high: 2520 });
  });
});

describe('budget status of a forecast', () => {
  it.each([
    [100, 500, null, 'noBudget'],
    [100, 500, 0, 'noBudget'],
    [100, 500, 1000, 'onTrack'],
    [100, 799.99, 1000, 'onTrack'],
    [100, 800, 1000, 'atRisk'],
    [100, 1000, 1000, 'overBudget'],
    [1000, 900, 1000, 'overBudget'],
  ] as const)('actual %d, forecast %d, budget %s → %s', (actual, forecast, budget, status) => {
    expect(forecastBudgetStatus(actual, forecast, budget)).toBe(status);
  });
});
