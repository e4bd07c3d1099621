/**
 * Kubernetes cost for the routes: which clusters there are (the agent's, the bill's, tied through
 * the nodes' provider ids), who may see them, and the allocation of a cluster over a period from
 * its stored bill and the agent's usage.
 */
import type { Caller } from '../../auth/caller.js';
import type { PrismaClient } from '../../db/client.js';
import { agentIdentity, clusterScope, seesCluster } from '../../metrics/access.js';
import {
  type AllocationDay,
  type AllocationResult,
  Allocator,
  type ContainerHour,
  chargesOf,
  DEFAULT_CPU_PER_CORE_HOUR,
  DEFAULT_RAM_PER_GIB_HOUR,
  type DiskBill,
  type PoolBill,
} from './allocation.js';
import {
  type BillRow,
  billCurrency,
  billRows,
  listBilledClusters,
  type StoredCluster,
} from './bill-store.js';
import { TIER_HOURLY_RATE } from './prices.js';
import { BUILT_IN_RATES, type RetailRates } from './retail-rates.js';
import { type PoolRate, type Recommendation, recommend } from './rightsizing.js';
import type { AgentCluster, KubernetesUsageSource, RowKey, UsageContainerHour } from './usage-source.js';

export type Aggregate =
  | { kind: 'namespace' }
  | { kind: 'workload' }
  | { kind: 'nodepool' }
  | { kind: 'day' }
  | { kind: 'label'; key: string };

export type CostType = 'ActualCost' | 'AmortizedCost';

/** Azure closes a day's bill about 48 hours after the day ends; before that, days are estimated. */
export const BILL_CLOSE_HOURS = 48;

export interface KnownCluster {
  /** The agent's cluster name, or the managed cluster's name when no agent reports it. */
  clusterName: string;
  agent: AgentCluster | null;
  managed: StoredCluster | null;
}

/** The agent's clusters and the bill's, tied by the scale sets their nodes run in. */
export async function knownClusters(
  prisma: PrismaClient,
  usage: KubernetesUsageSource,
): Promise<KnownCluster[]> {
  const [agents, managed] = await Promise.all([usage.clusters(), listBilledClusters(prisma)]);
  const byScaleSet = new Map<string, StoredCluster>();
  for (const m of managed) for (const p of m.pools) byScaleSet.set(p.scaleSetId.toLowerCase(), m);
  const tied = new Set<string>();
  const out: KnownCluster[] = [];
  for (const a of agents) {
    const m = a.scaleSetIds.map((s) => byScaleSet.get(s.toLowerCase())).find((x) => x !== undefined) ?? null;
    if (m) tied.add(m.id);
    out.push({ clusterName: a.clusterName, agent: a, managed: m });
  }
  // A cluster only the bill knows goes by its managed cluster's name; where two subscriptions (or an
  // agent) use that name, the subscription id tells them apart.
  const taken = new Set(out.map((c) => c.clusterName));
  const untied = managed.filter((m) => !tied.has(m.id));
  for (const m of untied) {
    let name = m.name.toLowerCase();
    if (taken.has(name) || untied.some((o) => o !== m && o.name.toLowerCase() === name)) {
      name = `${name}.${m.subscriptionId}`;
    }
    taken.add(name);
    out.push({ clusterName: name, agent: null, managed: m });
  }
  return out.sort((a, b) => a.clusterName.localeCompare(b.clusterName));
}

/** The clusters a caller may see, by the rule the metrics API applies too (shared/metrics/access.ts). */
export async function visibleClusters(
  prisma: PrismaClient,
  caller: Caller,
  clusters: KnownCluster[],
): Promise<KnownCluster[]> {
  const scope = await clusterScope(prisma, caller);
  return clusters.filter((c) => {
    const agent = c.agent ? agentIdentity(c.agent) : { names: [], subscriptionIds: [] };
    return seesCluster(scope, {
      names: [c.clusterName, ...agent.names],
      subscriptionIds: [c.managed?.subscriptionId, ...agent.subscriptionIds],
    });
  });
}

export interface AllocationRequest {
  cluster: KnownCluster;
  from: string;
  to: string;
  aggregate: Aggregate;
  costType: CostType;
  sharedNamespaces: string[];
  shareMode: 'weighted' | 'even';
  now: Date;
  /** Keep each day's rows (anomaly detection's daily series). */
  keepDayRows?: boolean;
  /** Prices of the node sizes on estimated days (default: the built-in USD table). */
  retail?: RetailRates;
}

export interface AllocationAnswer extends AllocationResult {
  currency: string | null;
  costType: CostType;
  /**
   * Where the estimated days' node-hours were priced: `retail-api` (the Azure Retail Prices API, in
   * the bill's currency), `built-in-usd` (the API could not be reached), null (no estimated day).
   */
  estimatedPrices: 'retail-api' | 'built-in-usd' | null;
  /** With `keepDayRows`: each day's rows, in cents. */
  dayRows?: Map<string, Map<string, number>>;
}

const DAY_MS = 86_400_000;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    out.push(ymd(t));
  return out;
}

function rowOf(
  aggregate: Aggregate,
  c: UsageContainerHour,
  day: string,
  poolOfNode: Map<string, string>,
): string {
  switch (aggregate.kind) {
    case 'namespace':
      return c.namespace;
    case 'workload':
      return `${c.namespace}/${c.workload}`;
    case 'nodepool':
      return poolOfNode.get(c.node) ?? '(unknown pool)';
    case 'day':
      return day;
    case 'label':
      return c.labels[aggregate.key] ?? '(none)';
  }
}

function diskRow(aggregate: Aggregate, namespace: string, claim: string, day: string): string {
  switch (aggregate.kind) {
    case 'namespace':
      return namespace;
    case 'workload':
      return `${namespace}/PersistentVolumeClaim/${claim}`;
    case 'nodepool':
      return '(disks)';
    case 'day':
      return day;
    case 'label':
      return '(none)';
  }
}

/** Allocates the cluster's cost day by day (one day of usage in memory at a time). */
export async function allocateCluster(
  prisma: PrismaClient,
  usage: KubernetesUsageSource,
  req: AllocationRequest,
): Promise<AllocationAnswer> {
  const m = req.cluster.managed;
  const bill = m ? await billRows(prisma, m.id, req.from, req.to) : [];
  const billByDay = new Map<string, BillRow[]>();
  for (const r of bill) {
    const list = billByDay.get(r.day);
    if (list) list.push(r);
    else billByDay.set(r.day, [r]);
  }
  // The last billed cost of each disk and network resource: what an estimated day carries forward.
  const lastDaily = new Map<string, BillRow>();
  for (const r of bill) if (r.kind !== 'pool') lastDaily.set(r.resourceId, r);
  // A period of estimated days only has no bill rows: the currency is the cluster's last collected.
  const currency = bill[0]?.currency ?? (m ? await billCurrency(prisma, m.id) : null);
  const retail = req.retail ?? BUILT_IN_RATES;
  const rateOf = new Map<string, Promise<{ hourly: number; source: 'api' | 'built-in' }>>();
  const retailRate = (vmSize: string | null) => {
    const key = vmSize?.toLowerCase() ?? '';
    let r = rateOf.get(key);
    if (!r) {
      r = retail(vmSize, m?.location ?? '', currency ?? 'USD');
      rateOf.set(key, r);
    }
    return r;
  };
  let estimatedPrices: AllocationAnswer['estimatedPrices'] = null;
  const poolName = new Map((m?.pools ?? []).map((p) => [p.scaleSetId.toLowerCase(), p.name]));
  const poolSize = new Map((m?.pools ?? []).map((p) => [p.scaleSetId.toLowerCase(), p.vmSize]));
  const claims = new Map((m?.disks ?? []).map((d) => [d.id.toLowerCase(), d]));
  const cost = (r: BillRow) => (req.costType === 'AmortizedCost' ? r.amortizedCost : r.actualCost);
  const allocator = new Allocator(
    { sharedNamespaces: req.sharedNamespaces, shareMode: req.shareMode },
    req.keepDayRows ?? false,
  );
  const agentName = req.cluster.agent?.clusterName;
  const rowKey: RowKey =
    req.aggregate.kind === 'nodepool'
      ? { kind: 'node' }
      : req.aggregate.kind === 'label'
        ? { kind: 'label', key: req.aggregate.key }
        : { kind: req.aggregate.kind };
  // A source that sums in the database answers the period in a few rows per day; otherwise each day
  // comes as its container-hours.
  const summedDays =
    agentName && usage.summedDays ? await usage.summedDays(agentName, req.from, req.to, rowKey) : undefined;
  for (const day of daysOf(req.from, req.to)) {
    const summed = summedDays ? (summedDays.get(day) ?? { nodeHours: [], charges: [] }) : undefined;
    const u = summed
      ? { nodeHours: summed.nodeHours, containerHours: [] }
      : agentName
        ? await usage.day(agentName, day)
        : { nodeHours: [], containerHours: [] };
    const rows = billByDay.get(day);
    const closed =
      m !== null &&
      Date.parse(`${day}T00:00:00Z`) + DAY_MS + BILL_CLOSE_HOURS * 3_600_000 <= m.collectedAt.getTime();
    const billed = rows !== undefined && rows.length > 0 && closed;
    if (!billed && u.nodeHours.length === 0) continue;
    const poolOfNode = new Map<string, string>();
    for (const n of u.nodeHours) {
      poolOfNode.set(n.node, (n.scaleSetId && poolName.get(n.scaleSetId)) || n.pool || '(unknown pool)');
    }
    const disks: DiskBill[] = [];
    const diskOf = (resourceId: string, amount: number) => {
      const c = claims.get(resourceId);
      const ns = c?.namespace ?? null;
      disks.push({
        resourceId,
        cost: amount,
        namespace: ns,
        row: ns !== null && c?.claim ? diskRow(req.aggregate, ns, c.claim, day) : null,
      });
    };
    let pools: PoolBill[] = [];
    let clusterCost = 0;
    let networkCost = 0;
    if (billed) {
      for (const r of rows!) {
        if (r.kind === 'pool') {
          pools.push({
            poolId: r.resourceId,
            poolName: poolName.get(r.resourceId) ?? r.resourceId,
            cost: cost(r),
            billedHours: r.quantity,
          });
        } else if (r.kind === 'cluster') clusterCost += cost(r);
        else if (r.kind === 'disk') diskOf(r.resourceId, cost(r));
        else networkCost += cost(r);
      }
    } else {
      // Estimated: the node-hours seen at retail rates, the tier's rate, disks and network as last billed.
      const seen = new Map<string, number>();
      for (const n of u.nodeHours)
        if (n.scaleSetId) seen.set(n.scaleSetId, (seen.get(n.scaleSetId) ?? 0) + n.seen);
      const sizeSeen = new Map<string, string | null>();
      for (const n of u.nodeHours) if (n.scaleSetId) sizeSeen.set(n.scaleSetId, n.vmSize);
      pools = [];
      for (const [poolId, hours] of seen) {
        const rate = await retailRate(poolSize.get(poolId) ?? sizeSeen.get(poolId) ?? null);
        if (rate.source === 'built-in' || estimatedPrices === null)
          estimatedPrices = rate.source === 'api' ? 'retail-api' : 'built-in-usd';
        pools.push({
          poolId,
          poolName: poolName.get(poolId) ?? poolId,
          cost: round6(hours * rate.hourly),
          billedHours: hours,
        });
      }
      // The tier as last billed (in the bill's currency); its USD list price when never billed.
      let tierBilled = false;
      for (const r of lastDaily.values()) {
        if (r.kind === 'disk') diskOf(r.resourceId, cost(r));
        else if (r.kind === 'cluster') {
          clusterCost += cost(r);
          tierBilled = true;
        } else networkCost += cost(r);
      }
      if (!tierBilled && m)
        clusterCost = round6(24 * (TIER_HOURLY_RATE[(m.tier ?? 'Free').toLowerCase()] ?? 0));
    }
    const containers: ContainerHour[] = u.containerHours.map((c) => ({
      hour: c.hour,
      node: c.node,
      namespace: c.namespace,
      row: rowOf(req.aggregate, c, day, poolOfNode),
      cpuRequestCores: c.cpuRequestCores,
      cpuUsageCores: c.cpuUsageCores,
      memoryRequestBytes: c.memoryRequestBytes,
      memoryUsageBytes: c.memoryUsageBytes,
      seen: c.seen,
    }));
    const input: AllocationDay = {
      day,
      estimated: !billed,
      pools,
      clusterCost,
      networkCost,
      disks,
      nodeHours: u.nodeHours.map((n) => ({
        hour: n.hour,
        node: n.node,
        poolId: n.scaleSetId ?? `(no scale set)/${n.pool ?? ''}`,
        cpuCapacityCores: n.cpuCapacityCores,
        memoryCapacityBytes: n.memoryCapacityBytes,
        cpuAllocatableCores: n.cpuAllocatableCores,
        memoryAllocatableBytes: n.memoryAllocatableBytes,
        seen: n.seen,
        vmSize: n.vmSize,
      })),
      charges: summed
        ? summed.charges.map((c) => ({
            ...c,
            row:
              rowKey.kind === 'node'
                ? (poolOfNode.get(c.row) ?? '(unknown pool)')
                : rowKey.kind === 'day'
                  ? day
                  : c.row,
          }))
        : chargesOf(containers),
      precapped: summed !== undefined,
    };
    allocator.addDay(input);
  }
  return {
    currency,
    costType: req.costType,
    estimatedPrices,
    ...allocator.result(),
    ...(req.keepDayRows ? { dayRows: allocator.dayRows } : {}),
  };
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Rightsizing of a cluster's workloads over the window, priced at each pool's billed rate. */
export async function rightsizeCluster(
  prisma: PrismaClient,
  usage: KubernetesUsageSource,
  cluster: KnownCluster,
  namespace: string | undefined,
  windowDays: number,
  now: Date,
  costType: CostType,
): Promise<{ currency: string | null; windowDays: number; rate: PoolRate; items: Recommendation[] }> {
  const to = now;
  const from = new Date(now.getTime() - windowDays * DAY_MS);
  const samples = cluster.agent
    ? await usage.containerSamples(cluster.agent.clusterName, namespace, from, to)
    : [];
  // The rate: the cluster's pools' billed cost over their node capacity in the window, split by the
  // default CPU:memory price ratio (as the allocation does), so a saving is what the bill would drop.
  const rate = await billedRate(prisma, usage, cluster, from, to, costType);
  const items = samples
    .map((s) => recommend(s, rate.rate))
    .sort((a, b) => Math.abs(b.monthlySaving) - Math.abs(a.monthlySaving));
  return { currency: rate.currency, windowDays, rate: rate.rate, items };
}

async function billedRate(
  prisma: PrismaClient,
  usage: KubernetesUsageSource,
  cluster: KnownCluster,
  from: Date,
  to: Date,
  costType: CostType,
): Promise<{ rate: PoolRate; currency: string | null }> {
  const cpu = DEFAULT_CPU_PER_CORE_HOUR;
  const ram = DEFAULT_RAM_PER_GIB_HOUR;
  const fallback = { cpuPerCoreHour: cpu, memoryPerGiBHour: ram };
  if (!cluster.managed) return { rate: fallback, currency: null };
  const rows = await billRows(prisma, cluster.managed.id, ymd(from.getTime()), ymd(to.getTime()));
  const pools = rows.filter((r) => r.kind === 'pool');
  const poolCost = pools.reduce(
    (s, r) => s + (costType === 'AmortizedCost' ? r.amortizedCost : r.actualCost),
    0,
  );
  const hours = pools.reduce((s, r) => s + (r.quantity ?? 0), 0);
  if (!(poolCost > 0) || !(hours > 0) || !cluster.agent)
    return { rate: fallback, currency: rows[0]?.currency ?? null };
  // The average node's capacity, from the newest day the agent reported.
  const last = await usage.day(cluster.agent.clusterName, ymd(cluster.agent.lastSeen.getTime()));
  if (last.nodeHours.length === 0) return { rate: fallback, currency: rows[0]?.currency ?? null };
  const cores = last.nodeHours.reduce((s, n) => s + n.cpuCapacityCores, 0) / last.nodeHours.length;
  const gib =
    last.nodeHours.reduce((s, n) => s + n.memoryCapacityBytes, 0) / last.nodeHours.length / 1024 ** 3;
  const perNodeHour = poolCost / hours;
  const cpuPart = (cores * cpu) / (cores * cpu + gib * ram);
  return {
    rate: {
      cpuPerCoreHour: (perNodeHour * cpuPart) / cores,
      memoryPerGiBHour: (perNodeHour * (1 - cpuPart)) / gib,
    },
    currency: rows[0]?.currency ?? null,
  };
}
