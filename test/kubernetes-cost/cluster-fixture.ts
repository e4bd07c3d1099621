import {
  instancesAt,
  poolDayCost,
  poolDayHours,
  type SimAksCluster,
  type SimAksPool,
} from '../../dev/azure-sim/aks.js';
import type { AgentNodeRecord, AgentPodRecord } from '../../shared/finops/kubernetes/usage-source.js';

/**
 * The simulated AKS cluster's inside, as the tests define it (what runs where, how much it asks and
 * uses), the agent records that describe it, and the cost model worked out from it and the
 * simulator's bill without the code under test.
 */
export const GiB = 1024 ** 3;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
// OpenCost's default prices: only their ratio splits a node-hour into CPU and memory.
const CPU = 0.031611;
const RAM = 0.004237;
export const AGENT_CLUSTER = 'prod-eu';

export const today = Math.floor(Date.now() / DAY) * DAY;
export const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);
/** Days the agent reported: 10 days up to yesterday. */
export const agentDays = Array.from({ length: 10 }, (_, i) => today - (10 - i) * DAY);
/** A billed (closed) range: 10 to 4 days ago. */
export const BILLED_FROM = ymd(today - 10 * DAY);
export const BILLED_TO = ymd(today - 4 * DAY);
/** The agent was down in this hour (no cycle at all). */
export const OUTAGE = today - 6 * DAY + 3 * HOUR;

interface Ctr {
  namespace: string;
  pod: string;
  container: string;
  ownerKind: string;
  ownerName: string;
  labels: Record<string, string>;
  cpuRequest: number;
  cpuUsage: number;
  memRequest: number;
  memUsage: number;
}

/** What runs on a node in an hour: the cluster as the test defines it. */
export function containersOn(pool: SimAksPool, index: number): Ctr[] {
  const out: Ctr[] = [
    {
      namespace: 'kube-system',
      pod: `kube-proxy-${pool.name}-${index}`,
      container: 'kube-proxy',
      ownerKind: 'DaemonSet',
      ownerName: 'kube-proxy',
      labels: { team: 'platform' },
      cpuRequest: 0.1,
      cpuUsage: 0.05,
      memRequest: 0.125 * GiB,
      memUsage: 0.1 * GiB,
    },
  ];
  if (pool.name === 'system' && index === 0) {
    out.push({
      namespace: 'monitoring',
      pod: 'prometheus-0',
      container: 'prometheus',
      ownerKind: 'StatefulSet',
      ownerName: 'prometheus',
      labels: { team: 'obs' },
      cpuRequest: 0.5,
      cpuUsage: 0.7,
      memRequest: 4 * GiB,
      memUsage: 3 * GiB,
    });
  }
  if (pool.name === 'user' && index < 2) {
    out.push({
      namespace: 'shop',
      pod: `api-${index}`,
      container: 'api',
      ownerKind: 'Deployment',
      ownerName: 'api',
      labels: { team: 'shop' },
      cpuRequest: 1,
      cpuUsage: 0.5,
      memRequest: 2 * GiB,
      memUsage: 3 * GiB,
    });
  }
  if (pool.name === 'user' && index >= 2) {
    out.push({
      namespace: 'shop',
      pod: `worker-${index}`,
      container: 'worker',
      ownerKind: 'Deployment',
      ownerName: 'worker',
      labels: { team: 'shop' },
      cpuRequest: 2,
      cpuUsage: 1.5,
      memRequest: 4 * GiB,
      memUsage: 2 * GiB,
    });
  }
  return out;
}

export function providerId(pool: SimAksPool, i: number): string {
  return `azure://${pool.scaleSetId}/virtualMachines/${i}`;
}

/** The agent's records for the cluster: two cycles an hour, none in the outage hour. */
export function agentRecords(
  c: SimAksCluster,
  days: number[] = agentDays,
): { nodes: AgentNodeRecord[]; pods: AgentPodRecord[] } {
  const nodes: AgentNodeRecord[] = [];
  const pods: AgentPodRecord[] = [];
  for (const day of days) {
    for (let h = 0; h < 24; h++) {
      const hourStart = day + h * HOUR;
      if (hourStart === OUTAGE) continue;
      for (const minute of [10, 40]) {
        const at = new Date(hourStart + minute * 60_000);
        for (const pool of c.pools) {
          for (let i = 0; i < instancesAt(pool, hourStart); i++) {
            const nodeName = `${pool.scaleSetName}00000${i}`;
            nodes.push({
              collectedAt: at,
              nodeName,
              providerId: providerId(pool, i),
              nodePool: pool.name,
              instanceType: pool.vmSize,
              cpuCapacityCores: pool.cores,
              memoryCapacityBytes: pool.memoryGiB * GiB,
              cpuAllocatableCores: pool.cores - 0.2,
              memoryAllocatableBytes: (pool.memoryGiB - 2) * GiB,
            });
            for (const k of containersOn(pool, i)) {
              pods.push({
                collectedAt: at,
                namespace: k.namespace,
                pod: k.pod,
                container: k.container,
                nodeName,
                cpuUsageCores: k.cpuUsage,
                memoryUsageBytes: k.memUsage,
                cpuRequestCores: k.cpuRequest,
                memoryRequestBytes: k.memRequest,
                ownerKind: k.ownerKind,
                ownerName: k.ownerName,
                labels: k.labels,
                restartCount: 0,
              });
            }
          }
        }
      }
    }
  }
  return { nodes, pods };
}

/**
 * The model, worked out here from the simulated cluster and its bill (not by the code under test):
 * per day and pool, the bill over the billed instance-hours is a node-hour's cost; CPU takes
 * cores*CPU/(cores*CPU+GiB*RAM) of it; a container pays max(request, usage) of each; disks go to
 * their claim's namespace; kube-system is spread over the others by cost (weighted) or evenly.
 */
export function expectedNamespaces(
  c: SimAksCluster,
  from: number,
  to: number,
  type: 'ActualCost' | 'AmortizedCost',
  share: 'weighted' | 'even',
): Map<string, number> {
  const total = new Map<string, number>();
  for (let day = from; day <= to; day += DAY) {
    const ns = new Map<string, number>();
    const add = (n: string, v: number) => ns.set(n, (ns.get(n) ?? 0) + v);
    for (const pool of c.pools) {
      const dayNo = day / DAY;
      const rate = poolDayCost(pool, dayNo, type) / poolDayHours(pool, dayNo);
      const cpuPart = (pool.cores * CPU) / (pool.cores * CPU + pool.memoryGiB * RAM);
      const perCore = (rate * cpuPart) / pool.cores;
      const perGiB = (rate * (1 - cpuPart)) / pool.memoryGiB;
      for (let h = 0; h < 24; h++) {
        const hourStart = day + h * HOUR;
        if (hourStart === OUTAGE) continue;
        for (let i = 0; i < instancesAt(pool, hourStart); i++) {
          for (const k of containersOn(pool, i)) {
            add(
              k.namespace,
              Math.max(k.cpuRequest, k.cpuUsage) * perCore +
                (Math.max(k.memRequest, k.memUsage) / GiB) * perGiB,
            );
          }
        }
      }
    }
    for (const d of c.disks) if (d.claimNamespace) add(d.claimNamespace, d.dailyCost);
    const shared = ns.get('kube-system') ?? 0;
    ns.delete('kube-system');
    const others = [...ns.values()].reduce((s, v) => s + v, 0);
    for (const [n, v] of ns) {
      const part = share === 'weighted' ? v / others : 1 / ns.size;
      total.set(n, (total.get(n) ?? 0) + v + shared * part);
    }
  }
  return total;
}

/** What Azure bills for the cluster's resources on a day, in cents. */
export function billedCents(c: SimAksCluster, day: number, type: 'ActualCost' | 'AmortizedCost'): number {
  const dayNo = day / DAY;
  let micros = Math.round(24 * c.tierHourlyRate * 1e6);
  for (const p of c.pools) micros += Math.round(poolDayCost(p, dayNo, type) * 1e6);
  for (const d of c.disks) micros += Math.round(d.dailyCost * 1e6);
  micros += Math.round(c.publicIpDailyCost * 1e6) + Math.round(c.loadBalancerDailyCost * 1e6);
  return Math.round(micros / 1e4);
}
