/**
 * The SQL of the PostgreSQL store's sample reads, as pure functions (the bench runs EXPLAIN on the
 * same text). A read is two statements:
 *  1. the series in scope (a few to a few thousand label-set rows, found by the series tables'
 *     cluster / namespace / lastSeenAt indexes), whose names are sent once per series;
 *  2. their samples in the window: timestamp, series id and the numbers only, from the one level
 *     the plan picked, by the (series_id, ts) index of the window's partitions, sent as one JSON
 *     text (see samplesSql).
 * Joining the names to every sample in SQL sent the same strings tens of thousands of times.
 */
import type { ReadPlan } from '../read-plan.js';
import { stepStart } from '../read-plan.js';
import { readColumn, type SampleKind, tableName } from './tables.js';

export interface Statement {
  text: string;
  params: unknown[];
}

/** Conditions on the series alias `s` for the caller's scope and the read's filters. */
export interface SeriesFilter {
  clusters?: string[] | undefined;
  clusterName?: string | undefined;
  /** Exact matches on other series columns (namespace, nodeName). */
  equal?: Array<[column: string, value: string | undefined]>;
  /** Series seen since: older ones have no samples in the window. */
  seenSince: Date;
}

export function seriesSql(kind: SampleKind, columns: string[], f: SeriesFilter): Statement {
  const params: unknown[] = [f.seenSince.toISOString()];
  const where = [`s."lastSeenAt" >= $1::timestamptz`];
  if (f.clusters) where.push(`s."clusterName" = ANY($${params.push(f.clusters)}::text[])`);
  if (f.clusterName !== undefined) where.push(`s."clusterName" = $${params.push(f.clusterName)}`);
  for (const [column, value] of f.equal ?? []) {
    if (value !== undefined) where.push(`s."${column}" = $${params.push(value)}`);
  }
  return {
    text: `SELECT s.id, ${columns.map((c) => `s."${c}"`).join(', ')} FROM "${kind.series}" s WHERE ${where.join(' AND ')}`,
    params,
  };
}

/**
 * The samples of `ids` in [from, to) at the plan's level and step, newest first, at most `limit`
 * rows. Columns: t (epoch milliseconds), id (series), then `columns` in order. A raw read returns
 * every sample (the caller keeps the latest per step); a rollup read at the level's own width
 * returns its buckets; a wider step merges the buckets in it. Rollup buckets are matched by their
 * start, so the step the window starts in is included.
 */
export function samplesRowsSql(
  kind: SampleKind,
  plan: ReadPlan,
  columns: string[],
  q: { from: Date; to: Date; limit: number },
  ids: number[],
): Statement {
  const table = `metrics.${tableName(kind, plan.level)}`;
  const ts = plan.level === 'raw' ? 'x.ts' : 'x.bucket';
  const from = plan.level === 'raw' ? q.from : stepStart(q.from, plan.stepMs);
  const params: unknown[] = [ids, from.toISOString(), q.to.toISOString()];
  const where = `x.series_id = ANY($1::integer[]) AND ${ts} >= $2::timestamptz AND ${ts} < $3::timestamptz`;
  const grouped = plan.level !== 'raw' && plan.stepMs > (plan.level === '5m' ? 300_000 : 3_600_000);
  const values = columns.map(
    (c) => `${readColumn(kind, c, plan.level, grouped)}::${castOf(kind, c)} AS ${c}`,
  );
  if (!grouped) {
    return {
      text: `SELECT (extract(epoch FROM ${ts}) * 1000)::float8 AS t, x.series_id AS id, ${values.join(', ')}
  FROM ${table} x
 WHERE ${where}
 ORDER BY ${ts} DESC, x.series_id
 LIMIT ${q.limit}`,
      params,
    };
  }
  params.push(`${plan.stepMs / 1000} seconds`);
  return {
    text: `SELECT (extract(epoch FROM date_bin($4::interval, x.bucket, timestamptz '1970-01-01 00:00:00+00')) * 1000)::float8 AS t,
       x.series_id AS id, ${values.join(', ')}
  FROM ${table} x
 WHERE ${where}
 GROUP BY 1, 2
 ORDER BY 1 DESC, 2
 LIMIT ${q.limit}`,
    params,
  };
}

/**
 * The rows of samplesRowsSql as one JSON text: an array of [t, id, ...columns] in the same order, or
 * NULL when there are none (parse it with parseSampleRows). `pg` turns every field of every row into
 * a string before it parses the number in it, which was the largest part of the host's CPU in a
 * read of tens of thousands of rows; one field read by JSON.parse costs a fraction of that.
 * PostgreSQL writes each float8 as the same shortest text it sends in a column, so every number
 * arrives unchanged. The aggregate takes the rows in the order the subquery sorted them (what
 * PostgreSQL does for a plain aggregate over a sorted input; an ORDER BY inside json_agg sorted them
 * a second time, which cost more than it saved), and parseSampleRows checks that order.
 */
export function samplesSql(
  kind: SampleKind,
  plan: ReadPlan,
  columns: string[],
  q: { from: Date; to: Date; limit: number },
  ids: number[],
): Statement {
  const rows = samplesRowsSql(kind, plan, columns, q, ids);
  const fields = ['t', 'id', ...columns].map((c) => `r.${c}`).join(', ');
  return {
    text: `SELECT json_agg(json_build_array(${fields}))::text AS rows
  FROM (${rows.text}) r`,
    params: rows.params,
  };
}

/** The rows of a samplesSql answer (its one row's one field), newest first, then by series. */
export function parseSampleRows(answer: unknown[][]): unknown[][] {
  const text = answer[0]?.[0];
  if (typeof text !== 'string') return [];
  const rows = JSON.parse(text) as Array<[number, number, ...unknown[]]>;
  for (let i = 1; i < rows.length; i++) {
    if (newestFirst(rows[i - 1]!, rows[i]!) > 0) return rows.sort(newestFirst);
  }
  return rows;
}

const newestFirst = (a: [number, number, ...unknown[]], b: [number, number, ...unknown[]]) =>
  b[0] - a[0] || a[1] - b[1];

/** Numbers come back as float8 (a JSON number, never a bigint string); the others as stored. */
function castOf(kind: SampleKind, name: string): string {
  const c = kind.columns.find((col) => col.name === name)!;
  if (c.type === 'boolean') return 'boolean';
  if (c.type === 'smallint' || c.type === 'integer') return 'integer';
  return 'float8';
}
