import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import type {
  CleanupResult,
  EventQuery,
  HousekeepingResult,
  KubernetesEvent,
  LogQuery,
  MetricsStore,
  NodeQuery,
  NodeSample,
  PodLog,
  PodQuery,
  PodSample,
  PvcQuery,
  PvcSample,
  Resolution,
  Rows,
  TableSize,
  WindowQuery,
  WriteBatch,
  WriteResult,
} from '../contract.js';
import { lateDays } from '../late-days.js';
import { planRead, type ReadPlan, stepStart } from '../read-plan.js';
import { chTime, rowsByTable } from './rows.js';
import {
  COST_DAY_TABLES,
  ensureSchema,
  LEGACY_SEEN_TABLE,
  type Retention,
  ROLLUP_TABLES,
  SAMPLE_TABLES,
  STATE_TABLES,
} from './schema.js';

export interface ClickHouseStoreOptions {
  /** http(s)://host:8123 of the server (or of the test bridge). */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  /** Database holding the metrics tables (created when missing). */
  database: string;
  retention: Retention;
  /** Longest a statement may take, in milliseconds. */
  requestTimeoutMs?: number;
}

/** Database names are written into DDL, so they are plain identifiers only. */
export const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const DAY_MS = 86_400_000;

type Scope = { where: string[]; params: Record<string, unknown> } | null;

/** The visibility and cluster filters shared by every read; null when nothing can be visible. */
function scope(q: { clusters?: string[] | undefined; clusterName?: string | undefined }): Scope {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (q.clusters !== undefined) {
    if (q.clusters.length === 0) return null;
    where.push('cluster IN {clusters:Array(String)}');
    params.clusters = q.clusters;
  }
  if (q.clusterName !== undefined) {
    where.push('cluster = {cluster:String}');
    params.cluster = q.clusterName;
  }
  return { where, params };
}

const toDate = (ms: number) => new Date(ms);
const toFlag = (v: number | null) => (v === null ? null : v !== 0);

/** Bucket floor of a resolution, as SQL over a DateTime64 parameter. */
/** The columns naming a series of each kind, in the tables' sort key order. */
const SERIES_KEY = {
  pod: 'cluster, namespace, pod, container',
  node: 'cluster, node_name',
  pvc: 'cluster, namespace, pod, pvc_namespace, pvc_name',
} as const;

/** A rollup step's latest sample time (epoch ms), beside its start `t` (last_seen, see schema.ts). */
const LATEST = 'toUnixTimestamp64Milli(max(last_seen)) AS lt,';

interface Timed {
  t: number;
  lt?: number | string;
}

/**
 * Rollup rows (newest first) with each series' newest row at its latest sample's time instead of
 * its step's start, newest first again: a step's start is up to a step old, and the web client's
 * node table takes a node whose newest row is 10 minutes old for gone. A bucket written before
 * the rollups had last_seen keeps its step's start.
 */
function newestAtLatest<R extends Timed>(rows: R[], key: string): R[] {
  const columns = key.split(', ') as Array<keyof R>;
  const seen = new Set<string>();
  let moved = false;
  for (const row of rows) {
    const series = columns.map((c) => row[c]).join('\u0000');
    if (seen.has(series)) continue;
    seen.add(series);
    const lt = Number(row.lt);
    if (lt > row.t) {
      row.t = lt;
      moved = true;
    }
  }
  // A stable sort keeps the query's order among rows of one time.
  return moved ? rows.sort((a, b) => b.t - a.t) : rows;
}

/** Rows of the sample list queries, as ClickHouse names their columns. */
interface PodRow {
  t: number;
  cluster: string;
  namespace: string;
  pod: string;
  container: string;
  cpu_usage_cores: number;
  cpu_limit_cores: number | null;
  memory_usage_bytes: number;
  memory_limit_bytes: number | null;
  node_name: string | null;
  pod_state: string | null;
  restart_count: number;
  pod_age: number | null;
}

interface NodeRow {
  t: number;
  cluster: string;
  node_name: string;
  cluster_environment: string | null;
  cpu_usage_cores: number;
  cpu_capacity_cores: number;
  memory_usage_bytes: number;
  memory_capacity_bytes: number;
  kubernetes_version: string | null;
  cloud_provider: string | null;
  is_ready: number | null;
  has_memory_pressure: number | null;
  has_disk_pressure: number | null;
  has_pid_pressure: number | null;
  architecture: string | null;
  operating_system: string | null;
  region: string | null;
  instance_type: string | null;
}

interface PvcRow {
  t: number;
  cluster: string;
  namespace: string;
  pod: string;
  pvc_namespace: string;
  pvc_name: string;
  volume_name: string | null;
  used_bytes: number;
  available_bytes: number;
  capacity_bytes: number;
}

export class ClickHouseMetricsStore implements MetricsStore {
  readonly engine = 'clickhouse' as const;
  private readonly db: string;

  private constructor(
    private readonly client: ClickHouseClient,
    database: string,
    private readonly retention: Retention,
    /** Whether the database holds the `seen` table of an earlier layout (read beside the rollups). */
    private readonly legacySeen: boolean,
  ) {
    this.db = database;
  }

  /** Connects, creates the schema when missing and applies the retention settings. */
  static async open(o: ClickHouseStoreOptions): Promise<ClickHouseMetricsStore> {
    if (!DATABASE_NAME.test(o.database)) throw new Error(`Invalid ClickHouse database name "${o.database}"`);
    const client = createClient({
      url: o.url,
      username: o.username ?? 'default',
      password: o.password ?? '',
      request_timeout: o.requestTimeoutMs ?? 30_000,
      // Errors reach the caller as ClickHouseError; the client's own console logging would duplicate them.
      log: { level: ClickHouseLogLevel.OFF },
      clickhouse_settings: {
        // Counts as JSON numbers whatever the server's version (25.8 changed the default).
        output_format_json_quote_64bit_integers: 0,
      },
    });
    let legacySeen: boolean;
    try {
      ({ legacySeen } = await ensureSchema(client, o.database, o.retention));
    } catch (e) {
      await client.close();
      throw e;
    }
    return new ClickHouseMetricsStore(client, o.database, o.retention, legacySeen);
  }

  async write(batch: WriteBatch): Promise<WriteResult> {
    const cluster = batch.clusterName;
    if (batch.batchId !== undefined && (await this.batchStored(cluster, batch.batchId))) {
      return { duplicate: true, records: 0 };
    }
    // One INSERT per table for the whole request. With a batch id, each carries a deduplication
    // token, so a batch retried after a partial failure (some tables written, the batch id not yet)
    // writes only what is missing. Without one (a one-object post) the tables' own block hashing
    // applies, which only ever drops a byte-identical block: the same rows at the same millisecond.
    await Promise.all(
      rowsByTable(cluster, batch.records).map((t) =>
        this.client.insert({
          table: `${this.db}.${t.table}`,
          columns: t.columns as [string, ...string[]],
          format: 'JSONCompactEachRow',
          values: t.rows,
          clickhouse_settings: {
            // Already one block per table and request: the server's insert buffering would only delay the answer.
            async_insert: 0,
            // The rollups' views already aggregate the block (GROUP BY), and the replacing tables are
            // read with argMax: merging the new part's rows again before writing it (a merge's work
            // over every row of every target, ~15-25% of the engine's CPU a sample) buys nothing,
            // since reads never rely on merges having happened.
            optimize_on_insert: 0,
            // JSON allows a lone UTF-16 surrogate ("\ud800") that ClickHouse would refuse, failing
            // the whole batch for one odd character: it is kept as written instead.
            input_format_json_throw_on_bad_escape_sequence: 0,
            // A pod's labels object goes into a String column as its JSON text (schema.ts), the
            // default since ClickHouse 23 but set here for servers configured otherwise.
            input_format_json_read_objects_as_strings: 1,
            ...(batch.batchId !== undefined
              ? { insert_deduplication_token: `${cluster}/${batch.batchId}/${t.table}` }
              : {}),
          },
        }),
      ),
    );
    // After the samples, before the batch id: a retried batch marks again what it wrote.
    await this.markLateDays(batch);
    if (batch.batchId !== undefined) {
      await this.client.insert({
        table: `${this.db}.ingest_batches`,
        format: 'JSONEachRow',
        values: [
          {
            cluster,
            batch_id: batch.batchId,
            stored_at: chTime(new Date()).slice(0, 19),
            records: batch.records.length,
          },
        ],
        clickhouse_settings: { async_insert: 0 },
      });
    }
    return { duplicate: false, records: batch.records.length };
  }

  /**
   * Marks the closed days the batch wrote pod or node samples into (cost_day_late, see schema.ts):
   * the cost read sums them again. The server stamps the mark, as it stamps a summing's version, so
   * one clock orders them. Samples of today, the usual case, cost no statement.
   */
  private async markLateDays(batch: WriteBatch): Promise<void> {
    const late = lateDays(batch.records, new Date());
    if (!late.length) return;
    await this.client.insert({
      table: `${this.db}.cost_day_late`,
      columns: ['cluster', 'day'],
      format: 'JSONCompactEachRow',
      values: late,
      clickhouse_settings: { async_insert: 0 },
    });
  }

  private async batchStored(cluster: string, batchId: string): Promise<boolean> {
    const rows = await this.select<{ n: number }>(
      `SELECT count() AS n FROM ${this.db}.ingest_batches WHERE cluster = {cluster:String} AND batch_id = {id:UUID}`,
      { cluster, id: batchId },
    );
    return (rows[0]?.n ?? 0) > 0;
  }

  private async select<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await this.client.query({ query, query_params: params, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  /**
   * Window, scope and plan of a sample read (read-plan.ts); null when nothing is visible. The plan
   * needs the number of series in the window first: counted from the hourly rollup, which holds
   * one row per series and hour. `step` in the SQL is the plan's step in seconds; a raw read keeps
   * each series' latest sample per step (LIMIT 1 BY), a rollup read merges the buckets of a step.
   */
  private async window(
    kind: keyof typeof SERIES_KEY,
    q: WindowQuery,
    extra: Array<[string, string, unknown]>,
  ): Promise<{ plan: ReadPlan; where: string; params: Record<string, unknown> } | null> {
    const s = scope(q);
    if (!s) return null;
    const where = [...s.where];
    const params: Record<string, unknown> = { ...s.params, from: q.from, to: q.to, limit: q.limit + 1 };
    for (const [col, name, value] of extra) {
      if (value !== undefined) {
        where.push(`${col} = {${name}:String}`);
        params[name] = value;
      }
    }
    const [count] = await this.select<{ n: number | string }>(
      `SELECT uniqExact(${SERIES_KEY[kind]}) AS n FROM ${this.db}.${kind}_1h
WHERE ${[...where, "bucket >= toStartOfHour({from:DateTime64(3, 'UTC')})", "bucket < {to:DateTime64(3, 'UTC')}"].join(' AND ')}`,
      params,
    );
    const plan = planRead(q.from, q.to, {
      maxPoints: q.maxPoints,
      series: Number(count?.n ?? 0),
      maxRows: q.limit,
      level: q.resolution,
    });
    params.step = plan.stepMs / 1000;
    if (plan.level === 'raw') {
      where.push("ts >= {from:DateTime64(3, 'UTC')}", "ts < {to:DateTime64(3, 'UTC')}");
    } else {
      // A step belongs to the window when it overlaps it: the one holding `from` included.
      params.fromStep = stepStart(q.from, plan.stepMs);
      where.push("bucket >= {fromStep:DateTime64(3, 'UTC')}", "bucket < {to:DateTime64(3, 'UTC')}");
    }
    return { plan, where: where.join(' AND '), params };
  }

  private page<T>(rows: T[], limit: number, resolution?: Resolution): Rows<T> {
    const truncated = rows.length > limit;
    return {
      rows: truncated ? rows.slice(0, limit) : rows,
      truncated,
      ...(resolution ? { resolution } : {}),
    };
  }

  /**
   * A sample list: the window's plan and scope, the query written for that plan, its rows turned
   * into samples and bounded at the limit (the plan's resolution in the answer).
   */
  private async sampleList<Row, Sample>(
    kind: keyof typeof SERIES_KEY,
    q: WindowQuery,
    extra: Array<[string, string, unknown]>,
    queryOf: (w: { plan: ReadPlan; where: string }) => string,
    toSample: (r: Row) => Sample,
  ): Promise<Rows<Sample>> {
    const w = await this.window(kind, q, extra);
    if (!w) return { rows: [], truncated: false, resolution: 'raw' };
    let rows = await this.select<Row>(queryOf(w), w.params);
    if (w.plan.level !== 'raw') rows = newestAtLatest(rows as Array<Row & Timed>, SERIES_KEY[kind]);
    return this.page(rows.map(toSample), q.limit, w.plan.resolution);
  }

  async pods(q: PodQuery): Promise<Rows<PodSample>> {
    return this.sampleList<PodRow, PodSample>(
      'pod',
      q,
      [['namespace', 'namespace', q.namespace]],
      (w) =>
        w.plan.level === 'raw'
          ? `SELECT toUnixTimestamp64Milli(ts) AS t, cluster, namespace, pod, container, cpu_usage_cores,
  cpu_limit_cores, memory_usage_bytes, memory_limit_bytes, node_name, pod_state, restart_count, pod_age
FROM ${this.db}.pod_raw
WHERE ${w.where}
ORDER BY ts DESC, cluster, namespace, pod, container
LIMIT 1 BY cluster, namespace, pod, container, toStartOfInterval(ts, toIntervalSecond({step:UInt32}))
LIMIT {limit:UInt32}`
          : `SELECT toUnixTimestamp(b) * 1000 AS t, ${LATEST} cluster, namespace, pod, container,
  avgMerge(cpu_usage_cores) AS cpu_usage_cores, avgMerge(cpu_limit_cores) AS cpu_limit_cores,
  avgMerge(memory_usage_bytes) AS memory_usage_bytes, avgMerge(memory_limit_bytes) AS memory_limit_bytes,
  argMaxMerge(node_name) AS node_name, argMaxMerge(pod_state) AS pod_state,
  max(restart_count) AS restart_count, max(pod_age) AS pod_age,
  toStartOfInterval(bucket, toIntervalSecond({step:UInt32})) AS b
FROM ${this.db}.pod_${w.plan.level}
WHERE ${w.where}
GROUP BY cluster, namespace, pod, container, b
ORDER BY b DESC, cluster, namespace, pod, container
LIMIT {limit:UInt32}`,
      (r) => ({
        timestamp: toDate(r.t),
        clusterName: r.cluster,
        namespace: r.namespace,
        pod: r.pod,
        container: r.container,
        cpuUsageCores: r.cpu_usage_cores,
        cpuLimitCores: r.cpu_limit_cores,
        memoryUsageBytes: r.memory_usage_bytes,
        memoryLimitBytes: r.memory_limit_bytes,
        nodeName: r.node_name,
        podState: r.pod_state,
        restartCount: r.restart_count ?? 0,
        podAge: r.pod_age,
      }),
    );
  }

  async nodes(q: NodeQuery): Promise<Rows<NodeSample>> {
    return this.sampleList<NodeRow, NodeSample>(
      'node',
      q,
      [['node_name', 'node', q.nodeName]],
      (w) =>
        w.plan.level === 'raw'
          ? `SELECT toUnixTimestamp64Milli(ts) AS t, cluster, node_name, cluster_environment, cpu_usage_cores,
  cpu_capacity_cores, memory_usage_bytes, memory_capacity_bytes, kubernetes_version, cloud_provider, is_ready,
  has_memory_pressure, has_disk_pressure, has_pid_pressure, architecture, operating_system, region, instance_type
FROM ${this.db}.node_raw
WHERE ${w.where}
ORDER BY ts DESC, cluster, node_name
LIMIT 1 BY cluster, node_name, toStartOfInterval(ts, toIntervalSecond({step:UInt32}))
LIMIT {limit:UInt32}`
          : `SELECT t, lt, cluster, node_name, a.1 AS cluster_environment, cpu_usage_cores, cpu_capacity_cores,
  memory_usage_bytes, memory_capacity_bytes, a.2 AS kubernetes_version, a.3 AS cloud_provider, is_ready,
  has_memory_pressure, has_disk_pressure, has_pid_pressure, a.4 AS architecture,
  a.5 AS operating_system, a.6 AS region, a.7 AS instance_type
FROM (
  SELECT toUnixTimestamp(b) * 1000 AS t, ${LATEST} cluster, node_name, toStartOfInterval(bucket, toIntervalSecond({step:UInt32})) AS b,
    avgMerge(cpu_usage_cores) AS cpu_usage_cores, avgMerge(cpu_capacity_cores) AS cpu_capacity_cores,
    avgMerge(memory_usage_bytes) AS memory_usage_bytes, avgMerge(memory_capacity_bytes) AS memory_capacity_bytes,
    min(is_ready) AS is_ready, max(has_memory_pressure) AS has_memory_pressure,
    max(has_disk_pressure) AS has_disk_pressure, max(has_pid_pressure) AS has_pid_pressure,
    argMaxMerge(attributes) AS a
  FROM ${this.db}.node_${w.plan.level}
  WHERE ${w.where}
  GROUP BY cluster, node_name, b
  ORDER BY b DESC, cluster, node_name
  LIMIT {limit:UInt32}
)
ORDER BY t DESC, cluster, node_name`,
      (r) => ({
        timestamp: toDate(r.t),
        clusterName: r.cluster,
        clusterEnvironment: r.cluster_environment,
        nodeName: r.node_name,
        cpuUsageCores: r.cpu_usage_cores,
        cpuCapacityCores: r.cpu_capacity_cores,
        memoryUsageBytes: r.memory_usage_bytes,
        memoryCapacityBytes: r.memory_capacity_bytes,
        kubernetesVersion: r.kubernetes_version,
        cloudProvider: r.cloud_provider,
        isReady: toFlag(r.is_ready),
        hasMemoryPressure: toFlag(r.has_memory_pressure),
        hasDiskPressure: toFlag(r.has_disk_pressure),
        hasPidPressure: toFlag(r.has_pid_pressure),
        architecture: r.architecture,
        operatingSystem: r.operating_system,
        region: r.region,
        instanceType: r.instance_type,
      }),
    );
  }

  async pvcs(q: PvcQuery): Promise<Rows<PvcSample>> {
    return this.sampleList<PvcRow, PvcSample>(
      'pvc',
      q,
      [['namespace', 'namespace', q.namespace]],
      (w) =>
        w.plan.level === 'raw'
          ? `SELECT toUnixTimestamp64Milli(ts) AS t, cluster, namespace, pod, pvc_namespace, pvc_name, volume_name,
  used_bytes, available_bytes, capacity_bytes
FROM ${this.db}.pvc_raw
WHERE ${w.where}
ORDER BY ts DESC, cluster, namespace, pod, pvc_namespace, pvc_name
LIMIT 1 BY cluster, namespace, pod, pvc_namespace, pvc_name, toStartOfInterval(ts, toIntervalSecond({step:UInt32}))
LIMIT {limit:UInt32}`
          : `SELECT toUnixTimestamp(b) * 1000 AS t, ${LATEST} cluster, namespace, pod, pvc_namespace, pvc_name,
  argMaxMerge(volume_name) AS volume_name, toUInt64(round(avgMerge(used_bytes))) AS used_bytes,
  toUInt64(round(avgMerge(available_bytes))) AS available_bytes,
  toUInt64(round(avgMerge(capacity_bytes))) AS capacity_bytes, toStartOfInterval(bucket, toIntervalSecond({step:UInt32})) AS b
FROM ${this.db}.pvc_${w.plan.level}
WHERE ${w.where}
GROUP BY cluster, namespace, pod, pvc_namespace, pvc_name, b
ORDER BY b DESC, cluster, namespace, pod, pvc_namespace, pvc_name
LIMIT {limit:UInt32}`,
      (r) => ({
        timestamp: toDate(r.t),
        clusterName: r.cluster,
        namespace: r.namespace,
        pod: r.pod,
        pvcNamespace: r.pvc_namespace,
        pvcName: r.pvc_name,
        volumeName: r.volume_name,
        usedBytes: r.used_bytes,
        availableBytes: r.available_bytes,
        capacityBytes: r.capacity_bytes,
      }),
    );
  }

  async logs(q: LogQuery): Promise<Rows<PodLog>> {
    const s = scope(q);
    if (!s) return { rows: [], truncated: false };
    const where = [...s.where, "ts >= {from:DateTime64(3, 'UTC')}"];
    const params: Record<string, unknown> = { ...s.params, from: q.from, limit: q.limit + 1 };
    for (const [col, value] of [
      ['namespace', q.namespace],
      ['pod', q.pod],
      ['container', q.container],
    ] as const) {
      if (value !== undefined) {
        where.push(`${col} = {${col}:String}`);
        params[col] = value;
      }
    }
    // The latest snapshot per container, exact whether or not the replacing merge has run yet.
    const rows = await this.select<{
      t: number;
      cluster: string;
      namespace: string;
      pod: string;
      container: string;
      log_content: string;
    }>(
      `SELECT toUnixTimestamp64Milli(max(ts)) AS t, cluster, namespace, pod, container,
  argMax(log_content, ts) AS log_content
FROM ${this.db}.pod_logs
WHERE ${where.join(' AND ')}
GROUP BY cluster, namespace, pod, container
ORDER BY t DESC, cluster, namespace, pod, container
LIMIT {limit:UInt32}`,
      params,
    );
    return this.page(
      rows.map((r) => ({
        timestamp: toDate(r.t),
        clusterName: r.cluster,
        namespace: r.namespace,
        pod: r.pod,
        container: r.container,
        logContent: r.log_content,
      })),
      q.limit,
    );
  }

  async events(q: EventQuery): Promise<Rows<KubernetesEvent>> {
    const s = scope(q);
    if (!s) return { rows: [], truncated: false };
    const where = [...s.where, "ts >= {from:DateTime64(3, 'UTC')}"];
    const having: string[] = [];
    const params: Record<string, unknown> = { ...s.params, from: q.from, limit: q.limit + 1 };
    if (q.namespace !== undefined) {
      where.push('namespace = {namespace:String}');
      params.namespace = q.namespace;
    }
    if (q.involvedObjectKind !== undefined) {
      where.push('involved_object_kind = {kind:String}');
      params.kind = q.involvedObjectKind;
    }
    if (q.involvedObjectName !== undefined) {
      where.push('involved_object_name = {name:String}');
      params.name = q.involvedObjectName;
    }
    if (q.eventType !== undefined) {
      // The type is not part of the event's identity: filter on its latest value.
      having.push('event_type = {type:String}');
      params.type = q.eventType;
    }
    const rows = await this.select<{
      t: number;
      cluster: string;
      namespace: string;
      event_uid: string;
      involved_object_kind: string;
      involved_object_name: string;
      event_name: string;
      involved_object_namespace: string;
      event_type: string;
      reason: string;
      message: string;
      source_component: string;
      count: number;
      first_ms: number | null;
      last_ms: number | null;
    }>(
      `SELECT toUnixTimestamp64Milli(max(ts)) AS t, cluster, namespace, event_uid, involved_object_kind,
  involved_object_name, argMax(event_name, ts) AS event_name,
  argMax(involved_object_namespace, ts) AS involved_object_namespace, argMax(event_type, ts) AS event_type,
  argMax(reason, ts) AS reason, argMax(message, ts) AS message, argMax(source_component, ts) AS source_component,
  argMax(count, ts) AS count, toUnixTimestamp64Milli(argMax(first_timestamp, ts)) AS first_ms,
  toUnixTimestamp64Milli(argMax(last_timestamp, ts)) AS last_ms
FROM ${this.db}.events
WHERE ${where.join(' AND ')}
GROUP BY cluster, namespace, event_uid, involved_object_kind, involved_object_name, identity_name
${having.length ? `HAVING ${having.join(' AND ')}` : ''}
ORDER BY t DESC, cluster, namespace, event_uid, involved_object_kind, involved_object_name, identity_name
LIMIT {limit:UInt32}`,
      params,
    );
    return this.page(
      rows.map((r) => ({
        timestamp: toDate(r.t),
        clusterName: r.cluster,
        namespace: r.namespace,
        eventName: r.event_name,
        eventUid: r.event_uid,
        involvedObjectKind: r.involved_object_kind,
        involvedObjectName: r.involved_object_name,
        involvedObjectNamespace: r.involved_object_namespace,
        eventType: r.event_type,
        reason: r.reason,
        message: r.message,
        sourceComponent: r.source_component,
        count: r.count,
        firstTimestamp: r.first_ms === null ? null : toDate(r.first_ms),
        lastTimestamp: r.last_ms === null ? null : toDate(r.last_ms),
      })),
      q.limit,
    );
  }

  /**
   * Each (cluster, namespace) of the given kinds' hourly rollups with its last sample time, read
   * from the hours from since's on (a row per series and hour, never the samples). A store of an
   * earlier layout adds what its `seen` table recorded (rows stored before last_seen hold 1970).
   */
  private lastSeen(kinds: Array<'pod' | 'node' | 'pvc'>, where: string[]): string {
    const filter = [...where, "bucket >= toStartOfHour({since:DateTime64(3, 'UTC')})"].join(' AND ');
    const parts = kinds.map(
      (kind) =>
        `SELECT cluster, ${kind === 'node' ? "''" : 'namespace'} AS namespace, max(last_seen) AS last_seen
  FROM ${this.db}.${kind}_1h WHERE ${filter} GROUP BY cluster, namespace`,
    );
    if (this.legacySeen) {
      const kindFilter = kinds.length === 1 ? `kind = '${kinds[0]}'` : '1';
      parts.push(
        `SELECT cluster, namespace, max(last_seen) AS last_seen
  FROM ${this.db}.${LEGACY_SEEN_TABLE} WHERE ${[kindFilter, ...where].join(' AND ')} GROUP BY cluster, namespace`,
      );
    }
    return parts.join('\n  UNION ALL\n  ');
  }

  async clusters(since: Date, clusters?: string[]): Promise<string[]> {
    const s = scope({ clusters });
    if (!s) return [];
    const rows = await this.select<{ cluster: string }>(
      `SELECT cluster FROM (
  ${this.lastSeen(['pod', 'node', 'pvc'], s.where)}
)
WHERE cluster != ''
GROUP BY cluster
HAVING max(last_seen) >= {since:DateTime64(3, 'UTC')}
ORDER BY cluster`,
      { ...s.params, since },
    );
    return rows.map((r) => r.cluster);
  }

  async namespaces(since: Date, clusters: string[] | undefined, clusterName?: string): Promise<string[]> {
    const s = scope({ clusters, clusterName });
    if (!s) return [];
    const rows = await this.select<{ namespace: string }>(
      `SELECT namespace FROM (
  ${this.lastSeen(['pod'], s.where)}
)
WHERE namespace != ''
GROUP BY namespace
HAVING max(last_seen) >= {since:DateTime64(3, 'UTC')}
ORDER BY namespace`,
      { ...s.params, since },
    );
    return rows.map((r) => r.namespace);
  }

  async cleanup(days: number, now: Date = new Date()): Promise<CleanupResult> {
    if (days <= 0) {
      for (const t of [
        ...SAMPLE_TABLES,
        ...ROLLUP_TABLES,
        ...COST_DAY_TABLES,
        'pod_logs',
        'events',
        LEGACY_SEEN_TABLE,
      ]) {
        await this.client.command({ query: `TRUNCATE TABLE IF EXISTS ${this.db}.${t}` });
      }
      return { scope: 'all metrics' };
    }
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    // The cost sums go with the hourly partitions they were summed from (both by month).
    for (const t of [...SAMPLE_TABLES, ...ROLLUP_TABLES, ...COST_DAY_TABLES]) {
      await this.dropPartitionsBefore(t, cutoff);
    }
    for (const t of ['pod_logs', 'events']) await this.deleteBefore(t, cutoff);
    return { scope: `metrics older than ${days} days` };
  }

  async housekeeping(now: Date = new Date()): Promise<HousekeepingResult> {
    // The TTLs remove expired data by themselves as parts merge; this drops it at once, so
    // retention holds to the day whatever the merge schedule.
    const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
    const dropped: string[] = [];
    for (const t of SAMPLE_TABLES)
      dropped.push(...(await this.dropPartitionsBefore(t, before(this.retention.rawDays))));
    for (const t of ROLLUP_TABLES) {
      const days = t.endsWith('_5m') ? this.retention.fiveMinuteDays : this.retention.hourlyDays;
      dropped.push(...(await this.dropPartitionsBefore(t, before(days))));
    }
    // The cost read's per-day sums: kept as long as the hourly rollups they come from.
    for (const t of COST_DAY_TABLES) {
      dropped.push(...(await this.dropPartitionsBefore(t, before(this.retention.hourlyDays))));
    }
    for (const t of ['pod_logs', 'events']) await this.deleteBefore(t, before(this.retention.logsDays));
    // ClickHouse makes a partition when the first row of a day arrives: none to create ahead.
    return { created: [], dropped };
  }

  /**
   * Drops the partitions whose every day lies before the cutoff's day; returns their names as
   * `<table>_p<YYYYMMDD>` (hourly tables: `<table>_p<YYYYMM>`), as the PostgreSQL store names its partitions.
   */
  private async dropPartitionsBefore(table: string, cutoff: Date): Promise<string[]> {
    const cutoffDay = cutoff.toISOString().slice(0, 10).replaceAll('-', '');
    const parts = await this.select<{ partition_id: string }>(
      `SELECT DISTINCT partition_id FROM system.parts
WHERE database = {db:String} AND table = {table:String} AND active`,
      { db: this.db, table },
    );
    const out: string[] = [];
    for (const { partition_id: id } of parts) {
      // toDate partitions are YYYYMMDD; monthly ones YYYYMM, whose last day is before any day of the next month.
      const lastDay = id.length === 6 ? `${id}31` : id;
      if (/^\d{8}$/.test(lastDay) && lastDay < cutoffDay) {
        await this.client.command({ query: `ALTER TABLE ${this.db}.${table} DROP PARTITION ID '${id}'` });
        out.push(`${table}_p${id}`);
      }
    }
    return out.sort();
  }

  private async deleteBefore(table: string, cutoff: Date): Promise<void> {
    // A DELETE marks rows in every part it touches: only run one when something is older.
    const [older] = await this.select<{ n: number }>(
      `SELECT count() AS n FROM ${this.db}.${table} WHERE ts < {cutoff:DateTime64(3, 'UTC')}`,
      { cutoff },
    );
    if (!older?.n) return;
    await this.client.command({
      query: `DELETE FROM ${this.db}.${table} WHERE ts < {cutoff:DateTime64(3, 'UTC')}`,
      query_params: { cutoff },
    });
  }

  async tableSizes(): Promise<TableSize[]> {
    // Only this store's database, active parts (what the data occupies now), sizes as numbers.
    return this.select<TableSize>(
      `SELECT database, table, formatReadableSize(sum(bytes_on_disk)) AS totalSize,
  toInt64(sum(bytes_on_disk)) AS totalSizeBytes
FROM system.parts
WHERE database = {db:String} AND active
GROUP BY database, table
ORDER BY totalSizeBytes DESC, table`,
      { db: this.db },
    );
  }

  /**
   * A read of this store's tables for another module (the Kubernetes cost reads its rollups):
   * `{db}` in the query names the store's database.
   */
  async read<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    return this.select<T>(query.replaceAll('{db}', this.db), params);
  }

  /**
   * A statement without rows to answer (the Kubernetes cost's INSERT … SELECT of its per-day
   * sums), `{db}` as in read.
   */
  async run(statement: string, params: Record<string, unknown>): Promise<void> {
    await this.client.command({ query: statement.replaceAll('{db}', this.db), query_params: params });
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** Tables the store owns (for the operator documentation and tests). */
  static readonly tables = [...SAMPLE_TABLES, ...ROLLUP_TABLES, ...COST_DAY_TABLES, ...STATE_TABLES];
}

export const openClickHouseStore = (o: ClickHouseStoreOptions) => ClickHouseMetricsStore.open(o);
