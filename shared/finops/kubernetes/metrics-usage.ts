/**
 * The Kubernetes cost's usage source over the metrics service's PostgreSQL store: node-hours and
 * container-hours from its hourly rollups (`metrics.node_1h`, `metrics.pod_1h`) joined to the
 * series tables that hold each node's provider id, pool and allocatable and each container's
 * requests, owner and labels; rightsizing samples from the 5-minute rollups.
 *
 * Raw SQL because the rollup tables are partitioned tables outside Prisma's schema (the store
 * writes them with raw SQL too), and because a day of a large cluster is ~150,000 container-hours:
 * the rows come as arrays of numbers and short strings, not as Prisma models.
 *
 * The hourly rule (as the in-memory source's): a rollup row's `n` counts the agent's samples of
 * that node or container in the hour; the hour's cycles are the most samples any node of the
 * cluster has in it; a node or container seen in fewer cycles counts that part of the hour.
 */
import type { PrismaClient } from '../../db/client.js';
import { scaleSetOfProviderId } from './discover.js';
import type {
  AgentCluster,
  ContainerSamples,
  KubernetesUsageSource,
  RowKey,
  SummedDay,
  UsageContainerHour,
  UsageDay,
  UsageNodeHour,
} from './usage-source.js';

const DAY_MS = 86_400_000;

function workload(kind: string | null, name: string | null, pod: string): string {
  return kind && name ? `${kind}/${name}` : `Pod/${pod}`;
}

export class MetricsStoreUsageSource implements KubernetesUsageSource {
  constructor(private readonly prisma: PrismaClient) {}

  async clusters(): Promise<AgentCluster[]> {
    const rows = await this.prisma.$queryRawUnsafe<
      Array<{ clusterName: string; providerIds: Array<string | null>; firstSeen: Date; lastSeen: Date }>
    >(
      `SELECT "clusterName", array_agg(DISTINCT "providerId") AS "providerIds",
              min("firstSeenAt") AS "firstSeen", max("lastSeenAt") AS "lastSeen"
       FROM "MetricsNodeSeries" GROUP BY "clusterName" ORDER BY "clusterName"`,
    );
    return rows.map((r) => ({
      clusterName: r.clusterName,
      scaleSetIds: [
        ...new Set(r.providerIds.map((p) => scaleSetOfProviderId(p)).filter((s): s is string => !!s)),
      ],
      firstSeen: r.firstSeen,
      lastSeen: r.lastSeen,
    }));
  }

  /** The cluster's node-hours of a day, and the agent's cycles per hour (the most samples of any node). */
  private async nodeHours(
    cluster: string,
    start: Date,
    end: Date,
  ): Promise<{ nodeHours: UsageNodeHour[]; cycles: Map<number, number> }> {
    const nodes = await this.prisma.$queryRawUnsafe<
      Array<{
        h: number;
        node: string;
        providerId: string | null;
        pool: string | null;
        vmSize: string | null;
        n: number;
        cpuCap: number | null;
        memCap: number | null;
        cpuAlloc: number | null;
        memAlloc: number | null;
      }>
    >(
      `SELECT (extract(epoch FROM r.bucket - $2::timestamptz) / 3600)::int AS h, s."nodeName" AS node,
              max(s."providerId") AS "providerId", max(s."nodePool") AS pool, max(s."instanceType") AS "vmSize",
              sum(r.n)::int AS n,
              (sum(r.cpu_capacity_sum) / nullif(sum(r.cpu_capacity_n), 0))::float8 AS "cpuCap",
              (sum(r.mem_capacity_sum) / nullif(sum(r.mem_capacity_n), 0))::float8 AS "memCap",
              max(s."cpuAllocatableCores")::float8 AS "cpuAlloc", max(s."memoryAllocatableBytes")::float8 AS "memAlloc"
       FROM metrics.node_1h r JOIN "MetricsNodeSeries" s ON s.id = r.series_id
       WHERE s."clusterName" = $1 AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz
       GROUP BY 1, 2`,
      cluster,
      start.toISOString(),
      end.toISOString(),
    );
    const cycles = new Map<number, number>();
    for (const n of nodes) cycles.set(n.h, Math.max(cycles.get(n.h) ?? 0, n.n));
    const nodeHours: UsageNodeHour[] = nodes
      .filter((n) => n.cpuCap !== null && n.memCap !== null)
      .map((n) => ({
        hour: n.h,
        node: n.node,
        scaleSetId: scaleSetOfProviderId(n.providerId),
        pool: n.pool,
        vmSize: n.vmSize,
        cpuCapacityCores: n.cpuCap!,
        memoryCapacityBytes: n.memCap!,
        cpuAllocatableCores: n.cpuAlloc ?? n.cpuCap!,
        memoryAllocatableBytes: n.memAlloc ?? n.memCap!,
        seen: Math.min(1, n.n / (cycles.get(n.h) || 1)),
      }));
    return { nodeHours, cycles };
  }

  async summedDay(clusterName: string, day: string, row: RowKey): Promise<SummedDay> {
    const start = new Date(`${day}T00:00:00Z`);
    const end = new Date(start.getTime() + DAY_MS);
    const cluster = clusterName.toLowerCase();
    const { nodeHours } = await this.nodeHours(cluster, start, end);
    const params: unknown[] = [cluster, start.toISOString(), end.toISOString()];
    let rowSql: string;
    switch (row.kind) {
      case 'namespace':
        rowSql = 's.namespace';
        break;
      case 'workload':
        rowSql = `s.namespace || '/' || CASE WHEN nullif(s."ownerKind", '') IS NOT NULL AND nullif(s."ownerName", '') IS NOT NULL
                    THEN s."ownerKind" || '/' || s."ownerName" ELSE 'Pod/' || s.pod END`;
        break;
      case 'node':
        rowSql = 's."nodeName"';
        break;
      case 'day':
        rowSql = "''";
        break;
      case 'label':
        params.push(row.key);
        rowSql = `coalesce(s.labels ->> $4::text, '(none)')`;
        break;
    }
    // One statement does what the model does per container-hour: max(request, usage) times the
    // part of the hour seen, capped at the node-hour's allocatable; then it sums over the node-hours
    // of each pool and capacity, whose rates are the same, so only a few rows per day cross.
    const sums = await this.prisma.$queryRawUnsafe<
      Array<{
        pid: string | null;
        capCpu: number;
        capMem: number;
        namespace: string;
        row: string;
        cpu: number;
        mem: number;
      }>
    >(
      `WITH nodes AS (
         SELECT r.bucket, s."nodeName" AS node, max(s."providerId") AS pid, sum(r.n)::float8 AS n,
                sum(r.cpu_capacity_sum) / nullif(sum(r.cpu_capacity_n), 0) AS cap_cpu,
                sum(r.mem_capacity_sum) / nullif(sum(r.mem_capacity_n), 0) AS cap_mem,
                max(s."cpuAllocatableCores") AS alloc_cpu, max(s."memoryAllocatableBytes") AS alloc_mem
         FROM metrics.node_1h r JOIN "MetricsNodeSeries" s ON s.id = r.series_id
         WHERE s."clusterName" = $1 AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz
         GROUP BY 1, 2),
       cyc AS (SELECT bucket, max(n) AS c FROM nodes GROUP BY 1),
       seen AS (
         SELECT nd.*, least(1, nd.n / cyc.c) AS part FROM nodes nd JOIN cyc USING (bucket)
         WHERE nd.cap_cpu IS NOT NULL AND nd.cap_mem IS NOT NULL),
       pods AS (
         SELECT r.bucket, s."nodeName" AS node, s.namespace, ${rowSql} AS row,
                greatest(coalesce(s."cpuRequestCores", 0), coalesce(r.cpu_sum / nullif(r.cpu_n, 0), 0)) * least(1, r.n / cyc.c) AS cpu,
                greatest(coalesce(s."memoryRequestBytes", 0), coalesce(r.mem_sum / nullif(r.mem_n, 0), 0)) * least(1, r.n / cyc.c) AS mem
         FROM metrics.pod_1h r JOIN "MetricsPodSeries" s ON s.id = r.series_id JOIN cyc ON cyc.bucket = r.bucket
         WHERE s."clusterName" = $1 AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz
           AND s."nodeName" IS NOT NULL),
       tot AS (SELECT bucket, node, sum(cpu) AS cpu, sum(mem) AS mem FROM pods GROUP BY 1, 2)
       SELECT nd.pid, nd.cap_cpu::float8 AS "capCpu", nd.cap_mem::float8 AS "capMem", p.namespace, p.row,
              sum(p.cpu * CASE WHEN t.cpu > least(coalesce(nd.alloc_cpu, nd.cap_cpu), nd.cap_cpu) * nd.part
                               THEN least(coalesce(nd.alloc_cpu, nd.cap_cpu), nd.cap_cpu) * nd.part / t.cpu ELSE 1 END)::float8 AS cpu,
              sum(p.mem * CASE WHEN t.mem > least(coalesce(nd.alloc_mem, nd.cap_mem), nd.cap_mem) * nd.part
                               THEN least(coalesce(nd.alloc_mem, nd.cap_mem), nd.cap_mem) * nd.part / t.mem ELSE 1 END)::float8 AS mem
       FROM pods p JOIN seen nd ON nd.bucket = p.bucket AND nd.node = p.node
            JOIN tot t ON t.bucket = p.bucket AND t.node = p.node
       GROUP BY 1, 2, 3, 4, 5`,
      ...params,
    );
    // Each sum goes on one node-hour of its pool and capacity.
    const capKey = (scaleSet: string | null, cpu: number, mem: number) =>
      `${scaleSet ?? ''}|${Math.round(cpu * 1000)}|${Math.round(mem / 1048576)}`;
    const representative = new Map<string, UsageNodeHour>();
    for (const n of nodeHours) {
      const k = capKey(n.scaleSetId, n.cpuCapacityCores, n.memoryCapacityBytes);
      if (!representative.has(k)) representative.set(k, n);
    }
    const charges: SummedDay['charges'] = [];
    for (const r of sums) {
      const at = representative.get(capKey(scaleSetOfProviderId(r.pid), r.capCpu, r.capMem));
      if (!at) continue;
      charges.push({
        hour: at.hour,
        node: at.node,
        namespace: r.namespace,
        row: r.row,
        cpuCoreHours: r.cpu,
        memoryByteHours: r.mem,
      });
    }
    return { nodeHours, charges };
  }

  async day(clusterName: string, day: string): Promise<UsageDay> {
    const start = new Date(`${day}T00:00:00Z`);
    const end = new Date(start.getTime() + DAY_MS);
    const cluster = clusterName.toLowerCase();
    const { nodeHours, cycles } = await this.nodeHours(cluster, start, end);
    const pods = await this.prisma.$queryRawUnsafe<
      Array<{
        h: number;
        node: string;
        namespace: string;
        pod: string;
        container: string;
        ownerKind: string | null;
        ownerName: string | null;
        labels: Record<string, string> | null;
        cpuReq: number | null;
        memReq: number | null;
        n: number;
        cpu: number | null;
        mem: number | null;
      }>
    >(
      `SELECT (extract(epoch FROM r.bucket - $2::timestamptz) / 3600)::int AS h, s."nodeName" AS node,
              s.namespace, s.pod, s.container, s."ownerKind", s."ownerName", s.labels,
              s."cpuRequestCores"::float8 AS "cpuReq", s."memoryRequestBytes"::float8 AS "memReq", r.n,
              (r.cpu_sum / nullif(r.cpu_n, 0))::float8 AS cpu, (r.mem_sum / nullif(r.mem_n, 0))::float8 AS mem
       FROM metrics.pod_1h r JOIN "MetricsPodSeries" s ON s.id = r.series_id
       WHERE s."clusterName" = $1 AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz
         AND s."nodeName" IS NOT NULL`,
      cluster,
      start.toISOString(),
      end.toISOString(),
    );
    const containerHours: UsageContainerHour[] = [];
    for (const p of pods) {
      const c = cycles.get(p.h);
      if (!c) continue; // no node seen that hour
      containerHours.push({
        hour: p.h,
        node: p.node,
        namespace: p.namespace,
        workload: workload(p.ownerKind, p.ownerName, p.pod),
        container: p.container,
        labels: p.labels ?? {},
        cpuUsageCores: p.cpu ?? 0,
        memoryUsageBytes: p.mem ?? 0,
        cpuRequestCores: p.cpuReq,
        memoryRequestBytes: p.memReq,
        seen: Math.min(1, p.n / c),
      });
    }
    return { nodeHours, containerHours };
  }

  async containerSamples(
    clusterName: string,
    namespace: string | undefined,
    from: Date,
    to: Date,
  ): Promise<ContainerSamples[]> {
    const rows = await this.prisma.$queryRawUnsafe<
      Array<{
        namespace: string;
        pod: string;
        container: string;
        ownerKind: string | null;
        ownerName: string | null;
        cpuReq: number | null;
        memReq: number | null;
        reason: string | null;
        at: Date;
        cpu: number | null;
        mem: number | null;
        restarts: number;
      }>
    >(
      `SELECT s.namespace, s.pod, s.container, s."ownerKind", s."ownerName",
              s."cpuRequestCores"::float8 AS "cpuReq", s."memoryRequestBytes"::float8 AS "memReq",
              s."lastTerminationReason" AS reason, r.bucket AS at,
              (r.cpu_sum / nullif(r.cpu_n, 0))::float8 AS cpu, (r.mem_sum / nullif(r.mem_n, 0))::float8 AS mem,
              r.restarts
       FROM metrics.pod_5m r JOIN "MetricsPodSeries" s ON s.id = r.series_id
       WHERE s."clusterName" = $1 AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz
         AND ($4::text IS NULL OR s.namespace = $4::text)
       ORDER BY r.bucket`,
      clusterName.toLowerCase(),
      from.toISOString(),
      to.toISOString(),
      namespace ?? null,
    );
    const out = new Map<string, ContainerSamples & { pods: Map<string, number> }>();
    for (const r of rows) {
      const w = workload(r.ownerKind, r.ownerName, r.pod);
      const k = `${r.namespace}\u0000${w}\u0000${r.container}`;
      let e = out.get(k);
      if (!e) {
        e = {
          namespace: r.namespace,
          workload: w,
          container: r.container,
          cpuRequestCores: null,
          memoryRequestBytes: null,
          samples: [],
          oomKills: 0,
          restarts: 0,
          pods: new Map(),
        };
        out.set(k, e);
      }
      e.samples.push({ at: new Date(r.at).getTime(), cpuCores: r.cpu ?? 0, memoryBytes: r.mem ?? 0 });
      e.cpuRequestCores = r.cpuReq ?? e.cpuRequestCores;
      e.memoryRequestBytes = r.memReq ?? e.memoryRequestBytes;
      const prev = e.pods.get(r.pod);
      if (prev !== undefined && r.restarts > prev) {
        e.restarts += r.restarts - prev;
        if (r.reason === 'OOMKilled') e.oomKills += r.restarts - prev;
      }
      e.pods.set(r.pod, Math.max(prev ?? 0, r.restarts));
    }
    return [...out.values()].map(({ pods: _pods, ...rest }) => rest);
  }
}
