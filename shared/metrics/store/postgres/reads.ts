/**
 * The SQL of the PostgreSQL store's sample reads, as pure functions (the bench runs EXPLAIN on the
 * same text). A read is two statements:
 *  1. the series in scope (a few to a few thousand label-set rows, found by the series tables'
 *     cluster / namespace / lastSeenAt indexes), whose names are sent once per series;
 *  2. their samples in the window: timestamp, series id and the numbers only, from the one level
 *     the plan picked, by the (series_id, ts) index of the window's partitions, sent as one JSON
 *     text of columns (see samplesSql).
 * Joining the names to every sample in SQL sent the same strings tens of thousands of times.
 */
import type { ReadPlan } from '../read-plan.js';
import { stepStart } from '../read-plan.js';
import { rawBound, rawEpochMs, readColumn, type SampleKind, tableName } from './tables.js';

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
  const raw = plan.level === 'raw';
  const ts = raw ? 'x.ts' : 'x.bucket';
  // Epoch milliseconds, in float8 (exact for whole seconds): a raw time is whole seconds since
  // 2000 (tables.ts); a bucket or step starts on a whole second, and float8 arithmetic on the sort
  // and group key cost a fraction of numeric's (a day of a namespace: 17,400 groups of 34,680 buckets).
  const epochMs = (t: string) => (raw ? rawEpochMs(t) : `date_part('epoch', ${t}) * 1000`);
  const from = raw ? q.from : stepStart(q.from, plan.stepMs);
  const params: unknown[] = raw
    ? [ids, rawBound(from), rawBound(q.to)]
    : [ids, from.toISOString(), q.to.toISOString()];
  const type = raw ? 'integer' : 'timestamptz';
  const where = `x.series_id = ANY($1::integer[]) AND ${ts} >= $2::${type} AND ${ts} < $3::${type}`;
  const grouped = plan.level !== 'raw' && plan.stepMs > (plan.level === '5m' ? 300_000 : 3_600_000);
  const values = columns.map(
    (c) => `${readColumn(kind, c, plan.level, grouped)}::${castOf(kind, c)} AS ${c}`,
  );
  if (!grouped) {
    return {
      text: `SELECT ${epochMs(ts)} AS t, x.series_id AS id, ${values.join(', ')}
  FROM ${table} x
 WHERE ${where}
 ORDER BY ${ts} DESC, x.series_id
 LIMIT ${q.limit}`,
      params,
    };
  }
  params.push(`${plan.stepMs / 1000} seconds`);
  return {
    text: `SELECT ${epochMs("date_bin($4::interval, x.bucket, timestamptz '1970-01-01 00:00:00+00')")} AS t,
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
 * The rows of samplesRowsSql as one JSON text: an array of columns [t[], id[], ...columns[]], each in
 * the rows' order, or columns of null when there are none (parseSampleRows turns them into rows).
 * `pg` turns every field of every row into a string before it parses the number in it, which was
 * the largest part of the host's CPU in a read of tens of thousands of rows; one field read by
 * JSON.parse costs a fraction of that. PostgreSQL writes each float8 as the same shortest text it
 * sends in a column, so every number arrives unchanged. One json_agg per column, not one
 * json_build_array per row: PostgreSQL looks up how to write each value of a json_build_array on
 * every call, and for a day of a namespace (17,400 rows) that was more than the rows' read itself
 * (the whole statement, best of 7 at load 12: 273 ms before, 179 ms with the columns, the float8
 * times above and the step's state by max). Every aggregate takes
 * the rows in the order the subquery sorted them, each row to all of them at once (what PostgreSQL
 * does for plain aggregates over a sorted input; an ORDER BY inside them sorted the rows again),
 * and parseSampleRows checks that order.
 */
export function samplesSql(
  kind: SampleKind,
  plan: ReadPlan,
  columns: string[],
  q: { from: Date; to: Date; limit: number },
  ids: number[],
): Statement {
  const rows = samplesRowsSql(kind, plan, columns, q, ids);
  const fields = ['t', 'id', ...columns].map((c) => `json_agg(r.${c})`).join(', ');
  return {
    text: `SELECT json_build_array(${fields})::text AS rows${
      plan.level === 'raw'
        ? ''
        : `,
       ${latestSql(kind, plan)} AS latest`
    }
  FROM (${rows.text}) r`,
    params: rows.params,
  };
}

/**
 * A rollup read's second field: [series id, epoch ms of its latest sample in the window] for each
 * series with a bucket there, as JSON text. An average row carries its step's start, so a series'
 * newest row was up to a step old when it was read (at a 10-minute or 2-hour step, older than the
 * 10 minutes after which the web client's node table takes a node for gone): the newest row carries
 * this instead (parseSampleRows). One backward probe of the (series_id, bucket) key per series,
 * a few milliseconds for 200 nodes, where a column of every row's last_ts cost a column of json_agg.
 */
function latestSql(kind: SampleKind, plan: ReadPlan): string {
  const table = `metrics.${tableName(kind, plan.level)}`;
  return `(SELECT json_agg(json_build_array(i, date_part('epoch', l.last_ts) * 1000))::text
          FROM unnest($1::integer[]) i,
               LATERAL (SELECT x.last_ts FROM ${table} x
                         WHERE x.series_id = i AND x.bucket >= $2::timestamptz AND x.bucket < $3::timestamptz
                         ORDER BY x.bucket DESC LIMIT 1) l)`;
}

/**
 * The rows of a samplesSql answer (its one row: the rows' columns, then for a rollup read each
 * series' latest sample time), newest first, then by series. A series' newest row carries its
 * latest sample's time rather than its step's start, which can move it ahead of rows of its step.
 */
export function parseSampleRows(answer: unknown[][]): unknown[][] {
  const text = answer[0]?.[0];
  if (typeof text !== 'string') return [];
  const columns = JSON.parse(text) as Array<unknown[] | null>;
  const first = columns[0];
  if (!first) return [];
  const rows = new Array<[number, number, ...unknown[]]>(first.length);
  for (let i = 0; i < first.length; i++) {
    const row = new Array(columns.length) as [number, number, ...unknown[]];
    for (let c = 0; c < columns.length; c++) row[c] = columns[c]![i];
    rows[i] = row;
  }
  const latest = answer[0]?.[1];
  if (typeof latest === 'string') {
    const at = new Map(JSON.parse(latest) as Array<[number, number]>);
    for (const row of rows) {
      const t = at.get(row[1]);
      if (t === undefined) continue;
      // The first row of a series is its newest; a time before the step's start is not one of its samples.
      if (t > row[0]) row[0] = Math.floor(t);
      at.delete(row[1]);
    }
  }
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
