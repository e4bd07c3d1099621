/**
 * A labelled set of synthetic daily cost series for the anomaly bench: weekday seasonality, trend
 * and multiplicative noise, with injected spikes, drops, new and removed costs and steady growth.
 * Seeded, so every run scores the same set.
 */
import type { AnomalyKind } from '../shared/finops/intel/detect.js';

export interface Label {
  kind: AnomalyKind;
  /** First day of the injected event. */
  day: number;
}

export interface LabelledSeries {
  x: number[];
  labels: Label[];
  /** Days on which nothing was injected and no injected event is still under way (false alarms). */
  cleanDays: boolean[];
  seasonal: boolean;
  /** The clean shape the series was drawn from (to explain a false report). */
  shape: SeriesShape;
}

export function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gauss(r: () => number) {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

export interface SeriesShape {
  days: number;
  level: number;
  /** Daily relative trend, e.g. 0.002 for +0.2 %/day. */
  trend: number;
  /** Relative noise (sd of the multiplicative factor). */
  noise: number;
  /** Weekend factor (1 = no seasonality). */
  weekend: number;
  /**
   * How a day's noise applies: `additive` (the default), a factor 1 + noise × N(0, 1), symmetric in
   * cost, as a sum of many charges is; `lognormal`, exp(noise × N(0, 1)), symmetric in log cost.
   */
  noiseModel?: 'additive' | 'lognormal';
}

export function cleanSeries(shape: SeriesShape, r: () => number): number[] {
  const x: number[] = [];
  const offset = Math.floor(r() * 7);
  for (let d = 0; d < shape.days; d++) {
    const wd = (d + offset) % 7;
    const season = wd >= 5 ? shape.weekend : 1;
    const g = gauss(r);
    const factor = shape.noiseModel === 'lognormal' ? Math.exp(shape.noise * g) : 1 + shape.noise * g;
    const v = shape.level * (1 + shape.trend) ** d * season * factor;
    x.push(Math.max(0, Math.round(v * 10000) / 10000));
  }
  return x;
}

const KINDS: Array<AnomalyKind | 'none'> = [
  'none',
  'spike',
  'drop',
  'newCost',
  'removedCost',
  'steadyGrowth',
];

/** n series per kind (and n clean ones), `days` days each. */
export function labelledSet(
  n: number,
  days = 120,
  seed = 13,
  noiseModel: SeriesShape['noiseModel'] = 'additive',
): LabelledSeries[] {
  const r = rng(seed);
  const out: LabelledSeries[] = [];
  for (const kind of KINDS) {
    for (let i = 0; i < n; i++) {
      const seasonal = i % 2 === 0;
      const shape: SeriesShape = {
        days,
        level: 50 + r() * 950,
        trend: (r() - 0.5) * 0.004,
        noise: 0.03 + r() * 0.07,
        weekend: seasonal ? 0.4 + r() * 0.3 : 1,
        noiseModel,
      };
      const x = cleanSeries(shape, r);
      const clean = x.map(() => true);
      const labels: Label[] = [];
      // Growth needs weeks to show: it starts early enough to be seen within the series.
      const day = 60 + Math.floor(r() * (days - (kind === 'steadyGrowth' ? 105 : 75)));
      if (kind === 'spike') {
        const len = 1 + Math.floor(r() * 2);
        const k = 2 + r() * 2;
        for (let d = day; d < day + len; d++) x[d] = x[d]! * k;
        labels.push({ kind, day });
        for (let d = day; d < day + len; d++) clean[d] = false;
      } else if (kind === 'drop') {
        x[day] = x[day]! * (0.1 + r() * 0.3);
        labels.push({ kind, day });
        clean[day] = false;
      } else if (kind === 'newCost') {
        for (let d = 0; d < day; d++) x[d] = 0;
        labels.push({ kind, day });
        for (let d = 0; d < day + 1; d++) clean[d] = false;
      } else if (kind === 'removedCost') {
        for (let d = day; d < days; d++) x[d] = 0;
        labels.push({ kind, day });
        for (let d = day; d < days; d++) clean[d] = false;
      } else if (kind === 'steadyGrowth') {
        const rate = 0.015 + r() * 0.02;
        for (let d = day; d < days; d++) x[d] = x[d]! * (1 + rate) ** (d - day);
        labels.push({ kind, day });
        for (let d = day; d < days; d++) clean[d] = false;
      }
      out.push({ x, labels, cleanDays: clean, seasonal, shape });
    }
  }
  return out;
}
