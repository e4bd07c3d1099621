/**
 * The Kubernetes cost's usage source over the metrics service's ClickHouse store: node-hours and
 * container-hours from its cost rollups (`k8s_node_1h`, `k8s_pod_1h`: usage with each node's
 * provider id, pool and allocatable and each container's node, requests, owner and labels),
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
const SCALE_SET = `lower(extract(ifNull(a.1, ''), '(?i)^azure://(/subscriptions/[^/]+/resourcegroups/[^/]+/providers/microsoft\\\\.compute/virtualmachinescalesets/[^/]+)'))`;

/**
 * Node-hours of from..to with the part of the hour seen (`part`), what their containers may take
 * at most (`lim_*`) and their class `kh` (a hash of scale set, pool, VM size, capacity and
 * allocatable: a number groups a month's container-hours faster than the text would).
 */
const NODE_HOURS = `nodes AS (
  SELECT bucket, node_name AS node, sum(samples) AS n, avgMerge(cpu_capacity_cores) AS cap_cpu,
         avgMerge(memory_capacity_bytes) AS cap_mem, argMaxMerge(attrs) AS a
  FROM {db}.k8s_node_1h
  WHERE cluster = {cluster:String} AND bucket >= {from:${T}} AND bucket < {to:${T}}
  GROUP BY bucket, node_name),
cyc AS (SELECT bucket, max(n) AS c FROM nodes GROUP BY bucket),
nd AS (
  SELECT nodes.bucket AS bucket, nodes.node AS node, toInt32(dateDiff('hour', {from:${T}}, nodes.bucket)) AS h,
         cyc.c AS c, least(1, nodes.n / cyc.c) AS part, ${SCALE_SET} AS ss, a.2 AS pool, a.3 AS vm,
         nodes.cap_cpu AS cap_cpu, nodes.cap_mem AS cap_mem, a.4 AS alloc_cpu, a.5 AS alloc_mem,
         least(ifNull(alloc_cpu, cap_cpu), cap_cpu) * part AS lim_cpu,
         least(ifNull(alloc_mem, cap_mem), cap_mem) * part AS lim_mem,
         cityHash64(ss, ifNull(pool, ''), ifNull(vm, ''), cap_cpu, cap_mem, ifNull(alloc_cpu, -1), ifNull(alloc_mem, -1)) AS kh
  FROM nodes INNER JOIN cyc ON cyc.bucket = nodes.bucket)`;

/** Container-hours of from..to: usage averages, samples, and the requests, owner and labels as last sampled in the hour. */
const POD_HOURS = `pods AS (
  SELECT bucket, namespace, pod, container, sum(samples) AS n, avgMerge(cpu_usage_cores) AS cpu,
         avgMerge(memory_usage_bytes) AS mem, argMaxMerge(spec) AS sp, ifNull(sp.1, '') AS pnode
  FROM {db}.k8s_pod_1h
  WHERE cluster = {cluster:String} AND bucket >= {from:${T}} AND bucket < {to:${T}}
  GROUP BY namespace, pod, container, bucket)`;

function rowExpression(row: RowKey): string {
  switch (row.kind) {
    case 'namespace':
      return 'p.namespace';
    case 'workload':
      return `concat(p.namespace, '/', if(ifNull(p.sp.4, '') != '' AND ifNull(p.sp.5, '') != '',
                concat(p.sp.4, '/', p.sp.5), concat('Pod/', p.pod)))`;
    case 'label':
      return `if(mapContains(p.sp.6, {label:String}), p.sp.6[{label:String}], '(none)')`;
    case 'node':
    case 'day':
      return "''";
  }
}

/** Each container-hour's max(request, usage) times the part seen, capped at its node-hour's allocatable, per day, class and row. */
const chargesSql = (rowSql: string) => `WITH ${NODE_HOURS}, ${POD_HOURS},
x AS (
  SELECT nd.h AS h, nd.node AS node, nd.kh AS kh, nd.lim_cpu AS lim_cpu, nd.lim_mem AS lim_mem,
         p.namespace AS namespace, ${rowSql} AS row,
         greatest(ifNull(p.sp.2, 0), p.cpu) * least(1, p.n / nd.c) AS xc,
         greatest(ifNull(p.sp.3, 0), p.mem) * least(1, p.n / nd.c) AS xm
  FROM pods AS p INNER JOIN nd ON nd.bucket = p.bucket AND nd.node = p.pnode)
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
       FROM (SELECT cluster, node_name, argMaxMerge(attrs).1 AS pid, min(bucket) AS first, max(bucket) AS last
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
      this.store.read<SummedChargeRow>(chargesSql(rowExpression(row)), params),
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
        `WITH ${NODE_HOURS}, ${POD_HOURS}
         SELECT nd.h AS h, nd.node AS node, p.namespace AS namespace, p.pod AS pod, p.container AS container,
                p.sp.4 AS ownerKind, p.sp.5 AS ownerName, p.sp.6 AS labels, p.sp.2 AS cpuReq, p.sp.3 AS memReq,
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
