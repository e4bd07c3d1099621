import type { ClickHouseClient } from '@clickhouse/client';

/**
 * The ClickHouse schema of the metrics store, created at startup by idempotent DDL (IF NOT EXISTS;
 * a retention change is applied by MODIFY TTL). docs/metrics.md ("ClickHouse") describes it for
 * operators.
 *
 * - Samples (pods, nodes, PVCs): MergeTree partitioned by day, ordered by the series key then time,
 *   so one container's samples sit together and compress to a few bytes each: time with
 *   DoubleDelta (a fixed collection interval becomes ~0 bits), gauges with Gorilla, names
 *   LowCardinality, everything then ZSTD. The TTL drops whole day parts (ttl_only_drop_parts).
 * - Rollups: a materialized view per resolution feeds an AggregatingMergeTree of 5-minute and
 *   hourly buckets, written in the same INSERT as the samples, so long windows read a few rows per
 *   series instead of every sample, and outlive the raw rows (their own TTL).
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
 * - `seen`: the last time each (kind, cluster, namespace) was seen, kept by materialized views, so
 *   the cluster and namespace lists read a handful of rows, never the samples.
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
/** Hourly rollups with what the Kubernetes cost allocation needs besides usage (see costRollupStatements). */
export const COST_ROLLUP_TABLES = ['k8s_pod_1h', 'k8s_node_1h'] as const;
export const ROLLUP_TABLES = [
  'pod_5m',
  'pod_1h',
  'node_5m',
  'node_1h',
  'pvc_5m',
  'pvc_1h',
  ...COST_ROLLUP_TABLES,
] as const;
export const STATE_TABLES = ['pod_logs', 'events', 'seen', 'ingest_batches'] as const;

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

interface RollupSpec {
  kind: 'pod' | 'node' | 'pvc';
  key: string[];
  /** column name, stored type, expression over the source */
  columns: Array<[string, string, string]>;
}

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
  node_name ${OPT_NAME},
  pod_state ${OPT_NAME},
  restart_count UInt32 CODEC(T64, ZSTD(1)),
  pod_age Nullable(Int64) CODEC(DoubleDelta, ZSTD(1)),
  owner_kind ${OPT_NAME},
  owner_name ${OPT_NAME},
  labels Map(LowCardinality(String), LowCardinality(String)) CODEC(ZSTD(1)),
  last_termination_reason ${OPT_NAME}
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

function rollupStatements(db: string, r: Retention): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const spec of ROLLUPS) {
    const keyColumns = spec.key.map((k) => `  ${k} ${NAME}`).join(',\n');
    for (const res of RESOLUTIONS) {
      const table = `${spec.kind}_${res.suffix}`;
      out.push([
        table,
        `CREATE TABLE IF NOT EXISTS ${db}.${table} (
${keyColumns},
  bucket DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
  samples SimpleAggregateFunction(sum, UInt64),
${spec.columns.map(([name, type]) => `  ${name} ${type}`).join(',\n')}
) ENGINE = AggregatingMergeTree
PARTITION BY ${res.partition}
ORDER BY (${spec.key.join(', ')}, bucket)
TTL bucket + INTERVAL ${r[res.retention]} DAY
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = ${DEDUP_WINDOW}`,
      ]);
      out.push([
        `${table}_mv`,
        `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table}_mv TO ${db}.${table} AS
SELECT ${spec.key.join(', ')}, ${res.bucket} AS bucket, count() AS samples,
  ${spec.columns.map(([name, , expr]) => `${expr} AS ${name}`).join(',\n  ')}
FROM ${db}.${spec.kind}_raw
GROUP BY ${spec.key.join(', ')}, bucket`,
      ]);
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
      'seen',
      `CREATE TABLE IF NOT EXISTS ${db}.seen (
  kind LowCardinality(String),
  cluster ${NAME},
  namespace ${NAME},
  last_seen SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
) ENGINE = AggregatingMergeTree
ORDER BY (kind, cluster, namespace)
TTL toDateTime(last_seen) + INTERVAL ${Math.max(r.rawDays, r.fiveMinuteDays, r.hourlyDays)} DAY`,
    ],
    ...(['pod', 'node', 'pvc'] as const).map((kind): [string, string] => [
      `seen_${kind}_mv`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.seen_${kind}_mv TO ${db}.seen AS
SELECT '${kind}' AS kind, cluster, ${kind === 'node' ? "''" : 'namespace'} AS namespace, max(ts) AS last_seen
FROM ${db}.${kind}_raw
GROUP BY cluster, namespace`,
    ]),
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
 * The Kubernetes cost's hourly rollups: per container-hour its node, requests, owner and labels
 * (as last sampled in the hour) with its usage; per node-hour its provider id, pool, VM size and
 * allocatable with its capacity. The usage rollups keep none of these (they are the agent's extra
 * fields), and the allocation reads months, past the raw samples' retention. Tables of their own,
 * created IF NOT EXISTS like the rest, so adding them needs no change to a table already holding
 * data; they fill from their creation on.
 */
function costRollupStatements(db: string, r: Retention): Array<[string, string]> {
  const settings = `SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = ${DEDUP_WINDOW}`;
  const spec =
    'Tuple(Nullable(String), Nullable(Float64), Nullable(Float64), Nullable(String), Nullable(String), Map(String, String))';
  const attrs =
    'Tuple(Nullable(String), Nullable(String), Nullable(String), Nullable(Float64), Nullable(Float64))';
  return [
    [
      'k8s_pod_1h',
      `CREATE TABLE IF NOT EXISTS ${db}.k8s_pod_1h (
  cluster ${NAME},
  namespace ${NAME},
  pod ${NAME},
  container ${NAME},
  bucket DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
  samples SimpleAggregateFunction(sum, UInt64),
  cpu_usage_cores AggregateFunction(avg, Float64),
  memory_usage_bytes AggregateFunction(avg, Float64),
  spec AggregateFunction(argMax, ${spec}, DateTime64(3, 'UTC'))
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (cluster, namespace, pod, container, bucket)
TTL bucket + INTERVAL ${r.hourlyDays} DAY
${settings}`,
    ],
    [
      'k8s_pod_1h_mv',
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.k8s_pod_1h_mv TO ${db}.k8s_pod_1h AS
SELECT cluster, namespace, pod, container, toStartOfHour(ts) AS bucket, count() AS samples,
  avgState(toFloat64(cpu_usage_cores)) AS cpu_usage_cores, avgState(toFloat64(memory_usage_bytes)) AS memory_usage_bytes,
  argMaxState(tuple(CAST(node_name, 'Nullable(String)'), CAST(cpu_request_cores, 'Nullable(Float64)'),
    CAST(memory_request_bytes, 'Nullable(Float64)'), CAST(owner_kind, 'Nullable(String)'),
    CAST(owner_name, 'Nullable(String)'), CAST(labels, 'Map(String, String)')), ts) AS spec
FROM ${db}.pod_raw
GROUP BY cluster, namespace, pod, container, bucket`,
    ],
    [
      'k8s_node_1h',
      `CREATE TABLE IF NOT EXISTS ${db}.k8s_node_1h (
  cluster ${NAME},
  node_name ${NAME},
  bucket DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
  samples SimpleAggregateFunction(sum, UInt64),
  cpu_capacity_cores AggregateFunction(avg, Float64),
  memory_capacity_bytes AggregateFunction(avg, Float64),
  attrs AggregateFunction(argMax, ${attrs}, DateTime64(3, 'UTC'))
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (cluster, node_name, bucket)
TTL bucket + INTERVAL ${r.hourlyDays} DAY
${settings}`,
    ],
    [
      'k8s_node_1h_mv',
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.k8s_node_1h_mv TO ${db}.k8s_node_1h AS
SELECT cluster, node_name, toStartOfHour(ts) AS bucket, count() AS samples,
  avgState(cpu_capacity_cores) AS cpu_capacity_cores, avgState(memory_capacity_bytes) AS memory_capacity_bytes,
  argMaxState(tuple(CAST(provider_id, 'Nullable(String)'), CAST(node_pool, 'Nullable(String)'),
    CAST(instance_type, 'Nullable(String)'), cpu_allocatable_cores, memory_allocatable_bytes), ts) AS attrs
FROM ${db}.node_raw
GROUP BY cluster, node_name, bucket`,
    ],
  ];
}

/** Every statement that creates the schema, in order (tables before the views that write to them). */
export function schemaStatements(db: string, r: Retention): Array<[string, string]> {
  return [
    ...sampleTables(db, r),
    ...rollupStatements(db, r),
    ...costRollupStatements(db, r),
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
  m.set('pod_logs', `toDateTime(ts) + toIntervalDay(${r.logsDays})`);
  m.set('events', `toDateTime(ts) + toIntervalDay(${r.logsDays})`);
  return m;
}

/**
 * Creates the database and everything in it when missing, and brings each table's TTL to the
 * configured retention. Safe to run at every start and from several instances at once.
 */
export async function ensureSchema(client: ClickHouseClient, db: string, r: Retention): Promise<void> {
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
  for (const [, ddl] of schemaStatements(db, r)) {
    await client.command({ query: ddl });
  }
  // A changed retention setting: MODIFY TTL applies to new parts at once and to existing ones as
  // they merge (materialize_ttl_after_modify = 0 avoids rewriting the whole table at startup).
  const rs = await client.query({
    query: 'SELECT name, engine_full FROM system.tables WHERE database = {db:String}',
    query_params: { db },
    format: 'JSONEachRow',
  });
  const current = new Map(
    (await rs.json<{ name: string; engine_full: string }>()).map((t) => [t.name, t.engine_full]),
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
}
