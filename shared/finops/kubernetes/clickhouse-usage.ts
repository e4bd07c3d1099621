/**
 * The Kubernetes cost's usage source over the metrics service's ClickHouse store: node-hours from
 * its cost rollup `k8s_node_1h` (capacity with each node's provider id, pool and allocatable) and
 * container-hours from its hourly pod rollup `pod_1h` (usage with each container's node, requests,
 * owner and labels),
 * rightsizing samples from the raw samples averaged per 5 minutes (as the PostgreSQL store's
 * 5-minute rollup gives them).
 *
 * The hourly rule is the other sources': an hour's cycles are the most samples any node of the
 * cluster has in it; a node or container seen in fewer counts that part of the hour. ClickHouse
 * sums a month of a large cluster hour by hour in well under a second, so every node-hour is capped
 * exactly (no shortcut as on PostgreSQL).
 */
import type { ClickHouseMetricsStore } from '../../metrics/store/clickhouse/store.js';
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

export class ClickHouseUsageSource implements KubernetesUsageSource {
  constructor(private readonly store: Pick<ClickHouseMetricsStore, 'read'>) {}

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
    const start = new Date(`${from}T00:00:00Z`);
    const params = {
      cluster: clusterName.toLowerCase(),
      from: toCh(start),
      to: toCh(new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS)),
      ...(row.kind === 'label' ? { label: row.key } : {}),
    };
    const [classes, charges] = await Promise.all([
      this.store.read<SummedNodeRow>(classHoursSql, params),
      this.store.read<SummedChargeRow>(chargesSql(rowExpression(row), row), params),
    ]);
    const days = new SummedDays(start, row, new Map());
    for (const r of classes) days.nodeHours(r);
    for (const r of charges) days.charge(r);
    return days.out;
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
