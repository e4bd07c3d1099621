/**
 * The Kubernetes cost's usage source over the metrics service's ClickHouse store: node-hours from
 * its cost rollup `k8s_node_1h` (capacity with each node's provider id, pool and allocatable) and
 * container-hours from its hourly pod rollup `pod_1h` (usage with each container's node, requests,
 * owner and labels),
 * rightsizing samples from the raw samples averaged per 5 minutes (as the PostgreSQL store's
 * 5-minute rollup gives them).
 *
 * The hourly rule is the other sources': an hour's cycles are the most samples any node of the
 * cluster has in it; a node or container seen in fewer counts that part of the hour. Every
 * node-hour is capped exactly (no shortcut as on PostgreSQL).
 *
 * Closed days are read from per-day sums the store keeps (cost_day and cost_class_hour, see the
 * store's schema.ts), summed here with the same SQL as the hourly read, on a day's first read or
 * ahead of it by the hourly housekeeping (prepareClosedDays); the open day from the hourly rollup.
 * The rules are the PostgreSQL store's (cost-days.ts) with one difference: pod_1h keeps each
 * container-hour's own node and requests, which a later sample never changes, so a day needs
 * summing again only when a batch lands in it (its late mark), and its charges can be stored
 * already capped.
 */
import type { ClickHouseMetricsStore } from '../../metrics/store/clickhouse/store.js';
import { periodChunks, prepareRecentClosedDays } from './closed-days.js';
import { scaleSetOfProviderId } from './discover.js';
import { type SummedChargeRow, SummedDays, type SummedNodeRow } from './summed-days.js';
import {
  type AgentCluster,
  type ContainerHourRow,
  type ContainerSamples,
  containerHourOf,
  containerSamplesOf,
  type KubernetesUsageSource,
  type NodeHourRow,
  nodeHourOf,
  type RowKey,
  type SampleRow,
  type SummedDay,
  type UsageDay,
} from './usage-source.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Days summed in one statement. Each statement scans the keys of the month's pod_1h (ordered by
 * container, then hour: a day's range skips no granule), so a day per statement cost a first
 * summing 2.5 times the CPU of a week per statement; a whole month in one ran past the client's
 * 30 s request timeout on a loaded 2-core machine (docs/benchmarks.md).
 */
const SUM_DAYS = 7;
const T = "DateTime('UTC')";

/** ClickHouse's `YYYY-MM-DD hh:mm:ss` (UTC) as a Date. */
const fromCh = (s: string) => new Date(`${s.replace(' ', 'T')}Z`);
/** A Date as a DateTime parameter. */
const toCh = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/** The scale set id in a provider id, as scaleSetOfProviderId reads it ('' when none). */
const SCALE_SET = `lower(extract(pid, '(?i)^azure://(/subscriptions/[^/]+/resourcegroups/[^/]+/providers/microsoft\\\\.compute/virtualmachinescalesets/[^/]+)'))`;

/**
 * Node-hours of from..to with the part of the hour seen (`part`), what their containers may take
 * at most (`lim_*`) and their class `kh` (a hash of scale set, pool, VM size, capacity and
 * allocatable: a number groups a month's container-hours faster than the text would).
 */
const NODE_HOURS = `nodes AS (
  SELECT bucket, node_name AS node, sum(samples) AS n, avgMerge(cpu_capacity_cores) AS cap_cpu,
         avgMerge(memory_capacity_bytes) AS cap_mem, argMaxMerge(provider_id) AS pid,
         nullIf(argMaxMerge(node_pool), '') AS pool, nullIf(argMaxMerge(instance_type), '') AS vm,
         argMaxMerge(cpu_allocatable_cores) AS alloc_cpu, argMaxMerge(memory_allocatable_bytes) AS alloc_mem
  FROM {db}.k8s_node_1h
  WHERE cluster = {cluster:String} AND bucket >= {from:${T}} AND bucket < {to:${T}}
  GROUP BY bucket, node_name),
cyc AS (SELECT bucket, max(n) AS c FROM nodes GROUP BY bucket),
nd AS (
  SELECT nodes.bucket AS bucket, nodes.node AS node, toInt32(dateDiff('hour', {from:${T}}, nodes.bucket)) AS h,
         cyc.c AS c, least(1, nodes.n / cyc.c) AS part, ${SCALE_SET} AS ss, nodes.pool AS pool, nodes.vm AS vm,
         nodes.cap_cpu AS cap_cpu, nodes.cap_mem AS cap_mem, nodes.alloc_cpu AS alloc_cpu, nodes.alloc_mem AS alloc_mem,
         least(ifNull(alloc_cpu, cap_cpu), cap_cpu) * part AS lim_cpu,
         least(ifNull(alloc_mem, cap_mem), cap_mem) * part AS lim_mem,
         cityHash64(ss, ifNull(pool, ''), ifNull(vm, ''), cap_cpu, cap_mem, ifNull(alloc_cpu, -1), ifNull(alloc_mem, -1)) AS kh
  FROM nodes INNER JOIN cyc ON cyc.bucket = nodes.bucket)`;

/**
 * Container-hours of from..to: usage averages, samples, node and requests, and (when asked for)
 * the owner and labels as last sampled in the hour. Read with FINAL, each row's states finalized:
 * ClickHouse merges the rows of a container-hour that background merges have not yet joined and
 * passes the others through, where a GROUP BY with -Merge combinators hashed every container-hour
 * of the period (a third of the CPU on a merged month, see docs/benchmarks.md). Rows of one
 * container-hour never sit in two partitions (the partition is the bucket's month), so FINAL
 * merges within partitions only.
 */
const podHours = (extra: { owner?: boolean; labels?: boolean }) => `pods AS (
  SELECT bucket, namespace, pod, container, samples AS n, finalizeAggregation(cpu_usage_cores) AS cpu,
         finalizeAggregation(memory_usage_bytes) AS mem, ifNull(finalizeAggregation(node_name), '') AS pnode,
         finalizeAggregation(cpu_request_cores) AS cpu_req,
         finalizeAggregation(memory_request_bytes) AS mem_req${
           extra.owner
             ? `,
         finalizeAggregation(owner_kind) AS owner_kind, finalizeAggregation(owner_name) AS owner_name`
             : ''
         }${extra.labels ? ', finalizeAggregation(labels) AS labels' : ''}
  FROM {db}.pod_1h FINAL
  WHERE cluster = {cluster:String} AND bucket >= {from:${T}} AND bucket < {to:${T}})`;

function rowExpression(row: RowKey): string {
  switch (row.kind) {
    case 'namespace':
      return 'p.namespace';
    case 'workload':
      return `concat(p.namespace, '/', if(p.owner_kind != '' AND p.owner_name != '',
                concat(p.owner_kind, '/', p.owner_name), concat('Pod/', p.pod)))`;
    case 'label':
      return `if(JSONHas(p.labels, {label:String}), JSONExtractString(p.labels, {label:String}), '(none)')`;
    case 'node':
    case 'day':
      return "''";
  }
}

/**
 * Each container-hour's max(request, usage) times the part seen, capped at its node-hour's
 * allocatable, per day, class and row. The container-hours are first summed per node-hour,
 * namespace and row (the cap scales a node-hour's containers alike, so it applies to their sum):
 * the join with the node-hours and the per-node-hour totals then work on those sums, tens of rows
 * per node-hour instead of one per container.
 */
const chargesSql = (rowSql: string, row: RowKey) => `WITH ${NODE_HOURS}, ${podHours({
  owner: row.kind === 'workload',
  labels: row.kind === 'label',
})},
px AS (
  SELECT p.bucket AS bucket, p.pnode AS node, p.namespace AS namespace, ${rowSql} AS row,
         sum(greatest(ifNull(p.cpu_req, 0), p.cpu) * least(1, p.n / cyc.c)) AS xc,
         sum(greatest(ifNull(p.mem_req, 0), p.mem) * least(1, p.n / cyc.c)) AS xm
  FROM pods AS p INNER JOIN cyc ON cyc.bucket = p.bucket
  GROUP BY bucket, node, namespace, row),
x AS (
  SELECT nd.h AS h, nd.node AS node, nd.kh AS kh, nd.lim_cpu AS lim_cpu, nd.lim_mem AS lim_mem,
         px.namespace AS namespace, px.row AS row, px.xc AS xc, px.xm AS xm
  FROM px INNER JOIN nd ON nd.bucket = px.bucket AND nd.node = px.node)
SELECT intDiv(h, 24) AS d, toString(kh) AS k, namespace, row,
       sum(xc * if(tc > lim_cpu, lim_cpu / tc, 1)) AS a, sum(xm * if(tm > lim_mem, lim_mem / tm, 1)) AS b
FROM (SELECT *, sum(xc) OVER (PARTITION BY h, node) AS tc, sum(xm) OVER (PARTITION BY h, node) AS tm FROM x)
GROUP BY d, kh, namespace, row`;

const classHoursSql = `WITH ${NODE_HOURS}
SELECT intDiv(h, 24) AS d, h, toString(kh) AS k, sum(part) AS a, any(ss) AS ss, any(pool) AS pool, any(vm) AS vm,
       any(cap_cpu) AS capCpu, any(cap_mem) AS capMem, any(alloc_cpu) AS allocCpu, any(alloc_mem) AS allocMem
FROM nd GROUP BY d, h, kh`;

/** The days being summed: those of {days} within {from}..{to} (the bounds keep the scan to their hours). */
const IN_DAYS = 'toDate(bucket) IN {days:Array(Date)}';

/**
 * Stores the charges of days {days} per day, class and container (with its owner and labels), each
 * container-hour capped at its node-hour's allocatable: chargesSql's arithmetic, grouped by container
 * instead of by row, so any row a read asks for is a sum of these.
 */
const FILL_CHARGES_SQL = `INSERT INTO {db}.cost_day (cluster, day, version, kh, namespace, pod, container, owner_kind,
  owner_name, labels, cpu, mem)
WITH ${NODE_HOURS}, ${podHours({ owner: true, labels: true })},
x AS (
  SELECT p.bucket AS bucket, nd.node AS node, nd.kh AS kh, nd.lim_cpu AS lim_cpu, nd.lim_mem AS lim_mem,
         p.namespace AS namespace, p.pod AS pod, p.container AS container, p.owner_kind AS owner_kind,
         p.owner_name AS owner_name, p.labels AS labels,
         greatest(ifNull(p.cpu_req, 0), p.cpu) * least(1, p.n / nd.c) AS xc,
         greatest(ifNull(p.mem_req, 0), p.mem) * least(1, p.n / nd.c) AS xm
  FROM pods AS p INNER JOIN nd ON nd.bucket = p.bucket AND nd.node = p.pnode
  WHERE toDate(p.bucket) IN {days:Array(Date)})
SELECT {cluster:String}, toDate(bucket) AS day, {version:DateTime64(3, 'UTC')}, kh, namespace, pod, container,
       owner_kind, owner_name, labels,
       sum(xc * if(tc > lim_cpu, lim_cpu / tc, 1)), sum(xm * if(tm > lim_mem, lim_mem / tm, 1))
FROM (SELECT *, sum(xc) OVER (PARTITION BY bucket, node) AS tc, sum(xm) OVER (PARTITION BY bucket, node) AS tm FROM x)
GROUP BY day, kh, namespace, pod, container, owner_kind, owner_name, labels`;

/** Stores the node-hours of days {days} per hour and class (classHoursSql's rows). */
const FILL_CLASSES_SQL = `INSERT INTO {db}.cost_class_hour (cluster, day, version, bucket, kh, part, ss, pool, vm,
  cap_cpu, cap_mem, alloc_cpu, alloc_mem)
WITH ${NODE_HOURS}
SELECT {cluster:String}, toDate(bucket), {version:DateTime64(3, 'UTC')}, bucket, kh, sum(part), any(ss), any(pool),
       any(vm), any(cap_cpu), any(cap_mem), any(alloc_cpu), any(alloc_mem)
FROM nd WHERE ${IN_DAYS} GROUP BY bucket, kh`;

/** Records days {days} summed at {version}: written after their rows, so a read never sees half a day. */
const MARK_SUMMED_SQL = `INSERT INTO {db}.cost_day_summed (cluster, day, version)
SELECT {cluster:String}, arrayJoin({days:Array(Date)}), {version:DateTime64(3, 'UTC')}`;

/** The period's days as stored: each day's latest summing. */
const SUMMED = `(day, version) IN (
  SELECT day, max(version) FROM {db}.cost_day_summed
  WHERE cluster = {cluster:String} AND day >= toDate({from:${T}}) AND day < toDate({to:${T}}) GROUP BY day)`;

const storedChargesSql = (
  rowSql: string,
) => `SELECT toInt32(dateDiff('day', toDate({from:${T}}), p.day)) AS d,
       toString(p.kh) AS k, p.namespace AS namespace, ${rowSql} AS row, sum(p.cpu) AS a, sum(p.mem) AS b
FROM {db}.cost_day AS p
WHERE p.cluster = {cluster:String} AND p.day >= toDate({from:${T}}) AND p.day < toDate({to:${T}}) AND ${SUMMED}
GROUP BY d, k, namespace, row`;

const storedClassesSql = `SELECT toInt32(dateDiff('day', toDate({from:${T}}), day)) AS d,
       toInt32(dateDiff('hour', {from:${T}}, bucket)) AS h, toString(kh) AS k, part AS a, ss, pool, vm,
       cap_cpu AS capCpu, cap_mem AS capMem, alloc_cpu AS allocCpu, alloc_mem AS allocMem
FROM {db}.cost_class_hour
WHERE cluster = {cluster:String} AND day >= toDate({from:${T}}) AND day < toDate({to:${T}}) AND ${SUMMED}`;

/** Each day's latest summing ('s') and latest late mark ('l'), as epoch milliseconds of the server's clock. */
const SUM_STATE_SQL = `SELECT 's' AS t, toString(day) AS ymd, toUnixTimestamp64Milli(max(version)) AS at
FROM {db}.cost_day_summed
WHERE cluster = {cluster:String} AND day >= toDate({from:${T}}) AND day < toDate({to:${T}}) GROUP BY day
UNION ALL
SELECT 'l', toString(day), toUnixTimestamp64Milli(max(marked_at))
FROM {db}.cost_day_late
WHERE cluster = {cluster:String} AND day >= toDate({from:${T}}) AND day < toDate({to:${T}}) GROUP BY day`;

/** The days of the period with node-hours, as 'YYYY-MM-DD'. */
const DAYS_WITH_NODES_SQL = `SELECT DISTINCT toString(toDate(bucket)) AS ymd FROM {db}.k8s_node_1h
WHERE cluster = {cluster:String} AND bucket >= {from:${T}} AND bucket < {to:${T}}`;

/** What a summing again leaves behind: the earlier summings of its days, and the marks it took in. */
const SUPERSEDED_SQL = [
  ...['cost_day', 'cost_class_hour', 'cost_day_summed'].map(
    (t) => `DELETE FROM {db}.${t}
WHERE cluster = {cluster:String} AND day IN {days:Array(Date)} AND version < {version:DateTime64(3, 'UTC')}`,
  ),
  `DELETE FROM {db}.cost_day_late
WHERE cluster = {cluster:String} AND day IN {days:Array(Date)} AND marked_at < {version:DateTime64(3, 'UTC')}`,
];

export interface ClickHouseUsageOptions {
  /** The clock that says which days are closed (read from stored per-day sums). */
  now?: () => Date;
}

export class ClickHouseUsageSource implements KubernetesUsageSource {
  private readonly now: () => Date;

  constructor(
    private readonly store: Pick<ClickHouseMetricsStore, 'read' | 'run'>,
    options: ClickHouseUsageOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async clusters(): Promise<AgentCluster[]> {
    const rows = await this.store.read<{
      clusterName: string;
      providerIds: string[];
      firstSeen: string;
      lastSeen: string;
    }>(
      `SELECT cluster AS clusterName, groupUniqArray(pid) AS providerIds, min(first) AS firstSeen, max(last) AS lastSeen
       FROM (SELECT cluster, node_name, nullIf(argMaxMerge(provider_id), '') AS pid, min(bucket) AS first, max(bucket) AS last
             FROM {db}.k8s_node_1h GROUP BY cluster, node_name)
       GROUP BY cluster ORDER BY cluster`,
      {},
    );
    return rows.map((r) => ({
      clusterName: r.clusterName,
      scaleSetIds: [
        ...new Set(r.providerIds.map((p) => scaleSetOfProviderId(p)).filter((s): s is string => !!s)),
      ],
      firstSeen: fromCh(r.firstSeen),
      // The last hour seen, to its end.
      lastSeen: new Date(fromCh(r.lastSeen).getTime() + HOUR_MS - 1),
    }));
  }

  async summedDays(
    clusterName: string,
    from: string,
    to: string,
    row: RowKey,
  ): Promise<Map<string, SummedDay>> {
    const out = new Map<string, SummedDay>();
    const cluster = clusterName.toLowerCase();
    // Closed days (closed-days.ts) come from their stored sums, the rest from the hourly rollup.
    for (const c of periodChunks(from, to, this.now())) {
      if (c.closed) {
        await this.sumClosedDays(cluster, c.start, c.end);
        await this.summedChunk(cluster, c.start, c.end, row, out, storedClassesSql, storedChargesSql);
      } else {
        await this.summedChunk(cluster, c.start, c.end, row, out, classHoursSql, (rowSql) =>
          chargesSql(rowSql, row),
        );
      }
    }
    return out;
  }

  /** The days of start..end read with the given statements, into `out`. */
  private async summedChunk(
    cluster: string,
    start: Date,
    end: Date,
    row: RowKey,
    out: Map<string, SummedDay>,
    classesSql: string,
    charges: (rowSql: string) => string,
  ): Promise<void> {
    const params = {
      cluster,
      from: toCh(start),
      to: toCh(end),
      ...(row.kind === 'label' ? { label: row.key } : {}),
    };
    const [classes, rows] = await Promise.all([
      this.store.read<SummedNodeRow>(classesSql, params),
      this.store.read<SummedChargeRow>(charges(rowExpression(row)), params),
    ]);
    const days = new SummedDays(start, row, out);
    for (const r of classes) days.nodeHours(r);
    for (const r of rows) days.charge(r);
  }

  /** The recent closed days' sums stored ahead of a read (PREPARED_DAYS in closed-days.ts). */
  prepareClosedDays(): Promise<Array<{ clusterName: string; days: string[] }>> {
    return prepareRecentClosedDays(this, this.now());
  }

  /**
   * Stores the per-day sums of the closed days of start..end (at most CHUNK_DAYS) that have none or
   * were marked late by a batch at or after their latest summing began. One pass over the hourly
   * rollups for all of them; the version is the server's clock when it begins, so a batch marking a
   * day after that (its samples perhaps missed) has the day summed again on the next read.
   */
  async sumClosedDays(cluster: string, start: Date, end: Date): Promise<string[]> {
    const bounds = { cluster, from: toCh(start), to: toCh(end) };
    const summed = new Map<string, number>();
    const late = new Map<string, number>();
    for (const r of await this.store.read<{ t: 's' | 'l'; ymd: string; at: number }>(SUM_STATE_SQL, bounds)) {
      (r.t === 's' ? summed : late).set(r.ymd, Number(r.at));
    }
    const days: string[] = [];
    for (let t = start.getTime(); t < end.getTime(); t += DAY_MS) {
      const day = new Date(t).toISOString().slice(0, 10);
      const at = summed.get(day);
      if (at === undefined || (late.get(day) ?? -1) >= at) days.push(day);
    }
    if (!days.length) return days;
    const [{ version }] = (await this.store.read<{ version: string }>(
      "SELECT toString(now64(3, 'UTC')) AS version",
      {},
    )) as [{ version: string }];
    // Days without node-hours have nothing to store (no container-hour is charged without its node).
    const withData = new Set(
      (await this.store.read<{ ymd: string }>(DAYS_WITH_NODES_SQL, bounds)).map((r) => r.ymd),
    );
    // A statement per SUM_DAYS days; a summing cut short keeps the days it finished.
    for (let i = 0; i < days.length; i += SUM_DAYS) {
      const some = days.slice(i, i + SUM_DAYS);
      const params = {
        cluster,
        from: toCh(new Date(`${some[0]}T00:00:00Z`)),
        to: toCh(new Date(Date.parse(`${some.at(-1)}T00:00:00Z`) + DAY_MS)),
        days: some,
        version,
      };
      if (some.some((d) => withData.has(d))) {
        await this.store.run(FILL_CHARGES_SQL, params);
        await this.store.run(FILL_CLASSES_SQL, params);
      }
      await this.store.run(MARK_SUMMED_SQL, params);
    }
    const again = days.filter((d) => summed.has(d));
    if (again.length) {
      for (const sql of SUPERSEDED_SQL) await this.store.run(sql, { cluster, days: again, version });
    }
    return days;
  }

  async day(clusterName: string, day: string): Promise<UsageDay> {
    const params = {
      cluster: clusterName.toLowerCase(),
      from: toCh(new Date(`${day}T00:00:00Z`)),
      to: toCh(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS)),
    };
    const [nodes, pods] = await Promise.all([
      this.store.read<Omit<NodeHourRow, 'seen'> & { part: number }>(
        `WITH ${NODE_HOURS}
         SELECT h, node, ss, pool, vm, part, cap_cpu AS capCpu, cap_mem AS capMem, alloc_cpu AS allocCpu, alloc_mem AS allocMem FROM nd`,
        params,
      ),
      this.store.read<ContainerHourRow>(
        `WITH ${NODE_HOURS}, ${podHours({ owner: true, labels: true })}
         SELECT nd.h AS h, nd.node AS node, p.namespace AS namespace, p.pod AS pod, p.container AS container,
                nullIf(p.owner_kind, '') AS ownerKind, nullIf(p.owner_name, '') AS ownerName,
                JSONExtract(p.labels, 'Map(String, String)') AS labels, p.cpu_req AS cpuReq, p.mem_req AS memReq,
                p.cpu AS cpu, p.mem AS mem, least(1, p.n / nd.c) AS seen
         FROM pods AS p INNER JOIN nd ON nd.bucket = p.bucket AND nd.node = p.pnode`,
        params,
      ),
    ]);
    return {
      nodeHours: nodes.map((n) => nodeHourOf({ ...n, seen: n.part })),
      containerHours: pods.map(containerHourOf),
    };
  }

  async containerSamples(
    clusterName: string,
    namespace: string | undefined,
    from: Date,
    to: Date,
  ): Promise<ContainerSamples[]> {
    const rows = await this.store.read<Omit<SampleRow, 'at'> & { at: string }>(
      `SELECT namespace, pod, container, toString(toStartOfFiveMinutes(ts)) AS at,
              argMax(owner_kind, ts) AS ownerKind, argMax(owner_name, ts) AS ownerName,
              argMax(CAST(cpu_request_cores, 'Nullable(Float64)'), ts) AS cpuRequestCores,
              argMax(CAST(memory_request_bytes, 'Nullable(Float64)'), ts) AS memoryRequestBytes,
              argMax(last_termination_reason, ts) AS lastTerminationReason,
              avg(toFloat64(cpu_usage_cores)) AS cpuCores, avg(toFloat64(memory_usage_bytes)) AS memoryBytes,
              max(restart_count) AS restarts
       FROM {db}.pod_raw
       WHERE cluster = {cluster:String} AND ts >= {from:DateTime64(3, 'UTC')} AND ts < {to:DateTime64(3, 'UTC')}
         AND ({namespace:String} = '' OR namespace = {namespace:String})
       GROUP BY namespace, pod, container, at
       ORDER BY at`,
      {
        cluster: clusterName.toLowerCase(),
        from,
        to,
        namespace: namespace ?? '',
      },
    );
    return containerSamplesOf(rows.map((r) => ({ ...r, at: fromCh(r.at).getTime() })));
  }
}
