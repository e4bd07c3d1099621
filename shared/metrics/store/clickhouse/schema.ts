import { createHash } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';

/**
 * The ClickHouse schema of the metrics store, created at startup by idempotent DDL (IF NOT EXISTS;
 * a retention change is applied by MODIFY TTL). docs/metrics.md ("ClickHouse") describes it for
 * operators.
 *
 * - Samples (pods, nodes, PVCs): MergeTree partitioned by day, ordered by the series key then time,
 *   so one container's samples sit together and compress to a few bytes each: time with
 *   DoubleDelta (a fixed collection interval becomes ~0 bits), gauges with Gorilla, names
 *   LowCardinality (but a pod sample's own names, see OPT_TEXT, and its labels' JSON text),
 *   everything then ZSTD. The TTL drops whole day parts (ttl_only_drop_parts).
 * - Rollups: a materialized view per resolution feeds an AggregatingMergeTree of 5-minute and
 *   hourly buckets, written in the same INSERT as the samples, so long windows read a few rows per
 *   series instead of every sample, and outlive the raw rows (their own TTL). Each view costs every
 *   insert a fixed part of its CPU besides its rows, so there are as few as the reads need: pod_1h
 *   also carries what the Kubernetes cost allocation reads (node, requests, owner, labels), and
 *   every rollup its last sample time (`last_seen`).
 * - Pod logs: ReplacingMergeTree keyed by container, version = collection time: the latest
 *   snapshot per container replaces the older ones.
 * - Events: ReplacingMergeTree keyed by (cluster, namespace, uid, kind, name), version = collection
 *   time: a resent event is one row, as last posted. An event without a uid adds its own name to
 *   the key (identity_name), so unrelated uid-less events of one object stay apart.
 * - Batch ids: one row per stored batch; the data INSERTs of a batch carry an
 *   insert_deduplication_token derived from it, so a batch retried after a partial failure is
 *   stored once (MergeTree insert deduplication, non_replicated_deduplication_window). The rollup
 *   tables keep a deduplication window too: ClickHouse 26 still pushes a deduplicated block
 *   through the views and leaves it to their targets to recognise it.
 * - Cluster and namespace lists: read from the hourly rollups' `last_seen` through their `seen`
 *   projection (a row per cluster or namespace and hour, never the samples); a store of an earlier layout also keeps its `seen` table, which views
 *   of their own used to fill, for the times recorded before.
 *
 * Reads never rely on merges having happened: replacing tables are read with argMax per key and
 * rollups with the -Merge combinators.
 */

export interface Retention {
  rawDays: number;
  fiveMinuteDays: number;
  hourlyDays: number;
  logsDays: number;
}

/** Blocks whose deduplication tokens a table remembers: a retried batch within this many inserts is dropped. */
const DEDUP_WINDOW = 10_000;
/** Days a batch id is remembered (the agent retries for minutes, not days). */
export const BATCH_ID_DAYS = 7;

export const SAMPLE_TABLES = ['pod_raw', 'node_raw', 'pvc_raw'] as const;
/** Hourly node rollup with what the Kubernetes cost allocation needs besides usage (see costRollupStatements). */
export const COST_ROLLUP_TABLES = ['k8s_node_1h'] as const;
export const ROLLUP_TABLES = [
  'pod_5m',
  'pod_1h',
  'node_5m',
  'node_1h',
  'pvc_5m',
  'pvc_1h',
  ...COST_ROLLUP_TABLES,
] as const;
export const STATE_TABLES = ['pod_logs', 'events', 'ingest_batches'] as const;
/**
 * What a store of an earlier layout may still hold: the last-seen table its views kept (read with
 * the hourly rollups' own last_seen while it has rows), the pod cost rollup (copied into pod_1h).
 */
export const LEGACY_SEEN_TABLE = 'seen';

/** Time of a sample: stored as UTC milliseconds whatever the server's time zone. */
const TS = "DateTime64(3, 'UTC') CODEC(DoubleDelta, ZSTD(1))";
const GAUGE = 'Float64 CODEC(Gorilla, ZSTD(1))';
const OPT_GAUGE = 'Nullable(Float64) CODEC(Gorilla, ZSTD(1))';
// A container's CPU in cores to the micro-core (the precision the original wrote) and memory in
// whole bytes: integers underneath, so Delta leaves the small step between two samples of a series
// and ZSTD packs it into one or two bytes, where a float's bits change all over (Gorilla saves little).
const CORES = 'Decimal(18, 6) CODEC(Delta, ZSTD(1))';
const OPT_CORES = 'Nullable(Decimal(18, 6)) CODEC(Delta, ZSTD(1))';
const BYTES = 'UInt64 CODEC(Delta, ZSTD(1))';
const OPT_BYTES = 'Nullable(UInt64) CODEC(Delta, ZSTD(1))';
const NAME = 'LowCardinality(String)';
const OPT_NAME = 'LowCardinality(Nullable(String))';
// A pod sample's own names (node, state, owner, last termination reason): read back only by the
// rollups' views, the sample lists' newest rows and the rightsizing read, never filtered on.
// Parsing a LowCardinality(Nullable(String)) costs the engine over twice a plain string a row
// (0.57 µs against 0.18 measured alone: its dictionary lookup), and a pod sample has five of them. Sorted by container, the same
// name repeats row after row: ZSTD at level 3 keeps ~0.01 byte a sample of it, where level 1 left
// ~0.3 (each 5,000-row insert compressed no measurably slower; docs/benchmarks.md).
const OPT_TEXT = 'Nullable(String) CODEC(ZSTD(3))';
/** The pod sample's names of OPT_TEXT type (LowCardinality(Nullable(String)) in stores made before). */
const POD_TEXT_COLUMNS = ['node_name', 'pod_state', 'owner_kind', 'owner_name', 'last_termination_reason'];
// A pod's labels as the JSON object text the client sends (the insert reads JSON objects as
// strings): what the hourly rollup keeps and the cost allocation reads. The Map it replaces and
// the five names above took ~3.5 of a sample's ~8 µs of parsing with one label and ~6 of ~12 with
// six, besides the view's turning the Map back into JSON (docs/benchmarks.md). Level 3 for the
// same reason as OPT_TEXT.
const LABELS = 'String CODEC(ZSTD(3))';

interface RollupSpec {
  kind: 'pod' | 'node' | 'pvc';
  key: string[];
  /** column name, stored type, expression over the source */
  columns: Array<[string, string, string]>;
  /** Columns of the hourly rollup only (the Kubernetes cost allocation's), as `columns`. */
  hourly?: Array<[string, string, string]>;
}

const LAST_STRING = "AggregateFunction(argMax, String, DateTime64(3, 'UTC'))";
const LAST_NUMBER = "AggregateFunction(argMax, Nullable(Float64), DateTime64(3, 'UTC'))";

/**
 * Every rollup's last sample time: the cluster and namespace lists read the hourly one's (what a
 * `seen` table of its own, fed by a view per raw table, used to give); a sample list's newest row
 * carries it instead of its step's start.
 */
const LAST_SEEN: [string, string, string] = [
  'last_seen',
  "SimpleAggregateFunction(max, DateTime64(3, 'UTC'))",
  'max(ts)',
];

const ROLLUPS: RollupSpec[] = [
  {
    kind: 'pod',
    key: ['cluster', 'namespace', 'pod', 'container'],
    columns: [
      ['cpu_usage_cores', 'AggregateFunction(avg, Decimal(18, 6))', 'avgState(cpu_usage_cores)'],
      ['cpu_limit_cores', 'AggregateFunction(avg, Nullable(Decimal(18, 6)))', 'avgState(cpu_limit_cores)'],
      ['memory_usage_bytes', 'AggregateFunction(avg, UInt64)', 'avgState(memory_usage_bytes)'],
      ['memory_limit_bytes', 'AggregateFunction(avg, Nullable(UInt64))', 'avgState(memory_limit_bytes)'],
      [
        'node_name',
        "AggregateFunction(argMax, Nullable(String), DateTime64(3, 'UTC'))",
        "argMaxState(CAST(node_name, 'Nullable(String)'), ts)",
      ],
      [
        'pod_state',
        "AggregateFunction(argMax, Nullable(String), DateTime64(3, 'UTC'))",
        "argMaxState(CAST(pod_state, 'Nullable(String)'), ts)",
      ],
      ['restart_count', 'SimpleAggregateFunction(max, UInt32)', 'max(restart_count)'],
      ['pod_age', 'SimpleAggregateFunction(max, Nullable(Int64))', 'max(pod_age)'],
    ],
    // What the Kubernetes cost allocation needs besides usage and node: each attribute an argMax
    // state of its own over a plain String or Float64 (ClickHouse merges those with its fast string
    // and number paths; one argMax over a tuple holding a map went through its generic value path,
    // ~5 times slower, see docs/benchmarks.md); labels as the JSON text pod_raw holds; an
    // empty string stands for a missing owner.
    hourly: [
      ['cpu_request_cores', LAST_NUMBER, "argMaxState(CAST(cpu_request_cores, 'Nullable(Float64)'), ts)"],
      [
        'memory_request_bytes',
        LAST_NUMBER,
        "argMaxState(CAST(memory_request_bytes, 'Nullable(Float64)'), ts)",
      ],
      ['owner_kind', LAST_STRING, "argMaxState(assumeNotNull(ifNull(toString(owner_kind), '')), ts)"],
      ['owner_name', LAST_STRING, "argMaxState(assumeNotNull(ifNull(toString(owner_name), '')), ts)"],
      ['labels', LAST_STRING, 'argMaxState(labels, ts)'],
    ],
  },
  {
    kind: 'node',
    key: ['cluster', 'node_name'],
    columns: [
      ['cpu_usage_cores', 'AggregateFunction(avg, Float64)', 'avgState(cpu_usage_cores)'],
      ['cpu_capacity_cores', 'AggregateFunction(avg, Float64)', 'avgState(cpu_capacity_cores)'],
      ['memory_usage_bytes', 'AggregateFunction(avg, Float64)', 'avgState(memory_usage_bytes)'],
      ['memory_capacity_bytes', 'AggregateFunction(avg, Float64)', 'avgState(memory_capacity_bytes)'],
      // A bucket is ready only if every sample in it was, and under pressure if any was: a
      // readiness change inside the bucket is not averaged or picked away.
      ['is_ready', 'SimpleAggregateFunction(min, Nullable(UInt8))', 'min(is_ready)'],
      ['has_memory_pressure', 'SimpleAggregateFunction(max, Nullable(UInt8))', 'max(has_memory_pressure)'],
      ['has_disk_pressure', 'SimpleAggregateFunction(max, Nullable(UInt8))', 'max(has_disk_pressure)'],
      ['has_pid_pressure', 'SimpleAggregateFunction(max, Nullable(UInt8))', 'max(has_pid_pressure)'],
      // The rest describes the node; the bucket's latest value stands for it.
      [
        'attributes',
        "AggregateFunction(argMax, Tuple(Nullable(String), Nullable(String), Nullable(String), Nullable(String), Nullable(String), Nullable(String), Nullable(String)), DateTime64(3, 'UTC'))",
        "argMaxState(tuple(CAST(cluster_environment, 'Nullable(String)'), CAST(kubernetes_version, 'Nullable(String)'), CAST(cloud_provider, 'Nullable(String)'), CAST(architecture, 'Nullable(String)'), CAST(operating_system, 'Nullable(String)'), CAST(region, 'Nullable(String)'), CAST(instance_type, 'Nullable(String)')), ts)",
      ],
    ],
  },
  {
    kind: 'pvc',
    key: ['cluster', 'namespace', 'pod', 'pvc_namespace', 'pvc_name'],
    columns: [
      ['used_bytes', 'AggregateFunction(avg, UInt64)', 'avgState(used_bytes)'],
      ['available_bytes', 'AggregateFunction(avg, UInt64)', 'avgState(available_bytes)'],
      ['capacity_bytes', 'AggregateFunction(avg, UInt64)', 'avgState(capacity_bytes)'],
      [
        'volume_name',
        "AggregateFunction(argMax, Nullable(String), DateTime64(3, 'UTC'))",
        "argMaxState(CAST(volume_name, 'Nullable(String)'), ts)",
      ],
    ],
  },
];

const RESOLUTIONS = [
  {
    suffix: '5m',
    bucket: 'toStartOfFiveMinutes(ts)',
    partition: 'toDate(bucket)',
    retention: 'fiveMinuteDays',
  },
  { suffix: '1h', bucket: 'toStartOfHour(ts)', partition: 'toYYYYMM(bucket)', retention: 'hourlyDays' },
] as const;

function sampleTables(db: string, r: Retention): Array<[string, string]> {
  const settings = `SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = ${DEDUP_WINDOW}`;
  return [
    [
      'pod_raw',
      `CREATE TABLE IF NOT EXISTS ${db}.pod_raw (
  cluster ${NAME},
  namespace ${NAME},
  pod ${NAME},
  container ${NAME},
  ts ${TS},
  cpu_usage_cores ${CORES},
  cpu_limit_cores ${OPT_CORES},
  memory_usage_bytes ${BYTES},
  memory_limit_bytes ${OPT_BYTES},
  cpu_request_cores ${OPT_CORES},
  memory_request_bytes ${OPT_BYTES},
  node_name ${OPT_TEXT},
  pod_state ${OPT_TEXT},
  restart_count UInt32 CODEC(T64, ZSTD(1)),
  pod_age Nullable(Int64) CODEC(DoubleDelta, ZSTD(1)),
  owner_kind ${OPT_TEXT},
  owner_name ${OPT_TEXT},
  labels ${LABELS},
  last_termination_reason ${OPT_TEXT}
) ENGINE = MergeTree
PARTITION BY toDate(ts)
ORDER BY (cluster, namespace, pod, container, ts)
TTL toDateTime(ts) + INTERVAL ${r.rawDays} DAY
${settings}`,
    ],
    [
      'node_raw',
      `CREATE TABLE IF NOT EXISTS ${db}.node_raw (
  cluster ${NAME},
  node_name ${NAME},
  ts ${TS},
  cluster_environment ${OPT_NAME},
  cpu_usage_cores ${GAUGE},
  cpu_capacity_cores ${GAUGE},
  memory_usage_bytes ${GAUGE},
  memory_capacity_bytes ${GAUGE},
  kubernetes_version ${OPT_NAME},
  cloud_provider ${OPT_NAME},
  is_ready Nullable(UInt8),
  has_memory_pressure Nullable(UInt8),
  has_disk_pressure Nullable(UInt8),
  has_pid_pressure Nullable(UInt8),
  architecture ${OPT_NAME},
  operating_system ${OPT_NAME},
  region ${OPT_NAME},
  instance_type ${OPT_NAME},
  provider_id ${OPT_NAME},
  node_pool ${OPT_NAME},
  cpu_allocatable_cores ${OPT_GAUGE},
  memory_allocatable_bytes ${OPT_GAUGE}
) ENGINE = MergeTree
PARTITION BY toDate(ts)
ORDER BY (cluster, node_name, ts)
TTL toDateTime(ts) + INTERVAL ${r.rawDays} DAY
${settings}`,
    ],
    [
      'pvc_raw',
      `CREATE TABLE IF NOT EXISTS ${db}.pvc_raw (
  cluster ${NAME},
  namespace ${NAME},
  pod ${NAME},
  pvc_namespace ${NAME},
  pvc_name ${NAME},
  ts ${TS},
  volume_name ${OPT_NAME},
  used_bytes UInt64 CODEC(Delta, ZSTD(1)),
  available_bytes UInt64 CODEC(Delta, ZSTD(1)),
  capacity_bytes UInt64 CODEC(Delta, ZSTD(1)),
  azure_disk_resource_id ${OPT_NAME}
) ENGINE = MergeTree
PARTITION BY toDate(ts)
ORDER BY (cluster, namespace, pod, pvc_namespace, pvc_name, ts)
TTL toDateTime(ts) + INTERVAL ${r.rawDays} DAY
${settings}`,
    ],
  ];
}

/** The columns of a rollup besides its key, bucket and samples. */
function rollupColumns(spec: RollupSpec, suffix: '5m' | '1h'): Array<[string, string, string]> {
  return suffix === '1h'
    ? [...spec.columns, ...(spec.hourly ?? []), LAST_SEEN]
    : [...spec.columns, LAST_SEEN];
}

/** The hourly labels' state over a pod_raw whose labels are still a Map (a store made before). */
const MAP_LABELS_STATE = "argMaxState(toJSONString(CAST(labels, 'Map(String, String)')), ts)";

/**
 * The rollup's columns as `expr AS name`; `mapLabels` when pod_raw's labels are still a Map (a
 * store of an earlier layout, until migratePodSamples has run).
 */
function rollupSelect(columns: Array<[string, string, string]>, mapLabels: boolean): string {
  return columns
    .map(([name, , expr]) => `${mapLabels && name === 'labels' ? MAP_LABELS_STATE : expr} AS ${name}`)
    .join(',\n  ');
}

/** The view filling a rollup from its raw table. */
function rollupView(
  db: string,
  spec: RollupSpec,
  res: (typeof RESOLUTIONS)[number],
  mapLabels = false,
): string {
  const table = `${spec.kind}_${res.suffix}`;
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table}_mv TO ${db}.${table} AS
SELECT ${spec.key.join(', ')}, ${res.bucket} AS bucket, count() AS samples,
  ${rollupSelect(rollupColumns(spec, res.suffix), mapLabels)}
FROM ${db}.${spec.kind}_raw
GROUP BY ${spec.key.join(', ')}, bucket`;
}

/**
 * The hourly rollups' `seen` projection: per cluster (and namespace) and hour, the last sample
 * time, which the cluster and namespace lists read instead of a row per series and hour (6,000
 * containers over a week: 1,008,000 rows of pod_1h, 8,400 of the projection; the lists' CPU from 47
 * to 14 ms, benchmarks.md). An AggregatingMergeTree keeps a projection only when told what to do
 * with it as parts merge (deduplicate_merge_projection_mode): rebuilt from the merged rows.
 */
function seenProjection(kind: RollupSpec['kind']): string {
  const key = kind === 'node' ? 'cluster' : 'cluster, namespace';
  return `PROJECTION seen (SELECT ${key}, bucket, max(last_seen) GROUP BY ${key}, bucket)`;
}
const PROJECTION_MODE = "deduplicate_merge_projection_mode = 'rebuild'";

function rollupStatements(db: string, r: Retention): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const spec of ROLLUPS) {
    const keyColumns = spec.key.map((k) => `  ${k} ${NAME}`).join(',\n');
    for (const res of RESOLUTIONS) {
      const table = `${spec.kind}_${res.suffix}`;
      const hourly = res.suffix === '1h';
      out.push([
        table,
        `CREATE TABLE IF NOT EXISTS ${db}.${table} (
${keyColumns},
  bucket DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
  samples SimpleAggregateFunction(sum, UInt64),
${rollupColumns(spec, res.suffix)
  .map(([name, type]) => `  ${name} ${type}`)
  .join(',\n')}${hourly ? `,\n  ${seenProjection(spec.kind)}` : ''}
) ENGINE = AggregatingMergeTree
PARTITION BY ${res.partition}
ORDER BY (${spec.key.join(', ')}, bucket)
TTL bucket + INTERVAL ${r[res.retention]} DAY
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = ${DEDUP_WINDOW}${hourly ? `, ${PROJECTION_MODE}` : ''}`,
      ]);
      out.push([`${table}_mv`, rollupView(db, spec, res)]);
    }
  }
  return out;
}

function stateTables(db: string, r: Retention): Array<[string, string]> {
  return [
    [
      'pod_logs',
      `CREATE TABLE IF NOT EXISTS ${db}.pod_logs (
  cluster ${NAME},
  namespace ${NAME},
  pod String,
  container ${NAME},
  ts DateTime64(3, 'UTC'),
  log_content String CODEC(ZSTD(3))
) ENGINE = ReplacingMergeTree(ts)
ORDER BY (cluster, namespace, pod, container)
TTL toDateTime(ts) + INTERVAL ${r.logsDays} DAY
SETTINGS non_replicated_deduplication_window = ${DEDUP_WINDOW}`,
    ],
    [
      'events',
      `CREATE TABLE IF NOT EXISTS ${db}.events (
  cluster ${NAME},
  namespace ${NAME},
  event_uid String,
  involved_object_kind ${NAME},
  involved_object_name String,
  identity_name String,
  ts DateTime64(3, 'UTC'),
  event_name String,
  involved_object_namespace ${NAME},
  event_type ${NAME},
  reason ${NAME},
  message String CODEC(ZSTD(3)),
  source_component ${NAME},
  count UInt32,
  first_timestamp Nullable(DateTime64(3, 'UTC')),
  last_timestamp Nullable(DateTime64(3, 'UTC'))
) ENGINE = ReplacingMergeTree(ts)
ORDER BY (cluster, namespace, event_uid, involved_object_kind, involved_object_name, identity_name)
TTL toDateTime(ts) + INTERVAL ${r.logsDays} DAY
SETTINGS non_replicated_deduplication_window = ${DEDUP_WINDOW}`,
    ],
    [
      'ingest_batches',
      `CREATE TABLE IF NOT EXISTS ${db}.ingest_batches (
  cluster ${NAME},
  batch_id UUID,
  stored_at DateTime('UTC'),
  records UInt32
) ENGINE = ReplacingMergeTree
ORDER BY (cluster, batch_id)
TTL stored_at + INTERVAL ${BATCH_ID_DAYS} DAY`,
    ],
  ];
}

/**
 * The Kubernetes cost's node rollup: per node-hour its provider id, pool, VM size and allocatable
 * with its capacity (the agent's extra fields, which node_1h does not keep). The container-hours'
 * node, requests, owner and labels are columns of pod_1h (RollupSpec.hourly), so one view per
 * insert serves both the pod reads and the allocation.
 *
 * Each attribute is an argMax state of its own over a plain String or Float64 (see the pod rollup's
 * columns). An empty string stands for a missing pool or VM size.
 *
 * A table of its own, created IF NOT EXISTS like the rest; when its view is created on a store
 * that already holds samples, ensureSchema fills it from those samples (createCostView).
 */
export const COST_ROLLUP_VERSION_COLUMNS = { k8s_node_1h: 'provider_id' } as const;

/** The SELECT of the cost rollup's view: also what a backfill inserts (over the raw rows it names). */
export function costRollupSelect(
  db: string,
  _table: (typeof COST_ROLLUP_TABLES)[number],
  where = '',
): string {
  return `SELECT cluster, node_name, toStartOfHour(ts) AS bucket, count() AS samples,
  avgState(cpu_capacity_cores) AS cpu_capacity_cores, avgState(memory_capacity_bytes) AS memory_capacity_bytes,
  argMaxState(assumeNotNull(ifNull(toString(provider_id), '')), ts) AS provider_id,
  argMaxState(assumeNotNull(ifNull(toString(node_pool), '')), ts) AS node_pool,
  argMaxState(assumeNotNull(ifNull(toString(instance_type), '')), ts) AS instance_type,
  argMaxState(cpu_allocatable_cores, ts) AS cpu_allocatable_cores,
  argMaxState(memory_allocatable_bytes, ts) AS memory_allocatable_bytes
FROM ${db}.node_raw${where}
GROUP BY cluster, node_name, bucket`;
}

/** The raw table each cost rollup is computed from. */
export const COST_ROLLUP_SOURCE = { k8s_node_1h: 'node_raw' } as const;

function costRollupStatements(db: string, r: Retention): Array<[string, string]> {
  const settings = `SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = ${DEDUP_WINDOW}`;
  return [
    [
      'k8s_node_1h',
      `CREATE TABLE IF NOT EXISTS ${db}.k8s_node_1h (
  cluster ${NAME},
  node_name ${NAME},
  bucket DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
  samples SimpleAggregateFunction(sum, UInt64),
  cpu_capacity_cores AggregateFunction(avg, Float64),
  memory_capacity_bytes AggregateFunction(avg, Float64),
  provider_id ${LAST_STRING},
  node_pool ${LAST_STRING},
  instance_type ${LAST_STRING},
  cpu_allocatable_cores ${LAST_NUMBER},
  memory_allocatable_bytes ${LAST_NUMBER}
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (cluster, node_name, bucket)
TTL bucket + INTERVAL ${r.hourlyDays} DAY
${settings}`,
    ],
    [
      'k8s_node_1h_mv',
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.k8s_node_1h_mv TO ${db}.k8s_node_1h AS
${costRollupSelect(db, 'k8s_node_1h')}`,
    ],
  ];
}

/**
 * The Kubernetes cost read's per-day sums of closed UTC days (see
 * shared/finops/kubernetes/clickhouse-usage.ts, which fills and reads them): a month's read then
 * groups ~30 rows per container instead of ~720 hourly ones.
 *
 * - cost_day: per day, node class and container (with the owner and labels it had), its charges
 *   already capped at each node-hour's allocatable (every input of the cap is in the day's own hours).
 * - cost_class_hour: per hour and node class, the node-hours added up and the class's attributes.
 * - cost_day_summed: a row per (cluster, day) summing, its `version` the server's time when the
 *   summing began; the rows of both tables carry it, and a read takes each day's latest.
 * - cost_day_late: a row per batch that wrote samples into a closed day, `marked_at` the server's
 *   time at insert: a day marked at or after its latest version is summed again.
 * Partitioned by month and kept as long as the hourly rollups they come from (TTL and housekeeping).
 */
export const COST_DAY_TABLES = ['cost_day', 'cost_class_hour', 'cost_day_summed', 'cost_day_late'] as const;

function costDayStatements(db: string, r: Retention): Array<[string, string]> {
  const tail = (order: string) => `ENGINE = MergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (${order})
TTL day + INTERVAL ${r.hourlyDays} DAY
SETTINGS ttl_only_drop_parts = 1`;
  const VERSION = "DateTime64(3, 'UTC')";
  return [
    [
      'cost_day',
      `CREATE TABLE IF NOT EXISTS ${db}.cost_day (
  cluster ${NAME},
  day Date,
  version ${VERSION},
  kh UInt64,
  namespace ${NAME},
  pod ${NAME},
  container ${NAME},
  owner_kind ${NAME},
  owner_name ${NAME},
  labels String CODEC(ZSTD(1)),
  cpu Float64,
  mem Float64
) ${tail('cluster, day, version, kh, namespace, pod, container')}`,
    ],
    [
      'cost_class_hour',
      `CREATE TABLE IF NOT EXISTS ${db}.cost_class_hour (
  cluster ${NAME},
  day Date,
  version ${VERSION},
  bucket DateTime('UTC'),
  kh UInt64,
  part Float64,
  ss String,
  pool Nullable(String),
  vm Nullable(String),
  cap_cpu Float64,
  cap_mem Float64,
  alloc_cpu Nullable(Float64),
  alloc_mem Nullable(Float64)
) ${tail('cluster, day, version, bucket, kh')}`,
    ],
    [
      'cost_day_summed',
      `CREATE TABLE IF NOT EXISTS ${db}.cost_day_summed (
  cluster ${NAME},
  day Date,
  version ${VERSION}
) ${tail('cluster, day, version')}`,
    ],
    [
      'cost_day_late',
      `CREATE TABLE IF NOT EXISTS ${db}.cost_day_late (
  cluster ${NAME},
  day Date,
  marked_at ${VERSION} DEFAULT now64(3)
) ${tail('cluster, day, marked_at')}`,
    ],
  ];
}

/** Every statement that creates the schema, in order (tables before the views that write to them). */
export function schemaStatements(db: string, r: Retention): Array<[string, string]> {
  return [
    ...sampleTables(db, r),
    ...rollupStatements(db, r),
    ...costRollupStatements(db, r),
    ...costDayStatements(db, r),
    ...stateTables(db, r),
  ];
}

/** The TTL expression each table should have under `r` (compared with system.tables at startup). */
export function ttlByTable(r: Retention): Map<string, string> {
  const m = new Map<string, string>();
  for (const t of SAMPLE_TABLES) m.set(t, `toDateTime(ts) + toIntervalDay(${r.rawDays})`);
  for (const spec of ROLLUPS) {
    for (const res of RESOLUTIONS) {
      m.set(`${spec.kind}_${res.suffix}`, `bucket + toIntervalDay(${r[res.retention]})`);
    }
  }
  for (const t of COST_ROLLUP_TABLES) m.set(t, `bucket + toIntervalDay(${r.hourlyDays})`);
  for (const t of COST_DAY_TABLES) m.set(t, `day + toIntervalDay(${r.hourlyDays})`);
  m.set('pod_logs', `toDateTime(ts) + toIntervalDay(${r.logsDays})`);
  m.set('events', `toDateTime(ts) + toIntervalDay(${r.logsDays})`);
  return m;
}

/**
 * Creates the database and everything in it when missing, and brings each table's TTL to the
 * configured retention. Safe to run at every start and from several instances at once.
 */
export async function ensureSchema(
  client: ClickHouseClient,
  db: string,
  r: Retention,
): Promise<{ legacySeen: boolean }> {
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
  const columns = await selectRows<{ table: string; name: string; type: string }>(
    client,
    'SELECT table, name, type FROM system.columns WHERE database = {db:String}',
    { db },
  );
  const existing = new Set(columns.map((c) => c.table));
  const views = await selectRows<{ name: string; as_select: string }>(
    client,
    "SELECT name, as_select FROM system.tables WHERE database = {db:String} AND engine = 'MaterializedView'",
    { db },
  );
  for (const v of views) existing.add(v.name);
  // pod_raw's labels still a Map: the views the hourly rollups' migration makes read them as such,
  // and its copy of an earlier cost rollup from the samples too; migratePodSamples then changes the
  // column and the view (before the CREATE ... IF NOT EXISTS below, which ClickHouse checks against
  // the tables even when the view exists).
  const mapLabels = columns.some(
    (c) => c.table === 'pod_raw' && c.name === 'labels' && c.type.startsWith('Map'),
  );
  await migrateHourlyRollups(client, db, columns, views, mapLabels);
  await migratePodSamples(client, db, columns);
  // A cost rollup of the first layout (one argMax over a tuple of every attribute) is set aside as
  // <table>_v1, its view dropped, and the table made again from the samples still stored: the
  // hours older than those stay readable in <table>_v1 until an operator drops it.
  for (const table of COST_ROLLUP_TABLES) {
    const current = columns.filter((c) => c.table === table).map((c) => c.name);
    if (current.length > 0 && !current.includes(COST_ROLLUP_VERSION_COLUMNS[table])) {
      await client.command({ query: `DROP VIEW IF EXISTS ${db}.${table}_mv` });
      await client.command({ query: `RENAME TABLE ${db}.${table} TO ${db}.${table}_v1` });
      existing.delete(table);
      existing.delete(`${table}_mv`);
    }
  }
  for (const [name, ddl] of schemaStatements(db, r)) {
    const costTable = COST_ROLLUP_TABLES.find((t) => `${t}_mv` === name);
    if (costTable && !existing.has(name)) await createCostView(client, db, costTable, ddl);
    else await client.command({ query: ddl });
  }
  // A changed retention setting: MODIFY TTL applies to new parts at once and to existing ones as
  // they merge (materialize_ttl_after_modify = 0 avoids rewriting the whole table at startup).
  const current = new Map(
    (
      await selectRows<{ name: string; engine_full: string }>(
        client,
        'SELECT name, engine_full FROM system.tables WHERE database = {db:String}',
        { db },
      )
    ).map((t) => [t.name, t.engine_full]),
  );
  for (const [table, ttl] of ttlByTable(r)) {
    const full = current.get(table) ?? '';
    if (!full.replace(/\s+/g, ' ').includes(`TTL ${ttl}`)) {
      await client.command({
        query: `ALTER TABLE ${db}.${table} MODIFY TTL ${ttl}`,
        clickhouse_settings: { materialize_ttl_after_modify: 0 },
      });
    }
  }
  return { legacySeen: existing.has(LEGACY_SEEN_TABLE) };
}

/**
 * Brings the hourly rollups of an earlier layout to this one in place (their rows are the only copy
 * of the hours past the raw samples' retention, so they are altered, not remade):
 * - each gets the columns it lacks (`last_seen`; pod_1h the cost allocation's attributes), empty
 *   in the rows already there, and its view is replaced by one that fills them (the 5-minute
 *   rollups too get `last_seen` so), and the hourly ones their `seen` projection;
 * - the `seen` views are dropped once those views exist (a batch in between is recorded twice,
 *   harmless for a max); the `seen` table keeps the times it recorded, read beside last_seen;
 * - the pod cost rollup `k8s_pod_1h` loses its view and its attributes are copied into pod_1h,
 *   from it (its second layout) and from the raw samples still stored. Only argMax states are
 *   copied (samples 0, no usage): merging one twice changes nothing, so a copy repeated by an
 *   interrupted start or by two instances starting together adds nothing. The table is dropped
 *   after its copy (a first-layout one is set aside as `k8s_pod_1h_v1`, as before), so a start
 *   that sees it finishes the work.
 * A batch written between a view's drop and its replacement's creation is missed by the rollup;
 * that window is one statement long and only exists at this first start.
 */
async function migrateHourlyRollups(
  client: ClickHouseClient,
  db: string,
  columns: Array<{ table: string; name: string }>,
  views: Array<{ name: string; as_select: string }>,
  mapLabels: boolean,
): Promise<void> {
  const tables = new Set(columns.map((c) => c.table));
  const has = (table: string, column: string) => columns.some((c) => c.table === table && c.name === column);
  const created = new Map(
    (
      await selectRows<{ name: string; create_table_query: string }>(
        client,
        'SELECT name, create_table_query FROM system.tables WHERE database = {db:String}',
        { db },
      )
    ).map((t) => [t.name, t.create_table_query]),
  );
  const hourly = RESOLUTIONS.find((res) => res.suffix === '1h')!;
  for (const spec of ROLLUPS) {
    for (const res of RESOLUTIONS) {
      const table = `${spec.kind}_${res.suffix}`;
      if (!tables.has(table)) continue;
      const wanted = res.suffix === '1h' ? [...(spec.hourly ?? []), LAST_SEEN] : [LAST_SEEN];
      const added = wanted.filter(([name]) => !has(table, name));
      if (added.length > 0) {
        await client.command({
          query: `ALTER TABLE ${db}.${table} ${added.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${name} ${type}`).join(', ')}`,
        });
      }
      const view = views.find((v) => v.name === `${table}_mv`);
      if (view && !view.as_select.includes('last_seen')) {
        await client.command({ query: `DROP VIEW IF EXISTS ${db}.${table}_mv` });
        await client.command({ query: rollupView(db, spec, res, mapLabels) });
      }
      if (res.suffix === '1h' && !created.get(table)?.includes('PROJECTION seen')) {
        // Built for the parts already there by a mutation in the background; until it is done
        // the lists read those parts' rows as before.
        await client.command({ query: `ALTER TABLE ${db}.${table} MODIFY SETTING ${PROJECTION_MODE}` });
        await client.command({
          query: `ALTER TABLE ${db}.${table} ADD PROJECTION IF NOT EXISTS ${seenProjection(spec.kind).slice('PROJECTION '.length)}`,
        });
        await client.command({ query: `ALTER TABLE ${db}.${table} MATERIALIZE PROJECTION seen` });
      }
    }
  }
  for (const kind of ['pod', 'node', 'pvc']) {
    await client.command({ query: `DROP VIEW IF EXISTS ${db}.seen_${kind}_mv` });
  }
  if (!tables.has('pod_1h') || !(tables.has('k8s_pod_1h') || views.some((v) => v.name === 'k8s_pod_1h_mv'))) {
    return;
  }
  await client.command({ query: `DROP VIEW IF EXISTS ${db}.k8s_pod_1h_mv` });
  const pod = ROLLUPS.find((s) => s.kind === 'pod')!;
  const attributes = pod.hourly ?? [];
  const target = `${db}.pod_1h (${pod.key.join(', ')}, bucket, samples, ${attributes.map(([name]) => name).join(', ')})`;
  await client.command({
    query: `INSERT INTO ${target}
SELECT ${pod.key.join(', ')}, ${hourly.bucket} AS bucket, 0 AS samples,
  ${rollupSelect(attributes, mapLabels)}
FROM ${db}.pod_raw
GROUP BY ${pod.key.join(', ')}, bucket`,
  });
  if (!tables.has('k8s_pod_1h')) return;
  if (has('k8s_pod_1h', 'node_name')) {
    await client.command({
      query: `INSERT INTO ${target}
SELECT ${pod.key.join(', ')}, bucket, 0 AS samples, ${attributes.map(([name]) => name).join(', ')}
FROM ${db}.k8s_pod_1h`,
    });
    await client.command({ query: `DROP TABLE IF EXISTS ${db}.k8s_pod_1h` });
  } else {
    await client.command({ query: `RENAME TABLE ${db}.k8s_pod_1h TO ${db}.k8s_pod_1h_v1` });
  }
}

/**
 * Brings pod_raw of an earlier layout to this one: its five names from LowCardinality(Nullable(String))
 * to Nullable(String), its labels from a Map to their JSON text, and pod_1h's view to one that keeps
 * that text as it is. A type change of a column is a mutation ClickHouse runs in the background;
 * parts not yet rewritten are read through the new type meanwhile, so the change is one statement
 * at start. The hourly view is dropped first and made again after (it would fail on the other
 * type): a batch written in between is missed by the hourly rollup; that window is two statements
 * long and only exists at this first start. An instance of the earlier layout still writing meanwhile
 * keeps working: its labels objects are read as their text, its names as they are.
 *
 * Samples stored before keep their labels as ClickHouse writes a Map as text (`{'team':'a'}`, not
 * JSON; ClickHouse has no cast back from it): nothing reads pod_raw's labels but the hourly view,
 * which sees new samples only, and the copy of an earlier cost rollup into pod_1h
 * (migrateHourlyRollups), which runs before this. They expire with the raw retention.
 */
async function migratePodSamples(
  client: ClickHouseClient,
  db: string,
  columns: Array<{ table: string; name: string; type: string }>,
): Promise<void> {
  const stale = columns.filter(
    (c) =>
      c.table === 'pod_raw' &&
      ((c.name === 'labels' && c.type.startsWith('Map')) ||
        (POD_TEXT_COLUMNS.includes(c.name) && c.type.startsWith('LowCardinality'))),
  );
  if (stale.length === 0) return;
  const pod = ROLLUPS.find((s) => s.kind === 'pod')!;
  const hourly = RESOLUTIONS.find((res) => res.suffix === '1h')!;
  await client.command({ query: `DROP VIEW IF EXISTS ${db}.pod_1h_mv` });
  await client.command({
    query: `ALTER TABLE ${db}.pod_raw ${stale
      .map((c) => `MODIFY COLUMN ${c.name} ${c.name === 'labels' ? LABELS : OPT_TEXT}`)
      .join(', ')}`,
  });
  await client.command({ query: rollupView(db, pod, hourly) });
}

async function selectRows<T>(client: ClickHouseClient, query: string, params: Record<string, unknown>) {
  const rs = await client.query({ query, query_params: params, format: 'JSONEachRow' });
  return rs.json<T>();
}

/**
 * Creates a cost rollup's view and fills the rollup from the samples stored before it: a store
 * opened on existing samples (made before the cost rollups existed, or with their first layout)
 * would otherwise allocate nothing for those hours. The raw table's parts are listed before the
 * view exists, with merges stopped so that none of them is merged with a newer part meanwhile;
 * the backfill reads only those parts, so a batch written after the view's creation is counted
 * once (by the view). A batch whose part is committed between the listing and the view's creation
 * is missed by both; that window is one statement long and only exists at this first start. The
 * backfill carries a deduplication token made of the parts it read, so two instances starting
 * together on the same parts store it once.
 */
async function createCostView(
  client: ClickHouseClient,
  db: string,
  table: (typeof COST_ROLLUP_TABLES)[number],
  ddl: string,
): Promise<void> {
  const source = COST_ROLLUP_SOURCE[table];
  await client.command({ query: `SYSTEM STOP MERGES ${db}.${source}` });
  try {
    const parts = (
      await selectRows<{ name: string }>(
        client,
        'SELECT name FROM system.parts WHERE database = {db:String} AND table = {table:String} AND active ORDER BY name',
        { db, table: source },
      )
    ).map((p) => p.name);
    await client.command({ query: ddl });
    if (parts.length === 0) return;
    await client.command({
      query: `INSERT INTO ${db}.${table}\n${costRollupSelect(db, table, '\nWHERE _part IN {parts:Array(String)}')}`,
      query_params: { parts },
      clickhouse_settings: {
        insert_deduplication_token: `backfill/${table}/${createHash('sha256').update(parts.join(',')).digest('hex')}`,
      },
    });
  } finally {
    await client.command({ query: `SYSTEM START MERGES ${db}.${source}` });
  }
}
