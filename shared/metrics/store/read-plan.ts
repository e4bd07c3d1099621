/**
 * How a sample read answers a window: which stored level it reads (raw samples, 5-minute or hourly
 * rollups) and the step its points are spaced at. The web client draws each series (a container, a
 * node, a PVC) as a line over the window, so an answer needs a hundred or so points per series
 * whatever the window's length, not every sample in it: a 7-day window of raw samples would be
 * 20,160 points per container where a chart is at most a few hundred pixels wide.
 *
 * The rule, the same in every engine:
 *  - a series gets at most `maxPoints` points (Metrics__MaxPointsPerSeries); when the answer's
 *    series times that would pass `maxRows` (Metrics__MaxRows), each series gets fewer, so a
 *    cluster-wide read answers every series over the whole window at a coarser step instead of the
 *    newest rows only;
 *  - the step is the window over those points, rounded up to a whole width of STEPS;
 *  - steps up to RAW_STEP_MS read raw samples (at the agent's 30-second cycle they are all there
 *    is; a series sampled faster keeps its latest sample of each step), shorter than an hour the
 *    5-minute rollups, an hour and longer the hourly ones; a step wider than its level's bucket
 *    averages whole buckets into it.
 */
import type { Resolution } from './contract.js';

/** A stored level: raw samples or one of the rollups. */
export type StoredLevel = 'raw' | '5m' | '1h';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

/** The agent's collection cycle: windows whose step is at most this are answered from raw samples. */
export const RAW_STEP_MS = 30 * S;

/** Bucket width of each rollup level. */
export const LEVEL_MS: Record<Exclude<StoredLevel, 'raw'>, number> = { '5m': 5 * M, '1h': H };

/**
 * Steps a window may be cut into. Every one from 5 minutes on is a whole number of 5-minute
 * buckets, every one from an hour on a whole number of hours, so a step averages whole buckets.
 * Past a day, whole days.
 */
const STEPS = [
  S,
  2 * S,
  5 * S,
  10 * S,
  15 * S,
  30 * S,
  M,
  2 * M,
  5 * M,
  10 * M,
  15 * M,
  30 * M,
  H,
  2 * H,
  3 * H,
  6 * H,
  12 * H,
  D,
];

/**
 * The default points per series (Metrics__MaxPointsPerSeries). At 100 an hour is 5-minute steps, a
 * day 15-minute ones and a week 2-hour ones: a line a chart a few hundred pixels wide draws whole,
 * and a list costs its rows (every one read, merged, written as JSON and compressed, while ten
 * dashboards wait on two cores). A series' newest row carries its latest sample's time (the node
 * table hides a node whose newest row is 10 minutes old), so a wide step hides nothing.
 */
export const DEFAULT_MAX_POINTS = 100;
/** Fewest points per series, however many series an answer holds. */
export const MIN_POINTS = 3;

export interface ReadPlan {
  level: StoredLevel;
  /** Width of a point: the raw level keeps a series' latest sample per step, rollups average into it. */
  stepMs: number;
  /** The X-Resolution header: `raw`, or the step (`5m`, `10m`, `1h`, `2h`, `1d`…). */
  resolution: Resolution;
  /** The most points a series can get (at most maxPoints). */
  points: number;
}

export interface PlanOptions {
  /** Points per series at most (Metrics__MaxPointsPerSeries). */
  maxPoints?: number | undefined;
  /** Series the answer holds (known to the engine before it reads samples), with maxRows. */
  series?: number | undefined;
  maxRows?: number | undefined;
  /** A level chosen by the caller instead of from the window (tests, retention checks). */
  level?: StoredLevel | undefined;
}

/** A step's width as the X-Resolution header writes it: 30s, 5m, 2h, 1d. */
export function stepLabel(ms: number): string {
  if (ms % D === 0) return `${ms / D}d`;
  if (ms % H === 0) return `${ms / H}h`;
  if (ms % M === 0) return `${ms / M}m`;
  return `${Math.ceil(ms / S)}s`;
}

function roundUp(ms: number): number {
  for (const step of STEPS) if (step >= ms) return step;
  return Math.ceil(ms / D) * D;
}

/**
 * The plan of a read of [from, to). A series has at most `points` points: with the step at least
 * window / (points - 2), the buckets starting in [start of the bucket holding `from`, to) are at
 * most window / step + 2.
 */
export function planRead(from: Date, to: Date, options: PlanOptions = {}): ReadPlan {
  let points = options.maxPoints ?? DEFAULT_MAX_POINTS;
  if (options.series && options.maxRows)
    points = Math.min(points, Math.floor(options.maxRows / options.series));
  points = Math.max(points, MIN_POINTS);
  const windowMs = Math.max(to.getTime() - from.getTime(), 1);
  const per = windowMs / (points - 2);
  const least = options.level && options.level !== 'raw' ? LEVEL_MS[options.level] : 0;
  const stepMs = roundUp(Math.max(per, least, options.level || per <= RAW_STEP_MS ? 0 : LEVEL_MS['5m']));
  const level: StoredLevel = options.level ?? (per <= RAW_STEP_MS ? 'raw' : stepMs >= H ? '1h' : '5m');
  return { level, stepMs, resolution: level === 'raw' ? 'raw' : stepLabel(stepMs), points };
}

/**
 * Start of the step holding `t`, steps counted from 1970-01-01 UTC (as ClickHouse's
 * toStartOfInterval counts; every step up to a day also starts where the rollups' buckets do).
 */
export function stepStart(t: Date, stepMs: number): Date {
  return new Date(Math.floor(t.getTime() / stepMs) * stepMs);
}
