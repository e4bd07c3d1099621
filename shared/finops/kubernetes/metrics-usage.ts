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
 *
 * Closed days are read from per-day sums the store keeps (metrics.cost_day and cost_node_hour, see
 * shared/metrics/store/postgres/cost-days.ts), summed here on a day's first read; the open day from
 * the hourly rollup. Both give the same rows.
 */
import type { PrismaClient } from '../../db/client.js';
import {
  CLEAR_DAYS_SQL,
  DAYS_TO_SUM_SQL,
  FILL_DAYS_SQL,
  UNMARK_DAYS_SQL,
} from '../../metrics/store/postgres/cost-days.js';
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
  nodeHourOf,
  type RowKey,
  type SummedDay,
  type UsageContainerHour,
  type UsageDay,
  type UsageNodeHour,
} from './usage-source.js';

const DAY_MS = 86_400_000;

/** A row of the summed read: 0 a class's charges of a day, 1 a class's node-hours of an hour, 2 a node-day to sum exactly. */
interface SummedRow {
  kind: 0 | 1 | 2;
  d: number;
  h: number | null;
  k: string | null;
  node: string | null;
  namespace: string | null;
  row: string | null;
  a: number | null;
  b: number | null;
  ss: string | null;
  pool: string | null;
  vm: string | null;
  capCpu: number | null;
  capMem: number | null;
  allocCpu: number | null;
  allocMem: number | null;
}

/** The answer's row of a container (series `s`); the node pool's is the class key, set after the read. */
function rowExpression(row: RowKey): string {
  switch (row.kind) {
    case 'namespace':
      return 's.namespace';
    case 'workload':
      return `s.namespace || '/' || CASE WHEN nullif(s."ownerKind", '') IS NOT NULL AND nullif(s."ownerName", '') IS NOT NULL
                THEN s."ownerKind" || '/' || s."ownerName" ELSE 'Pod/' || s.pod END`;
    case 'label':
      return `coalesce(s.labels ->> $4::text, '(none)')`;
    case 'node':
    case 'day':
      return "''";
  }
}

/** The scale set id in a provider id, as scaleSetOfProviderId reads it. */
const SCALE_SET_SQL = `lower(substring("providerId" FROM '(?i)^azure://(/subscriptions/[^/]+/resourcegroups/[^/]+/providers/microsoft\\.compute/virtualmachinescalesets/[^/]+)'))`;

/**
 * The node-hours of $2..$3 ($1 the cluster): each node's hour with the part of it seen (`part`,
 * against the agent's cycles of that hour: the most samples any node has in it), what its
 * containers may take at most (`lim_*`: its allocatable times the part seen) and its class `k`:
 * scale set, pool, VM size, capacity and allocatable, the things its rates depend on.
 */
const NODE_HOURS_SQL = `ns AS MATERIALIZED (
  SELECT id, "nodeName" AS node, "nodePool" AS pool, "instanceType" AS vm, ${SCALE_SET_SQL} AS ss,
         "cpuAllocatableCores" AS alloc_cpu, "memoryAllocatableBytes" AS alloc_mem
  FROM "MetricsNodeSeries" WHERE "clusterName" = $1),
nodes AS MATERIALIZED (
  SELECT r.bucket, ns.node, ns.pool, ns.vm, ns.ss, ns.alloc_cpu, ns.alloc_mem, r.n::float8 AS n,
         r.cpu_capacity_sum / nullif(r.cpu_capacity_n, 0) AS cap_cpu, r.mem_capacity_sum / nullif(r.mem_capacity_n, 0) AS cap_mem
  FROM metrics.node_1h r JOIN ns ON ns.id = r.series_id
  WHERE r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz),
cyc AS MATERIALIZED (
  SELECT bucket, max(n) AS c, (extract(epoch FROM bucket - $2::timestamptz) / 3600)::int AS h FROM nodes GROUP BY bucket),
nd AS MATERIALIZED (
  SELECT nodes.bucket, cyc.h, cyc.h / 24 AS d, cyc.c, nodes.node, nodes.ss, nodes.pool, nodes.vm,
         nodes.cap_cpu, nodes.cap_mem, nodes.alloc_cpu, nodes.alloc_mem, least(1, nodes.n / cyc.c) AS part,
         least(coalesce(alloc_cpu, cap_cpu), cap_cpu) * least(1, nodes.n / cyc.c) AS lim_cpu,
         least(coalesce(alloc_mem, cap_mem), cap_mem) * least(1, nodes.n / cyc.c) AS lim_mem,
         concat_ws('|', ss, pool, vm, cap_cpu, cap_mem, alloc_cpu, alloc_mem) AS k
  FROM nodes JOIN cyc USING (bucket) WHERE cap_cpu IS NOT NULL AND cap_mem IS NOT NULL)`;

/** A container-hour's charge: max(request, usage) times the part of the hour its samples cover. */
const CHARGE_SQL = (c: string) => ({
  cpu: `greatest(s."cpuRequestCores", r.cpu_sum / nullif(r.cpu_n, 0)) * least(1, r.n / ${c})`,
  mem: `greatest(s."memoryRequestBytes", r.mem_sum / nullif(r.mem_n, 0)) * least(1, r.n / ${c})`,
});

/**
 * The end of summedSql and storedSql: node-days whose node changed class within the day join the
 * node-days left to sum hour by hour (`bad`, opened by the caller), then the rows both answer: 0 a
 * class's charges of a day (from `g`'s per-day rows that `where` keeps, on node-days not in `bad`),
 * 1 a class's node-hours, 2 a node-day to sum exactly. `extraCtes` are CTEs `g` needs, if any.
 */
function classRowsSql(where: string, extraCtes?: string): string {
  return `SELECT d, node FROM nd GROUP BY 1, 2 HAVING min(k) <> max(k)),
dc AS (SELECT d, node, min(k) AS k FROM nd GROUP BY 1, 2)${extraCtes ? `,\n${extraCtes}` : ''}
SELECT 0 AS kind, g.d, NULL::int AS h, dc.k, NULL::text AS node, g.namespace, g.row,
       sum(g.cpu)::float8 AS a, sum(g.mem)::float8 AS b, NULL::text AS ss, NULL::text AS pool, NULL::text AS vm,
       NULL::float8 AS "capCpu", NULL::float8 AS "capMem", NULL::float8 AS "allocCpu", NULL::float8 AS "allocMem"
FROM g JOIN dc USING (d, node)
WHERE ${where} AND NOT EXISTS (SELECT 1 FROM bad WHERE bad.d = g.d AND bad.node = g.node)
GROUP BY 2, 4, 6, 7
UNION ALL
SELECT 1, d, h, k, NULL, NULL, NULL, sum(part)::float8, NULL, min(ss), min(pool), min(vm),
       min(cap_cpu)::float8, min(cap_mem)::float8, min(alloc_cpu)::float8, min(alloc_mem)::float8
FROM nd GROUP BY 2, 3, 4
UNION ALL
SELECT 2, d, NULL, NULL, node, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM bad`;
}

/**
 * The days of $2..$3 summed in one pass over the hourly rollup. The container-hours are first summed
 * per hour, sample count and unit (the containers of one node, namespace and row): the part of the
 * hour a container counts for depends on nothing else, so the 150,000 container-hours of a day become
 * a few thousand rows before anything is joined to them, and the scan splits over parallel workers.
 * Those are then grouped two ways at once: per node-hour (to find the node-hours whose containers ask
 * more than the allocatable, which the model caps) and per day, node and row. A node-day none of
 * whose hours is capped, and whose hours are all of one class, adds its per-day sums to its class as
 * they are; the others (rare: a node over its allocatable, or resized within the day) come back as
 * kind 2 to be summed hour by hour (exactSql). So the rows crossing to the process are a few per
 * class and row, not the ~150,000 container-hours of each day.
 */
function summedSql(rowSql: string): string {
  return `WITH ${NODE_HOURS_SQL},
p AS MATERIALIZED (
  SELECT r.bucket, r.n, s."nodeName" AS node, s.namespace, ${rowSql} AS row,
         sum(greatest(s."cpuRequestCores", r.cpu_sum / nullif(r.cpu_n, 0))) AS cpu,
         sum(greatest(s."memoryRequestBytes", r.mem_sum / nullif(r.mem_n, 0))) AS mem
  FROM metrics.pod_1h r JOIN "MetricsPodSeries" s ON s.id = r.series_id
  WHERE s."clusterName" = $1 AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz AND s."nodeName" IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5),
g AS MATERIALIZED (
  SELECT grouping(c.h) AS per_day, c.h, c.h / 24 AS d, p.node, p.namespace, p.row,
         sum(p.cpu * least(1, p.n / c.c)) AS cpu, sum(p.mem * least(1, p.n / c.c)) AS mem
  FROM p JOIN cyc c ON c.bucket = p.bucket
  GROUP BY GROUPING SETS ((2, 4), (3, 4, 5, 6))),
bad AS (
  SELECT g.h / 24 AS d, g.node FROM g LEFT JOIN nd ON nd.h = g.h AND nd.node = g.node
  WHERE g.per_day = 0 AND (nd.node IS NULL OR g.cpu > nd.lim_cpu OR g.mem > nd.lim_mem)
  UNION
  ${classRowsSql('g.per_day = 1')}`;
}

/**
 * The node-days summedSql left out ($n+1 their day numbers, $n+2 their nodes), hour by hour: each
 * container-hour's charge, capped at its node-hour's allocatable (in proportion, when its
 * containers together ask more), summed per day, class and row.
 */
function exactSql(rowSql: string, n: number): string {
  const x = CHARGE_SQL('nd.c');
  return `WITH ${NODE_HOURS_SQL},
b AS (SELECT * FROM unnest($${n + 1}::int[], $${n + 2}::text[]) AS b(d, node)),
x AS MATERIALIZED (
  SELECT nd.d, nd.k, nd.h, nd.node, nd.lim_cpu, nd.lim_mem, s.namespace, ${rowSql} AS row, ${x.cpu} AS cpu, ${x.mem} AS mem
  FROM b JOIN "MetricsPodSeries" s ON s."clusterName" = $1 AND s."nodeName" = b.node
       JOIN metrics.pod_1h r ON r.series_id = s.id AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz
            AND r.bucket >= $2::timestamptz + b.d * interval '1 day' AND r.bucket < $2::timestamptz + (b.d + 1) * interval '1 day'
       JOIN nd ON nd.bucket = r.bucket AND nd.node = b.node),
t AS (SELECT h, node, sum(cpu) AS cpu, sum(mem) AS mem FROM x GROUP BY 1, 2)
SELECT 0 AS kind, x.d, x.k, x.namespace, x.row,
       sum(x.cpu * CASE WHEN t.cpu > x.lim_cpu THEN x.lim_cpu / t.cpu ELSE 1 END)::float8 AS a,
       sum(x.mem * CASE WHEN t.mem > x.lim_mem THEN x.lim_mem / t.mem ELSE 1 END)::float8 AS b
FROM x JOIN t USING (h, node) GROUP BY 2, 3, 4, 5`;
}

/**
 * The closed days of $2..$3 from their stored sums (metrics.cost_day, per day and container, and
 * metrics.cost_node_hour, per hour and node: see cost-days.ts), in the same rows as summedSql: the
 * per-day sums are grouped per day, node and row with the series' node, namespace, owner and labels
 * as they are now, and the node-hours' totals are compared with the allocatable as summedSql
 * compares its per-node-hour group. A month of 6,000 containers is 180,000 rows instead of 4.32 million.
 */
function storedSql(rowSql: string): string {
  return `WITH ${NODE_HOURS_SQL},
t AS (
  SELECT (extract(epoch FROM bucket - $2::timestamptz) / 3600)::int AS h, node, cpu, mem FROM metrics.cost_node_hour
  WHERE cluster = $1 AND bucket >= $2::timestamptz AND bucket < $3::timestamptz),
bad AS (
  SELECT t.h / 24 AS d, t.node FROM t LEFT JOIN nd ON nd.h = t.h AND nd.node = t.node
  WHERE nd.node IS NULL OR t.cpu > nd.lim_cpu OR t.mem > nd.lim_mem
  UNION
  ${classRowsSql(
    'true',
    `g AS MATERIALIZED (
  SELECT c.day - ($2::timestamptz AT TIME ZONE 'UTC')::date AS d, s."nodeName" AS node, s.namespace, ${rowSql} AS row,
         sum(c.cpu) AS cpu, sum(c.mem) AS mem
  FROM metrics.cost_day c JOIN "MetricsPodSeries" s ON s.id = c.series_id
  WHERE c.cluster = $1 AND c.day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND c.day < ($3::timestamptz AT TIME ZONE 'UTC')::date
    AND s."nodeName" IS NOT NULL
  GROUP BY 1, 2, 3, 4)`,
  )}`;
}

export interface MetricsStoreUsageOptions {
  /** The clock that says which days are closed (read from stored per-day sums). */
  now?: () => Date;
}

export class MetricsStoreUsageSource implements KubernetesUsageSource {
  private readonly now: () => Date;

  constructor(
    private readonly prisma: PrismaClient,
    options: MetricsStoreUsageOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

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
      .map((n) =>
        nodeHourOf({
          h: n.h,
          node: n.node,
          ss: scaleSetOfProviderId(n.providerId),
          pool: n.pool,
          vm: n.vmSize,
          capCpu: n.cpuCap!,
          capMem: n.memCap!,
          allocCpu: n.cpuAlloc,
          allocMem: n.memAlloc,
          seen: Math.min(1, n.n / (cycles.get(n.h) || 1)),
        }),
      );
    return { nodeHours, cycles };
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
      if (c.closed) await this.sumClosedDays(cluster, c.start, c.end);
      await this.summedChunk(cluster, c.start, c.end, row, out, c.closed ? storedSql : summedSql);
    }
    return out;
  }

  /** The recent closed days' sums stored ahead of a read (PREPARED_DAYS in closed-days.ts). */
  prepareClosedDays(): Promise<Array<{ clusterName: string; days: string[] }>> {
    return prepareRecentClosedDays(this, this.now());
  }

  /**
   * Stores the per-day sums of the closed days of start..end (at most CHUNK_DAYS) that have none,
   * were marked late by a batch, or were summed with a container's node or requests that have
   * changed since. One pass over the hourly rollup for all of them.
   */
  async sumClosedDays(cluster: string, start: Date, end: Date): Promise<string[]> {
    const bounds = [cluster, start.toISOString(), end.toISOString()];
    const days = (await this.prisma.$queryRawUnsafe<Array<{ day: string }>>(DAYS_TO_SUM_SQL, ...bounds)).map(
      (d) => d.day,
    );
    if (!days.length) return days;
    // Unmarked first, in its own statement: a batch marking one of these days after this is summed
    // again on the next read; one that marked it before is in the pass below (see markLateDays).
    await this.prisma.$executeRawUnsafe(UNMARK_DAYS_SQL, cluster, days);
    const from = new Date(`${days[0]}T00:00:00Z`);
    const to = new Date(Date.parse(`${days[days.length - 1]}T00:00:00Z`) + DAY_MS);
    await this.prisma.$transaction(
      async (tx) => {
        await this.readSettings(tx, true);
        // Two reads summing the same cluster at once would insert the same keys: one waits.
        await tx.$queryRawUnsafe(
          `SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext('finwatch.cost_day'), hashtext($1::text))`,
          cluster,
        );
        for (const sql of CLEAR_DAYS_SQL) await tx.$executeRawUnsafe(sql, cluster, days);
        await tx.$queryRawUnsafe(FILL_DAYS_SQL, cluster, from.toISOString(), to.toISOString(), days);
      },
      { timeout: 600_000, maxWait: 30_000 },
    );
    return days;
  }

  /** The days of start..end (at most CHUNK_DAYS) summed, into `out`. */
  private async summedChunk(
    cluster: string,
    start: Date,
    end: Date,
    row: RowKey,
    out: Map<string, SummedDay>,
    sql: (rowSql: string) => string,
  ): Promise<void> {
    const params: unknown[] = [cluster, start.toISOString(), end.toISOString()];
    if (row.kind === 'label') params.push(row.key);
    const rowSql = rowExpression(row);
    const days = new SummedDays(start, row, out);
    const rows = await this.inTransaction<SummedRow>(sql(rowSql), params, { wholePeriod: true });
    const exact: Array<[number, string]> = [];
    for (const r of rows) {
      if (r.kind === 1) days.nodeHours(r as SummedNodeRow);
      else if (r.kind === 2) exact.push([r.d, r.node!]);
    }
    for (const r of rows) if (r.kind === 0) days.charge(r as SummedChargeRow);
    if (exact.length > 0) {
      const exactRows = await this.inTransaction<SummedChargeRow>(exactSql(rowSql, params.length), [
        ...params,
        exact.map(([d]) => d),
        exact.map(([, n]) => n),
      ]);
      for (const r of exactRows) days.charge(r);
    }
  }

  /**
   * Runs one read with room for its hash tables (the day's node-hours and per-node sums: tens of
   * MB for a month of a large cluster, which PostgreSQL's default 4 MB would spill to disk) and
   * without JIT compilation (its cost estimate of a month's rows turns JIT on, and compiling took
   * longer than the rows: 2.4 s measured).
   *
   * A read of the whole period (`wholePeriod`) also turns nested loops off: it reads every rollup row
   * of the period anyway, but when the series tables' statistics lag behind the cluster (a cluster
   * first seen, or grown since the last ANALYZE) the planner thinks a handful of containers match and
   * looks each one up in the rollup's (series, bucket) key: the rollup is stored in time order, so
   * that reads each of its pages dozens of times (a month of 6,000 containers: 56 s against 20 s
   * with hash joins, measured at load 16 on 2 cores).
   *
   * It also turns sorts off, for the same lagging statistics: thinking a few thousand rows come
   * out of the join, the planner groups the period's container-hours (per hour, node, namespace
   * and row) by sorting them, and the sort of a month's 4.32 million rows spills hundreds of MB to
   * disk. Grouping them in a hash table instead (403,200 groups, ~80 MB: hash tables may use twice
   * work_mem) took the statement from 24.7-26.4 s to 16.4-19.0 s, old and new run alternately at
   * load 15-16 on 2 cores. Grouping by integer ids in the scan instead of the text keys was
   * measured too and saved nothing once the sort was gone.
   */
  private async inTransaction<T>(
    sql: string,
    params: unknown[],
    opts: { wholePeriod?: boolean } = {},
  ): Promise<T[]> {
    return this.prisma.$transaction(
      async (tx) => {
        await this.readSettings(tx, !!opts.wholePeriod);
        return tx.$queryRawUnsafe<T[]>(sql, ...params);
      },
      // A year of a large cluster is a minute's reading on a busy server.
      { timeout: 600_000, maxWait: 30_000 },
    );
  }

  /** The transaction's settings for a read (see inTransaction). */
  private async readSettings(
    tx: Pick<PrismaClient, '$executeRawUnsafe'>,
    wholePeriod: boolean,
  ): Promise<void> {
    await tx.$executeRawUnsafe(`SET LOCAL work_mem = '64MB'`);
    await tx.$executeRawUnsafe('SET LOCAL jit = off');
    if (wholePeriod) {
      await tx.$executeRawUnsafe('SET LOCAL enable_nestloop = off');
      await tx.$executeRawUnsafe('SET LOCAL enable_sort = off');
    }
  }

  async day(clusterName: string, day: string): Promise<UsageDay> {
    const start = new Date(`${day}T00:00:00Z`);
    const end = new Date(start.getTime() + DAY_MS);
    const cluster = clusterName.toLowerCase();
    const { nodeHours, cycles } = await this.nodeHours(cluster, start, end);
    const pods = await this.prisma.$queryRawUnsafe<Array<Omit<ContainerHourRow, 'seen'> & { n: number }>>(
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
      containerHours.push(containerHourOf({ ...p, seen: Math.min(1, p.n / c) }));
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
    return containerSamplesOf(
      rows.map((r) => ({
        ...r,
        cpuRequestCores: r.cpuReq,
        memoryRequestBytes: r.memReq,
        lastTerminationReason: r.reason,
        at: new Date(r.at).getTime(),
        cpuCores: r.cpu ?? 0,
        memoryBytes: r.mem ?? 0,
      })),
    );
  }
}
