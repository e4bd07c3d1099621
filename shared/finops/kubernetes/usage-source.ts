/**
 * What the allocation needs from the agent's side: per cluster and day, the node-hours (with the
 * scale set each node runs in, from its provider id) and the container-hours (usage and requests,
 * with namespace, workload and labels); per container, the usage samples for rightsizing.
 *
 * `KubernetesUsageSource` is the seam between the allocation and the metrics store. The in-memory
 * source here is built from records shaped as the agent posts them (pod and node payloads with the
 * agent's extra fields); it serves tests and the bench, and shows the hourly rule every source keeps:
 * an hour's samples are counted against the agent's cycles in that hour, so a node or container seen
 * in half the cycles counts half an hour, and an hour with no cycle at all has no node-hours.
 */

import { scaleSetOfProviderId } from './discover.js';
import type { UsageSample } from './rightsizing.js';

/** A node payload (metrics/node) with the agent's extra fields. */
export interface AgentNodeRecord {
  collectedAt: Date;
  nodeName: string;
  providerId?: string | null;
  nodePool?: string | null;
  instanceType?: string | null;
  cpuCapacityCores: number;
  memoryCapacityBytes: number;
  cpuAllocatableCores?: number | null;
  memoryAllocatableBytes?: number | null;
}

/** A container payload (metrics/pod) with the agent's extra fields. */
export interface AgentPodRecord {
  collectedAt: Date;
  namespace: string;
  pod: string;
  container: string;
  nodeName: string | null;
  cpuUsageCores: number;
  memoryUsageBytes: number;
  cpuRequestCores?: number | null;
  memoryRequestBytes?: number | null;
  ownerKind?: string | null;
  ownerName?: string | null;
  labels?: Record<string, string> | null;
  lastTerminationReason?: string | null;
  restartCount?: number;
}

export interface AgentCluster {
  clusterName: string;
  /** Scale set ids (lower case) named by its nodes' provider ids. */
  scaleSetIds: string[];
  firstSeen: Date;
  lastSeen: Date;
}

export interface UsageNodeHour {
  hour: number;
  node: string;
  /** The scale set from the provider id; null when the node has none (not an AKS scale set node). */
  scaleSetId: string | null;
  pool: string | null;
  vmSize: string | null;
  cpuCapacityCores: number;
  memoryCapacityBytes: number;
  cpuAllocatableCores: number;
  memoryAllocatableBytes: number;
  seen: number;
}

export interface UsageContainerHour {
  hour: number;
  node: string;
  namespace: string;
  /** Kind/name of the controller, e.g. Deployment/api; the pod name for a bare pod. */
  workload: string;
  container: string;
  labels: Record<string, string>;
  cpuUsageCores: number;
  memoryUsageBytes: number;
  cpuRequestCores: number | null;
  memoryRequestBytes: number | null;
  seen: number;
}

export interface UsageDay {
  nodeHours: UsageNodeHour[];
  containerHours: UsageContainerHour[];
}

export interface ContainerSamples {
  namespace: string;
  workload: string;
  container: string;
  cpuRequestCores: number | null;
  memoryRequestBytes: number | null;
  samples: UsageSample[];
  oomKills: number;
  restarts: number;
}

/** What a day's charges are summed by: the answer's rows (see service.ts rowOf). */
export type RowKey =
  | { kind: 'namespace' }
  | { kind: 'workload' }
  | { kind: 'node' }
  | { kind: 'day' }
  | { kind: 'label'; key: string };

/**
 * A day summed by the source. Its node-hours are per hour and class (the node-hours of one scale
 * set, pool, VM size, capacity and allocatable, whose rates are the same): `node` names the class
 * and `seen` adds up its node-hours, so it can exceed 1. Its charges are per class, namespace and
 * row, each on one node-hour of its class that day.
 */
export interface SummedDay {
  nodeHours: UsageNodeHour[];
  /** Already capped at each node-hour's allocatable. */
  charges: Array<{
    hour: number;
    node: string;
    namespace: string;
    row: string;
    cpuCoreHours: number;
    memoryByteHours: number;
  }>;
}

export interface KubernetesUsageSource {
  clusters(): Promise<AgentCluster[]>;
  /**
   * Optional: the days from..to (yyyy-MM-dd, inclusive) with the charges summed by the source
   * (max(request, usage) times the part of the hour seen, capped at each node-hour's allocatable),
   * so a large day never crosses as container-hours. Days with no agent data are absent. Sources
   * without it answer `day`.
   */
  summedDays?(clusterName: string, from: string, to: string, row: RowKey): Promise<Map<string, SummedDay>>;
  /**
   * Optional: does ahead of time what the first read of the recent closed days would do (a source
   * that keeps per-day sums stores them), so that read is fast. Called by the hourly housekeeping
   * timer; answers the days prepared per cluster.
   */
  prepareClosedDays?(): Promise<Array<{ clusterName: string; days: string[] }>>;
  /** The cluster's node-hours and container-hours of one UTC day (yyyy-MM-dd). */
  day(clusterName: string, day: string): Promise<UsageDay>;
  /** Usage samples per workload container over from..to, for rightsizing. */
  containerSamples(
    clusterName: string,
    namespace: string | undefined,
    from: Date,
    to: Date,
  ): Promise<ContainerSamples[]>;
}

/** No agent data: every billed node-hour is unallocated, and the clusters come from the bill alone. */
export const NO_USAGE: KubernetesUsageSource = {
  clusters: async () => [],
  day: async () => ({ nodeHours: [], containerHours: [] }),
  containerSamples: async () => [],
};

export function workloadOf(r: Pick<AgentPodRecord, 'ownerKind' | 'ownerName' | 'pod'>): string {
  return r.ownerKind && r.ownerName ? `${r.ownerKind}/${r.ownerName}` : `Pod/${r.pod}`;
}

/** A store's row of a node-hour (`h`: hour of the day; `ss`: the scale set id, '' or null when none). */
export interface NodeHourRow {
  h: number;
  node: string;
  ss: string | null;
  pool: string | null;
  vm: string | null;
  capCpu: number;
  capMem: number;
  allocCpu: number | null;
  allocMem: number | null;
  seen: number;
}

export function nodeHourOf(r: NodeHourRow): UsageNodeHour {
  return {
    hour: r.h,
    node: r.node,
    scaleSetId: r.ss || null,
    pool: r.pool,
    vmSize: r.vm,
    cpuCapacityCores: r.capCpu,
    memoryCapacityBytes: r.capMem,
    cpuAllocatableCores: r.allocCpu ?? r.capCpu,
    memoryAllocatableBytes: r.allocMem ?? r.capMem,
    seen: r.seen,
  };
}

/** A store's row of a container-hour (`h`: hour of the day; usage averages, spec as last sampled). */
export interface ContainerHourRow {
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
  cpu: number | null;
  mem: number | null;
  seen: number;
}

export function containerHourOf(r: ContainerHourRow): UsageContainerHour {
  return {
    hour: r.h,
    node: r.node,
    namespace: r.namespace,
    workload: workloadOf(r),
    container: r.container,
    labels: r.labels ?? {},
    cpuUsageCores: r.cpu ?? 0,
    memoryUsageBytes: r.mem ?? 0,
    cpuRequestCores: r.cpuReq,
    memoryRequestBytes: r.memReq,
    seen: r.seen,
  };
}

/** A container's usage at one time (a sample, or a rollup bucket's averages), oldest first. */
export interface SampleRow {
  namespace: string;
  pod: string;
  container: string;
  ownerKind: string | null;
  ownerName: string | null;
  cpuRequestCores: number | null;
  memoryRequestBytes: number | null;
  lastTerminationReason: string | null;
  at: number;
  cpuCores: number;
  memoryBytes: number;
  restarts: number;
}

/**
 * The samples per workload container, with the requests as last reported and the restarts (and
 * OOM kills among them) as the growth of each pod's restart count over the rows.
 */
export function containerSamplesOf(rows: Iterable<SampleRow>): ContainerSamples[] {
  const out = new Map<string, ContainerSamples & { pods: Map<string, number> }>();
  for (const r of rows) {
    const workload = workloadOf(r);
    const k = r.namespace + SEP + workload + SEP + r.container;
    let e = out.get(k);
    if (!e) {
      e = {
        namespace: r.namespace,
        workload,
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
    e.samples.push({ at: r.at, cpuCores: r.cpuCores, memoryBytes: r.memoryBytes });
    e.cpuRequestCores = r.cpuRequestCores ?? e.cpuRequestCores;
    e.memoryRequestBytes = r.memoryRequestBytes ?? e.memoryRequestBytes;
    const prev = e.pods.get(r.pod);
    if (prev !== undefined && r.restarts > prev) {
      e.restarts += r.restarts - prev;
      if (r.lastTerminationReason === 'OOMKilled') e.oomKills += r.restarts - prev;
    }
    e.pods.set(r.pod, Math.max(prev ?? 0, r.restarts));
  }
  return [...out.values()].map(({ pods: _pods, ...rest }) => rest);
}

const HOUR_MS = 3_600_000;
const SEP = '\u0000';

interface ClusterRecords {
  nodes: AgentNodeRecord[];
  pods: AgentPodRecord[];
}

/** A usage source over agent records held in memory (tests, the bench). */
export class MemoryUsageSource implements KubernetesUsageSource {
  private readonly byCluster = new Map<string, ClusterRecords>();

  add(clusterName: string, records: { nodes?: AgentNodeRecord[]; pods?: AgentPodRecord[] }): this {
    const key = clusterName.toLowerCase();
    let c = this.byCluster.get(key);
    if (!c) {
      c = { nodes: [], pods: [] };
      this.byCluster.set(key, c);
    }
    for (const n of records.nodes ?? []) c.nodes.push(n);
    for (const p of records.pods ?? []) c.pods.push(p);
    return this;
  }

  async clusters(): Promise<AgentCluster[]> {
    return [...this.byCluster].map(([clusterName, c]) => {
      const times = [...c.nodes, ...c.pods].map((r) => r.collectedAt.getTime());
      return {
        clusterName,
        scaleSetIds: [
          ...new Set(c.nodes.map((n) => scaleSetOfProviderId(n.providerId)).filter((s): s is string => !!s)),
        ],
        firstSeen: new Date(Math.min(...times)),
        lastSeen: new Date(Math.max(...times)),
      };
    });
  }

  async day(clusterName: string, day: string): Promise<UsageDay> {
    const c = this.byCluster.get(clusterName.toLowerCase());
    if (!c) return { nodeHours: [], containerHours: [] };
    const start = Date.parse(`${day}T00:00:00Z`);
    const end = start + 24 * HOUR_MS;
    const inDay = <T extends { collectedAt: Date }>(r: T) =>
      r.collectedAt.getTime() >= start && r.collectedAt.getTime() < end;
    // The agent's cycles per hour: the distinct collection instants of its node records.
    const cycles = new Map<number, Set<number>>();
    const nodes = c.nodes.filter(inDay);
    for (const n of nodes) {
      const h = Math.floor((n.collectedAt.getTime() - start) / HOUR_MS);
      let s = cycles.get(h);
      if (!s) {
        s = new Set();
        cycles.set(h, s);
      }
      s.add(n.collectedAt.getTime());
    }
    const nodeAcc = new Map<string, UsageNodeHour>();
    for (const n of nodes) {
      const h = Math.floor((n.collectedAt.getTime() - start) / HOUR_MS);
      const k = h + SEP + n.nodeName;
      const share = 1 / (cycles.get(h)?.size ?? 1);
      const e = nodeAcc.get(k);
      if (e) {
        e.seen += share;
        continue;
      }
      nodeAcc.set(k, {
        hour: h,
        node: n.nodeName,
        scaleSetId: scaleSetOfProviderId(n.providerId),
        pool: n.nodePool ?? null,
        vmSize: n.instanceType ?? null,
        cpuCapacityCores: n.cpuCapacityCores,
        memoryCapacityBytes: n.memoryCapacityBytes,
        cpuAllocatableCores: n.cpuAllocatableCores ?? n.cpuCapacityCores,
        memoryAllocatableBytes: n.memoryAllocatableBytes ?? n.memoryCapacityBytes,
        seen: share,
      });
    }
    const podAcc = new Map<string, UsageContainerHour & { n: number }>();
    for (const p of c.pods) {
      if (!inDay(p) || !p.nodeName) continue;
      const h = Math.floor((p.collectedAt.getTime() - start) / HOUR_MS);
      const cycleCount = cycles.get(h)?.size;
      if (!cycleCount) continue; // no node seen that hour: nothing to charge against
      const k = h + SEP + p.nodeName + SEP + p.namespace + SEP + p.pod + SEP + p.container;
      const e = podAcc.get(k);
      if (e) {
        e.cpuUsageCores += p.cpuUsageCores;
        e.memoryUsageBytes += p.memoryUsageBytes;
        e.n++;
        e.cpuRequestCores = p.cpuRequestCores ?? e.cpuRequestCores;
        e.memoryRequestBytes = p.memoryRequestBytes ?? e.memoryRequestBytes;
        continue;
      }
      podAcc.set(k, {
        hour: h,
        node: p.nodeName,
        namespace: p.namespace,
        workload: workloadOf(p),
        container: p.container,
        labels: p.labels ?? {},
        cpuUsageCores: p.cpuUsageCores,
        memoryUsageBytes: p.memoryUsageBytes,
        cpuRequestCores: p.cpuRequestCores ?? null,
        memoryRequestBytes: p.memoryRequestBytes ?? null,
        seen: 0,
        n: 1,
      });
    }
    const containerHours: UsageContainerHour[] = [];
    for (const e of podAcc.values()) {
      const cycleCount = cycles.get(e.hour)?.size ?? 1;
      const { n, ...rest } = e;
      containerHours.push({
        ...rest,
        // usage: the mean of the samples; the hour's share: samples over cycles
        cpuUsageCores: e.cpuUsageCores / n,
        memoryUsageBytes: e.memoryUsageBytes / n,
        seen: Math.min(1, n / cycleCount),
      });
    }
    return { nodeHours: [...nodeAcc.values()], containerHours };
  }

  async containerSamples(
    clusterName: string,
    namespace: string | undefined,
    from: Date,
    to: Date,
  ): Promise<ContainerSamples[]> {
    const c = this.byCluster.get(clusterName.toLowerCase());
    if (!c) return [];
    const rows: SampleRow[] = [];
    for (const p of c.pods) {
      const t = p.collectedAt.getTime();
      if (t < from.getTime() || t >= to.getTime()) continue;
      if (namespace !== undefined && p.namespace !== namespace) continue;
      rows.push({
        namespace: p.namespace,
        pod: p.pod,
        container: p.container,
        ownerKind: p.ownerKind ?? null,
        ownerName: p.ownerName ?? null,
        cpuRequestCores: p.cpuRequestCores ?? null,
        memoryRequestBytes: p.memoryRequestBytes ?? null,
        lastTerminationReason: p.lastTerminationReason ?? null,
        at: t,
        cpuCores: p.cpuUsageCores,
        memoryBytes: p.memoryUsageBytes,
        restarts: p.restartCount ?? 0,
      });
    }
    return containerSamplesOf(rows);
  }
}
