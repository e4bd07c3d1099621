import { describe, expect, it } from 'vitest';
import { fitBaseline, medianInPlace } from '../../shared/finops/intel/baseline.js';
import { DEFAULT_DETECT, detectAnomalies, severityOf } from '../../shared/finops/intel/detect.js';

/** A seeded series: weekday seasonality (weekends at `weekend`), daily trend and ±noise. */
function series(
  days: number,
  o: { level?: number; weekend?: number; trend?: number; noise?: number; seed?: number } = {},
) {
  let s = o.seed ?? 1;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const x: number[] = [];
  for (let d = 0; d < days; d++) {
    const season = d % 7 >= 5 ? (o.weekend ?? 0.5) : 1;
    const noise = 1 + (o.noise ?? 0.05) * (rand() * 2 - 1);
    x.push(Math.round((o.level ?? 200) * (1 + (o.trend ?? 0)) ** d * season * noise * 100) / 100);
  }
  return x;
}

describe('anomaly detection on a daily cost series', () => {
  it('finds nothing on a clean seasonal, trending, noisy series', () => {
    for (let seed = 1; seed <= 5; seed++) {
      expect(detectAnomalies(series(150, { seed, trend: 0.003, weekend: 0.3 }))).toEqual([]);
    }
  });

  it('reports a one-day spike once, on its day, against the seasonal expectation', () => {
    const x = series(120);
    const clean = x[100]!;
    x[100] = clean * 3;
    const found = detectAnomalies(x);
    expect(found.map((a) => [a.kind, a.index])).toEqual([['spike', 100]]);
    expect(found[0]!.expected).toBeGreaterThan(clean * 0.9);
    expect(found[0]!.expected).toBeLessThan(clean * 1.1);
    expect(found[0]!.impact).toBeCloseTo(found[0]!.actual - found[0]!.expected, 3);
  });

  it('reports a spike on a weekend day, where a weekday level would hide it', () => {
    const x = series(120, { weekend: 0.3 });
    // Day 96 is a weekend day: 2.5× its own level is still below a weekday's cost.
    x[96] = x[96]! * 2.5;
    expect(x[96]!).toBeLessThan(x[94]!);
    expect(detectAnomalies(x).map((a) => [a.kind, a.index])).toEqual([['spike', 96]]);
  });

  it('reports a two-day spike as one anomaly on its first day', () => {
    const x = series(120);
    x[90] = x[90]! * 3;
    x[91] = x[91]! * 3;
    expect(detectAnomalies(x).map((a) => [a.kind, a.index])).toEqual([['spike', 90]]);
  });

  it('reports a one-day drop', () => {
    const x = series(120);
    x[101] = x[101]! * 0.2;
    expect(detectAnomalies(x).map((a) => [a.kind, a.index])).toEqual([['drop', 101]]);
  });

  it('reports a new cost once, on the first day it matters', () => {
    const x = series(120).map((v, i) => (i < 70 ? 0 : v));
    x[70] = 2; // a resource created late in the day: below the minimum impact
    const found = detectAnomalies(x);
    expect(found.map((a) => [a.kind, a.index, a.expected])).toEqual([['newCost', 71, 0]]);
  });

  it('reports a removed cost once, without daily drops after it', () => {
    const x = series(120).map((v, i) => (i >= 80 ? 0 : v));
    const found = detectAnomalies(x);
    expect(found.map((a) => [a.kind, a.index])).toEqual([['removedCost', 80]]);
    expect(found[0]!.actual).toBe(0);
  });

  it('waits for a second day before calling a day without cost a removal', () => {
    const x = series(120);
    x[119] = 0;
    expect(detectAnomalies(x)).toEqual([]);
  });

  it('reports steady growth once per episode', () => {
    const x = series(150).map((v, i) => (i >= 80 ? v * 1.02 ** (i - 80) : v));
    const found = detectAnomalies(x);
    expect(found.map((a) => a.kind)).toEqual(['steadyGrowth']);
    expect(found[0]!.index).toBeGreaterThanOrEqual(80 + 14);
    expect(found[0]!.index).toBeLessThanOrEqual(80 + 42);
  });

  it('ignores anomalies smaller than the minimum impact', () => {
    const x = series(120, { level: 5 });
    x[100] = x[100]! * 3; // +10 on a 5-a-day series
    expect(detectAnomalies(x, { ...DEFAULT_DETECT, minImpact: 20 })).toEqual([]);
    expect(detectAnomalies(x, { ...DEFAULT_DETECT, minImpact: 1 }).map((a) => a.kind)).toEqual(['spike']);
  });

  it('reports fewer anomalies at a higher sensitivity threshold', () => {
    const x = series(120, { noise: 0.1 });
    x[100] = x[100]! * 1.6;
    expect(detectAnomalies(x, { ...DEFAULT_DETECT, sensitivity: 3 }).map((a) => a.index)).toEqual([100]);
    expect(detectAnomalies(x, { ...DEFAULT_DETECT, sensitivity: 20 })).toEqual([]);
  });

  it('grades severity by impact and by the share of the expectation', () => {
    expect(severityOf(15, 1000, 10)).toBe('low');
    expect(severityOf(40, 1000, 10)).toBe('medium');
    expect(severityOf(150, 1000, 10)).toBe('high');
    expect(severityOf(15, 10, 10)).toBe('high');
  });
});

describe('how far a day must stray to be a spike or a drop', () => {
  // A perfectly flat series has no residual noise, so its scale is the 2 % floor and a day's score
  // is its distance divided by 0.02: hand-computable.
  const flat = (days: number) => Array.from({ length: days }, () => 100);
  const strict = { ...DEFAULT_DETECT, sensitivity: 10 };

  it('scores a drop by its relative distance in cost: 81 % of the expectation is no drop at 10, 79 % is', () => {
    // (0.81 − 1) / 0.02 = −9.5, although ln 0.81 / 0.02 = −10.5; (0.79 − 1) / 0.02 = −10.5.
    const x = flat(80);
    x[70] = 81;
    expect(detectAnomalies(x, strict)).toEqual([]);
    x[70] = 79;
    expect(detectAnomalies(x, strict).map((a) => [a.kind, a.index, a.expected, a.actual])).toEqual([
      ['drop', 70, 100, 79],
    ]);
  });

  it('scores a spike by its log distance: 121 % of the expectation is no spike at 10, 123 % is', () => {
    // ln 1.21 / 0.02 = 9.5, although (1.21 − 1) / 0.02 = 10.5; ln 1.23 / 0.02 = 10.35.
    const x = flat(80);
    x[70] = 121;
    expect(detectAnomalies(x, strict)).toEqual([]);
    x[70] = 123;
    expect(detectAnomalies(x, strict).map((a) => [a.kind, a.index, a.expected])).toEqual([
      ['spike', 70, 100],
    ]);
  });

  it('judges a day against the three days before it when they already rose, however little', () => {
    // Three days at +2.5 % (1.2 of the 2 % scale): a day at 122 is 22 % above the eight weeks'
    // expectation but only 19 % above 102.5, under the 20 % a spike needs; 125 is 22 % above it.
    const x = flat(80);
    x[70] = 102.5;
    x[71] = 102.5;
    x[72] = 102.5;
    x[73] = 122;
    expect(detectAnomalies(x)).toEqual([]);
    x[73] = 125;
    expect(detectAnomalies(x).map((a) => [a.kind, a.index, a.expected, a.impact])).toEqual([
      ['spike', 73, 102.5, 22.5],
    ]);
  });

  it('takes the noise scale as 1.2 × the biweight deviation of the residuals, which a tenfold day leaves alone', () => {
    // Weeks alternately at 100·e^0.05 and 100·e^−0.05: the week levels absorb nothing of the
    // weekdays, the trend is flat and every residual is ±0.05. The biweight of ±a (all at 1/9 of
    // the 9-MAD cut-off) is a × (80/81) / (76/81) = a × 80/76.
    const x = Array.from({ length: 56 }, (_, i) => 100 * Math.exp(Math.floor(i / 7) % 2 ? -0.05 : 0.05));
    expect(fitBaseline(x, 0, 56).sigma).toBeCloseTo(1.2 * 0.05 * (80 / 76), 10);
    x[30] = x[30]! * 10;
    expect(fitBaseline(x, 0, 56).sigma).toBeGreaterThan(1.2 * 0.05 * (80 / 76) * 0.95);
    expect(fitBaseline(x, 0, 56).sigma).toBeLessThan(1.2 * 0.05 * (80 / 76) * 1.05);
  });
});

describe('the median used for the trend', () => {
  const sortedMedian = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };

  it('equals the median of the sorted values for odd and even lengths, ties and runs of equal values', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const cases: number[][] = [[], [3], [2, 1], [5, 5, 5, 5], [1, 2, 2, 2, 3, 9], [-1, 4, -7, 0.5, 0.5]];
    for (const n of [3, 10, 55, 1540, 1541]) {
      cases.push(Array.from({ length: n }, () => rnd() * 4 - 2));
      cases.push(Array.from({ length: n }, () => Math.round(rnd() * 3)));
      cases.push(Array.from({ length: n }, (_, i) => i));
      cases.push(Array.from({ length: n }, (_, i) => n - i));
    }
    for (const values of cases) {
      const expected = values.length ? sortedMedian(values) : 0;
      expect(medianInPlace(Float64Array.from(values)), `n=${values.length}`).toBe(expected);
    }
  });
});
