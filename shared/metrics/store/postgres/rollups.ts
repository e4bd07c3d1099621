/**
 * A batch's samples merged per (series, bucket) on the host, before they reach PostgreSQL. A
 * batch of 5,000 pod samples is 25 one-minute cycles of 200 containers: it touches about 1,200
 * 5-minute buckets and 400 hourly ones, so the rollup upserts receive those rows ready-made
 * instead of PostgreSQL grouping the 5,000 samples twice (hash aggregates over the statement's
 * input, which cost as much as the raw insert). A bucket is merged as the stored rollup merges
 * it (rollupMerge): sums and counts of non-null values, the greatest, the newest, all and any.
 */
import { LEVEL_MS } from '../read-plan.js';
import { unnestSelect } from './array-params.js';
import { type Level, rollupCasts, rollupColumnNames, type SampleKind, tableName } from './tables.js';

type RollupLevel = Exclude<Level, 'raw'>;

/** The samples of one kind in column arrays: ts (epoch ms), series ids, then each column's values. */
export interface SampleArrays {
  ts: number[];
  ids: number[];
  /** One array per kind.columns entry, values as bound to the raw insert (numbers, booleans, null, bigint text). */
  values: unknown[][];
}

const toNumber = (v: unknown, real: boolean): number => {
  const n = typeof v === 'number' ? v : Number(v);
  // A real column stores the float4 nearest the value: its sum is of those.
  return real ? Math.fround(n) : n;
};

/**
 * The rollup rows of `level` for the samples: column arrays in rollupColumnNames(kind) order
 * (bucket and last_ts as epoch milliseconds), one row per (series, bucket).
 */
export function rollupArrays(kind: SampleKind, level: RollupLevel, s: SampleArrays): unknown[][] {
  // Buckets start on whole multiples of the width since the epoch, as the rollups' date_bin from
  // 2000-01-01 UTC (itself a whole number of hours after the epoch) puts them.
  const width = LEVEL_MS[level];
  const cols = kind.columns;
  // Per group: [bucketMs, seriesId, n, lastTs, ...one or two slots per column], by bucket then
  // series (a batch spans a few buckets: numeric keys, no key text per sample).
  const byBucket = new Map<number, Map<number, unknown[]>>();
  let size = 0;
  let lastBucket = Number.NaN;
  let groups: Map<number, unknown[]> | undefined;
  for (let i = 0; i < s.ts.length; i++) {
    const t = s.ts[i]!;
    const bucket = t - (((t % width) + width) % width);
    if (bucket !== lastBucket) {
      groups = byBucket.get(bucket);
      if (!groups) {
        groups = new Map();
        byBucket.set(bucket, groups);
      }
      lastBucket = bucket;
    }
    const id = s.ids[i]!;
    let g = groups!.get(id);
    const newest = !g || t >= (g[3] as number);
    if (!g) {
      g = [bucket, id, 0, t];
      for (const c of cols) {
        if (c.rollup === 'avg') g.push(null, 0);
        else g.push(null);
      }
      groups!.set(id, g);
      size++;
    }
    g[2] = (g[2] as number) + 1;
    if (newest) g[3] = t;
    let slot = 4;
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c]!;
      const v = s.values[c]![i];
      switch (col.rollup) {
        case 'avg':
          if (v !== null && v !== undefined) {
            g[slot] = ((g[slot] as number | null) ?? 0) + toNumber(v, col.type === 'real');
            g[slot + 1] = (g[slot + 1] as number) + 1;
          }
          slot += 2;
          continue;
        case 'max':
          if (v !== null && v !== undefined && (g[slot] === null || (v as number) > (g[slot] as number)))
            g[slot] = v;
          break;
        case 'last':
          if (newest) g[slot] = v ?? null;
          break;
        case 'all':
          if (v !== null && v !== undefined) g[slot] = g[slot] === null ? v : (g[slot] as boolean) && v;
          break;
        case 'any':
          if (v !== null && v !== undefined) g[slot] = g[slot] === null ? v : (g[slot] as boolean) || v;
          break;
        default:
          throw new Error(`unknown rollup ${String(col.rollup)}`);
      }
      slot++;
    }
  }
  const out: unknown[][] = rollupColumnNames(kind).map(() => new Array(size));
  let r = 0;
  for (const groups of byBucket.values()) {
    for (const g of groups.values()) {
      for (let c = 0; c < g.length; c++) out[c]![r] = g[c];
      r++;
    }
  }
  return out;
}

/**
 * The upsert of ready-made rollup rows (parameters from `first`, in rollupColumnNames order),
 * merged into a stored bucket by `merge` (rollupMerge's SET list).
 */
export function rollupUpsertSql(
  kind: SampleKind,
  level: RollupLevel,
  first: number,
  merge: string[],
): string {
  const names = rollupColumnNames(kind);
  const casts = rollupCasts(kind);
  return (
    `INSERT INTO metrics.${tableName(kind, level)} AS r (${names.join(', ')}) ` +
    `${unnestSelect(casts, first)} ` +
    `ON CONFLICT (series_id, bucket) DO UPDATE SET ${merge.join(', ')}`
  );
}
