/**
 * The PostgreSQL store's sample tables, described once: the migration's DDL, the write statement
 * (samples and both rollups in one statement) and the reads are all generated from these specs,
 * so a column cannot be added to one and forgotten in another.
 *
 * Layout, in the `metrics` schema (internal names in snake_case):
 *   <kind>_raw  (ts, series_id, columns…)                         partitioned by day
 *               ts: whole seconds since 2000-01-01 UTC (see RAW_EPOCH_S)
 *   <kind>_5m   (bucket, series_id, n, last_ts, aggregates…)      partitioned by day
 *   <kind>_1h   (bucket, series_id, n, last_ts, aggregates…)      partitioned by month
 * A sample names its label set by series_id (Metrics<Kind>Series in the public schema).
 */

export type Aggregate = 'avg' | 'max' | 'last' | 'all' | 'any';

export interface SampleColumn {
  /** Column of the raw table. */
  name: string;
  type: 'real' | 'double precision' | 'bigint' | 'integer' | 'smallint' | 'boolean';
  nullable: boolean;
  /** How a rollup keeps it: avg as sum and count of non-null values, the others as one value. */
  rollup: Aggregate;
}

export interface SampleKind {
  /** Table name stem: pod, node, pvc. */
  name: 'pod' | 'node' | 'pvc';
  series: 'MetricsPodSeries' | 'MetricsNodeSeries' | 'MetricsPvcSeries';
  columns: SampleColumn[];
}

export const POD: SampleKind = {
  name: 'pod',
  series: 'MetricsPodSeries',
  // Ordered widest first so the row packs without alignment padding.
  columns: [
    // Limits are part of the pod's spec, which does not change for a pod: they are kept with the
    // label set (MetricsPodSeries), not in every sample, which keeps a sample under 100 bytes.
    { name: 'mem', type: 'double precision', nullable: false, rollup: 'avg' },
    { name: 'cpu', type: 'real', nullable: false, rollup: 'avg' },
    { name: 'restarts', type: 'integer', nullable: false, rollup: 'max' },
    { name: 'pod_age', type: 'integer', nullable: true, rollup: 'max' },
    { name: 'state', type: 'smallint', nullable: true, rollup: 'last' },
  ],
};

export const NODE: SampleKind = {
  name: 'node',
  series: 'MetricsNodeSeries',
  columns: [
    { name: 'mem', type: 'double precision', nullable: false, rollup: 'avg' },
    { name: 'mem_capacity', type: 'double precision', nullable: false, rollup: 'avg' },
    { name: 'cpu', type: 'real', nullable: false, rollup: 'avg' },
    { name: 'cpu_capacity', type: 'real', nullable: false, rollup: 'avg' },
    // A bucket is ready only if every sample was; under pressure if any sample was.
    { name: 'ready', type: 'boolean', nullable: true, rollup: 'all' },
    { name: 'memory_pressure', type: 'boolean', nullable: true, rollup: 'any' },
    { name: 'disk_pressure', type: 'boolean', nullable: true, rollup: 'any' },
    { name: 'pid_pressure', type: 'boolean', nullable: true, rollup: 'any' },
  ],
};

export const PVC: SampleKind = {
  name: 'pvc',
  series: 'MetricsPvcSeries',
  columns: [
    { name: 'used', type: 'bigint', nullable: false, rollup: 'avg' },
    { name: 'available', type: 'bigint', nullable: false, rollup: 'avg' },
    { name: 'capacity', type: 'bigint', nullable: false, rollup: 'avg' },
  ],
};

export const SAMPLE_KINDS = [POD, NODE, PVC] as const;

/**
 * A raw sample's time is an integer: whole seconds since 2000-01-01 00:00 UTC (this many seconds
 * after the Unix epoch), good until 2068. Four bytes instead of a timestamptz's eight make the pod
 * row 60 bytes instead of 68 and its (series_id, ts) index entry 20 instead of 28 (alignment
 * padding went with them). The agent samples every 30 s: the milliseconds it sends are dropped.
 * The rollups keep timestamptz buckets (one row per series and 5 minutes or hour, not per sample).
 */
export const RAW_EPOCH_S = 946_684_800;

/** The raw time of an instant: its whole second (milliseconds dropped), in seconds since RAW_EPOCH_S. */
export function rawSeconds(ms: number): number {
  return Math.floor(ms / 1000) - RAW_EPOCH_S;
}

/**
 * The first raw time at or after an instant: a window's bound, so that `ts >= rawBound(from)`
 * and `ts < rawBound(to)` hold exactly for the samples whose (whole-second) time is in [from, to).
 */
export function rawBound(t: Date): number {
  return Math.ceil(t.getTime() / 1000) - RAW_EPOCH_S;
}

/** SQL: a raw time column as epoch milliseconds (float8, exact for whole seconds). */
export function rawEpochMs(column: string): string {
  return `(${column} + ${RAW_EPOCH_S})::float8 * 1000`;
}

export type Level = 'raw' | '5m' | '1h';
export const LEVELS: Level[] = ['raw', '5m', '1h'];

/** Partition width of each level: raw and 5-minute by day, hourly by month. */
export const PARTITION_WIDTH: Record<Level, 'day' | 'month'> = { raw: 'day', '5m': 'day', '1h': 'month' };

export function tableName(kind: SampleKind, level: Level): string {
  return `${kind.name}_${level}`;
}

/** The columns a rollup table stores for one raw column. */
function rollupColumns(c: SampleColumn): Array<[string, string]> {
  if (c.rollup === 'avg') {
    return [
      [`${c.name}_sum`, 'double precision'],
      [`${c.name}_n`, 'integer NOT NULL'],
    ];
  }
  return [[c.name, c.type]];
}

/**
 * The DDL of one kind's three tables (the first metrics migration's text came from here, with a
 * timestamptz `ts`). Later migrations changed them in steps of their own: the raw tables' `ts`
 * became the integer seconds of RAW_EPOCH_S, which this DDL now writes, and the pod rollups' key
 * carries the columns a read returns (INCLUDE, for index-only reads of a namespace), which it does not.
 */
export function createTablesSql(kind: SampleKind): string {
  const raw = tableName(kind, 'raw');
  const cols = kind.columns.map((c) => `  ${c.name} ${c.type}${c.nullable ? '' : ' NOT NULL'}`).join(',\n');
  const out = [
    `CREATE TABLE metrics.${raw} (\n  ts integer NOT NULL,\n  series_id integer NOT NULL,\n${cols}\n) PARTITION BY RANGE (ts);`,
    // The reads join a set of series to their samples in a window: one index does both.
    `CREATE INDEX ${raw}_series_ts ON metrics.${raw} (series_id, ts);`,
  ];
  for (const level of ['5m', '1h'] as const) {
    const t = tableName(kind, level);
    const rcols = kind.columns
      .flatMap(rollupColumns)
      .map(([n, type]) => `  ${n} ${type}`)
      .join(',\n');
    out.push(
      `CREATE TABLE metrics.${t} (\n  bucket timestamptz NOT NULL,\n  series_id integer NOT NULL,\n  n integer NOT NULL,\n  last_ts timestamptz NOT NULL,\n${rcols},\n  PRIMARY KEY (series_id, bucket)\n) PARTITION BY RANGE (bucket);`,
    );
  }
  return out.join('\n\n');
}

/** The `ON CONFLICT … DO UPDATE SET` list merging a new partial bucket into a stored one (`r`). */
export function rollupMerge(kind: SampleKind): string[] {
  const merged = kind.columns.flatMap((c) => {
    const x = c.name;
    switch (c.rollup) {
      case 'avg':
        return [
          `${x}_sum = coalesce(r.${x}_sum, 0) + coalesce(excluded.${x}_sum, 0)`,
          `${x}_n = r.${x}_n + excluded.${x}_n`,
        ];
      case 'max':
        return [`${x} = greatest(r.${x}, excluded.${x})`];
      case 'last':
        return [`${x} = CASE WHEN excluded.last_ts >= r.last_ts THEN excluded.${x} ELSE r.${x} END`];
      case 'all':
        return [
          `${x} = CASE WHEN r.${x} IS NULL THEN excluded.${x} WHEN excluded.${x} IS NULL THEN r.${x} ELSE r.${x} AND excluded.${x} END`,
        ];
      case 'any':
        return [
          `${x} = CASE WHEN r.${x} IS NULL THEN excluded.${x} WHEN excluded.${x} IS NULL THEN r.${x} ELSE r.${x} OR excluded.${x} END`,
        ];
      default:
        throw new Error(`unknown rollup ${String(c.rollup)}`);
    }
  });
  return ['n = r.n + excluded.n', 'last_ts = greatest(r.last_ts, excluded.last_ts)', ...merged];
}

/** rollupColumnNames per kind, made once: every write of samples asks for them. */
const columnNamesOf = new Map<SampleKind, readonly string[]>();

/** The rollup table's column list in insert order. */
export function rollupColumnNames(kind: SampleKind): readonly string[] {
  let names = columnNamesOf.get(kind);
  if (!names) {
    names = ['bucket', 'series_id', 'n', 'last_ts', ...kind.columns.flatMap(rollupColumns).map(([n]) => n)];
    columnNamesOf.set(kind, names);
  }
  return names;
}

/** SQL array casts of the rollup table's columns, in rollupColumnNames order. */
export function rollupCasts(kind: SampleKind): string[] {
  return [
    'timestamptz',
    'integer',
    'integer',
    'timestamptz',
    ...kind.columns.flatMap(rollupColumns).map(([, type]) => type.replace(' NOT NULL', '')),
  ];
}

/**
 * A column as a read returns it at a level, as `name`'s value: the raw value, the rollup's value
 * (an average from its sum and count), or, when `grouped` (a step wider than the level's bucket),
 * the buckets of a step merged the way the rollup merges them. `alias` is the sample table's alias.
 */
export function readColumn(
  kind: SampleKind,
  name: string,
  level: Level,
  grouped = false,
  alias = 'x',
): string {
  const c = kind.columns.find((col) => col.name === name);
  if (!c) throw new Error(`no column ${name} in ${kind.name}`);
  const x = `${alias}.${name}`;
  if (level === 'raw') return x;
  if (!grouped) return c.rollup === 'avg' ? `(${x}_sum / NULLIF(${x}_n, 0))` : x;
  switch (c.rollup) {
    case 'avg':
      return `(sum(${x}_sum) / NULLIF(sum(${x}_n), 0))`;
    case 'max':
      return `max(${x})`;
    case 'last':
      // The value of the latest bucket; an ordered array_agg sorted every step's few rows apart.
      return `(max(ARRAY[date_part('epoch', ${alias}.last_ts), ${x}]))[2]`;
    case 'all':
      return `bool_and(${x})`;
    case 'any':
      return `bool_or(${x})`;
    default:
      throw new Error(`unknown rollup ${String(c.rollup)}`);
  }
}
