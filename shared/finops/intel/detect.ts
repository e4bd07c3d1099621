/**
 * Anomaly detection on one daily cost series (docs/anomalies.md). Pure: the same series and
 * settings always give the same anomalies, and each day is judged on a bounded window before it,
 * so a later run that sees the same days finds the same anomalies on the same dates.
 */
import { fitBaseline, logExpectAt, median, WINDOW_DAYS } from './baseline.js';

export type AnomalyKind = 'spike' | 'drop' | 'newCost' | 'removedCost' | 'steadyGrowth';
export type Severity = 'low' | 'medium' | 'high';

export interface DetectSettings {
  /** Robust z-score a day must reach to be a spike or drop (default 4). */
  sensitivity: number;
  /** Smallest |actual − expected| per day, in the series' currency, worth reporting. */
  minImpact: number;
}

export const DEFAULT_DETECT: DetectSettings = { sensitivity: 4, minImpact: 10 };

export interface DetectedAnomaly {
  kind: AnomalyKind;
  /** Index of the day in the series. */
  index: number;
  expected: number;
  actual: number;
  impact: number;
  severity: Severity;
}

/** Below this a day's cost counts as none (stored costs have 4 decimals). */
const ZERO = 0.01;
/** Days of no cost before a cost counts as new, and of cost before its end counts as removal. */
const QUIET_DAYS = 14;
/** A spike or drop needs this many days with cost in the window (younger series: newCost only). */
const MATURE_DAYS = Math.round(WINDOW_DAYS * 0.75);
/** A new cost's first days may be partial: the report is on the first of them that matters. */
const NEW_COST_GRACE_DAYS = 3;
/** Steady growth: each of the last three weeks above the one before by this much, in total more. */
const GROWTH_WEEKLY = 0.05;
const GROWTH_TOTAL = 0.25;

/** ln(1.2): a spike is at least 20 % above its expectation, a drop at least 1/1.2 below. */
const MIN_RELATIVE_LOG = Math.log(1.2);

const zero = (v: number) => Math.abs(v) < ZERO;
const round4 = (n: number) => Math.round(n * 10000) / 10000;

export function severityOf(impact: number, expected: number, minImpact: number): Severity {
  const abs = Math.abs(impact);
  const rel = expected > 0 ? abs / expected : Number.POSITIVE_INFINITY;
  if (abs >= 10 * minImpact || rel >= 1) return 'high';
  if (abs >= 3 * minImpact || rel >= 0.5) return 'medium';
  return 'low';
}

function make(kind: AnomalyKind, index: number, expected: number, actual: number, minImpact: number) {
  const impact = actual - expected;
  return {
    kind,
    index,
    expected: round4(expected),
    actual: round4(actual),
    impact: round4(impact),
    severity: severityOf(impact, expected, minImpact),
  } satisfies DetectedAnomaly;
}

/** +1 spike, −1 drop, 0 neither, with the expectation it was judged against. */
function outlier(x: number[], t: number, s: DetectSettings) {
  if (t < WINDOW_DAYS) return { dir: 0, expected: 0 };
  const start = t - WINDOW_DAYS;
  let withCost = 0;
  for (let i = start; i < t; i++) if (!zero(x[i]!)) withCost++;
  if (withCost < MATURE_DAYS) return { dir: 0, expected: 0 };
  const b = fitBaseline(x, start, WINDOW_DAYS);
  const logExpected = logExpectAt(b, t);
  const expected = Math.exp(logExpected);
  if (expected <= ZERO) return { dir: 0, expected };
  // Floors: a perfectly flat series would otherwise flag cent-level changes, and a change smaller
  // than MIN_RELATIVE is not worth anyone's attention however regular the series.
  const scale = Math.max(b.sigma, 0.02);
  const dev = Math.log(Math.max(x[t]!, expected * 1e-3)) - logExpected;
  // A day must stand out from the level of the three days just before it whenever they already
  // stray its way (a step or growth under way, which steadyGrowth or an earlier onset reports): a
  // spike on top of a new level is still one, the early days of growth are not spikes. Taken
  // whatever the size of that stray: a threshold on it let a ramp through on the day it first
  // crossed the line while the days before it had not yet crossed theirs.
  const before: number[] = [];
  for (let i = t - 3; i < t; i++) before.push(Math.log(Math.max(x[i]!, expected * 1e-3)) - logExpectAt(b, i));
  const shift = median(before);
  const shifted = Math.sign(shift) === Math.sign(dev);
  const d = shifted ? dev - shift : dev;
  const base = shifted ? expected * Math.exp(shift) : expected;
  const diff = x[t]! - base;
  if (dev > 0 && d / scale >= s.sensitivity && d >= MIN_RELATIVE_LOG && diff >= s.minImpact)
    return { dir: 1, expected: base };
  // A drop is scored on its relative distance in cost (e^d − 1), not in log cost: day-to-day noise
  // that is symmetric in cost (a day's cost is a sum of many charges) has a longer low tail in log
  // terms (−30 % is ln 0.7 = −0.36, +30 % only +0.26), so a log score called such dips drops three
  // times as often as it called the matching highs spikes. Each side now takes the stricter scale:
  // log for spikes (ln(1 + r) < r), cost for drops (|r| < |ln(1 + r)|).
  if (dev < 0 && Math.expm1(d) / scale <= -s.sensitivity && d <= -MIN_RELATIVE_LOG && -diff >= s.minImpact)
    return { dir: -1, expected: base };
  return { dir: 0, expected: base };
}

/**
 * Weekly levels of the four weeks ending at t; growth when each rises and the whole rises enough.
 * A week's level is its mean without its highest and lowest day: a spike in the last week would
 * otherwise look like growth, and a plain median is too noisy. Every week holds each weekday once,
 * so the levels compare.
 */
function trimmedMean(week: number[]): number {
  const s = [...week].sort((a, b) => a - b).slice(1, -1);
  return s.reduce((a, b) => a + b, 0) / s.length;
}

function growth(x: number[], t: number, s: DetectSettings) {
  if (t < 27) return undefined;
  const weeks = [0, 1, 2, 3].map((w) => trimmedMean(x.slice(t - 27 + w * 7, t - 27 + w * 7 + 7)));
  if (weeks[0]! <= ZERO) return undefined;
  for (let w = 1; w < 4; w++) if (weeks[w]! < weeks[w - 1]! * (1 + GROWTH_WEEKLY)) return undefined;
  if (weeks[3]! < weeks[0]! * (1 + GROWTH_TOTAL)) return undefined;
  const expected = weeks[0]!;
  const actual = weeks[3]!;
  if (actual - expected < s.minImpact) return undefined;
  return { expected, actual };
}

/**
 * Every anomaly of a daily series (index 0 = first day, consecutive days, missing days as 0).
 * Spikes, drops and growth are reported at their onset only (the day the condition starts to
 * hold), so a two-day spike or a lasting step is one anomaly, not one per day.
 */
export function detectAnomalies(x: number[], s: DetectSettings = DEFAULT_DETECT): DetectedAnomaly[] {
  const out: DetectedAnomaly[] = [];
  const n = x.length;
  let prevOutlier = 0;
  /** Index of the last day on which the growth condition held. */
  let lastGrowth = Number.NEGATIVE_INFINITY;
  let removedUntilCost = false;
  for (let t = 0; t < n; t++) {
    const v = x[t]!;
    if (removedUntilCost && !zero(v)) removedUntilCost = false;

    // newCost: the start of a run of cost after QUIET_DAYS without any.
    if (!zero(v) && t >= QUIET_DAYS && (t === 0 || zero(x[t - 1]!))) {
      let quiet = true;
      for (let i = t - QUIET_DAYS; i < t; i++) if (!zero(x[i]!)) quiet = false;
      if (quiet) {
        for (let i = t; i < Math.min(n, t + NEW_COST_GRACE_DAYS); i++) {
          if (zero(x[i]!)) break;
          if (x[i]! >= s.minImpact) {
            out.push(make('newCost', i, 0, x[i]!, s.minImpact));
            break;
          }
        }
      }
    }

    // removedCost: two days without cost after QUIET_DAYS with cost; reported on the first.
    if (zero(v) && !removedUntilCost && t >= QUIET_DAYS && t + 1 < n && zero(x[t + 1]!)) {
      let ran = true;
      for (let i = t - QUIET_DAYS; i < t; i++) if (zero(x[i]!)) ran = false;
      if (ran) {
        const expected = median(x.slice(t - 7, t));
        if (expected >= s.minImpact) {
          out.push(make('removedCost', t, expected, v, s.minImpact));
          removedUntilCost = true;
        }
      }
    }

    const o = outlier(x, t, s);
    // A day without cost is a removal (or, on the last day, not yet known to be one), not a drop.
    const isRemoval = zero(v) && (removedUntilCost || t + 1 >= n || zero(x[t + 1]!));
    if (o.dir !== 0 && o.dir !== prevOutlier && !isRemoval) {
      out.push(make(o.dir > 0 ? 'spike' : 'drop', t, o.expected, v, s.minImpact));
    }
    prevOutlier = o.dir;

    const g = growth(x, t, s);
    // One growth per episode: a new one only after four weeks without the condition.
    if (g && t - lastGrowth > 28) out.push(make('steadyGrowth', t, g.expected, g.actual, s.minImpact));
    if (g) lastGrowth = t;
  }
  return out;
}
