/**
 * A synthetic AKS cluster for a subscription, as Resource Graph and Cost Management show one: the
 * managed cluster (Standard tier) in its resource group, and in its node resource group a scale set
 * per node pool, the persistent-volume disks (tagged with their claim, as the Azure Disk CSI driver
 * does), a public IP and the `kubernetes` load balancer. The `system` pool is covered by a
 * reservation: its actual cost is 0 and its amortized cost is the reservation's hourly rate; the
 * `user` pool autoscales (more instances in working hours), so its instance-hours change by the hour.
 *
 * Everything is a function of (subscription, day, hour), so a test can compute what the bill and the
 * cluster should be on its own: `instancesAt` is what the cluster ran, `poolDayCost` what Azure bills.
 */
import { hashString, unitFrom } from './prng.js';

export interface SimAksPool {
  name: string;
  vmSize: string;
  cores: number;
  memoryGiB: number;
  /** Pay-as-you-go price of one instance-hour. */
  hourlyRate: number;
  /** Covered by a reservation: actual cost 0, amortized at `reservedHourlyRate`. */
  reserved: boolean;
  reservedHourlyRate: number;
  /** 0 for a fixed-size pool; otherwise extra instances in working hours (autoscaler). */
  burst: number;
  baseInstances: number;
  scaleSetName: string;
  scaleSetId: string;
}

export interface SimAksDisk {
  id: string;
  name: string;
  claimNamespace: string | null;
  claimName: string | null;
  sizeGB: number;
  dailyCost: number;
}

export interface SimAksCluster {
  id: string;
  name: string;
  resourceGroup: string;
  nodeResourceGroup: string;
  location: string;
  /** The Standard tier's price per cluster-hour. */
  tierHourlyRate: number;
  pools: SimAksPool[];
  disks: SimAksDisk[];
  publicIpId: string;
  publicIpDailyCost: number;
  loadBalancerId: string;
  loadBalancerDailyCost: number;
}

const HOUR_MS = 3_600_000;

/** The cluster of a subscription (one per subscription when the simulator serves AKS). */
export function simAksCluster(subscriptionId: string, seed: number): SimAksCluster {
  const salt = hashString(`aks:${seed}:${subscriptionId.toLowerCase()}`);
  const name = 'aks-shop';
  const resourceGroup = 'rg-aks';
  const location = 'westeurope';
  const nodeResourceGroup = `MC_${resourceGroup}_${name}_${location}`;
  const rgPath = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}`;
  const nodePath = `/subscriptions/${subscriptionId}/resourceGroups/${nodeResourceGroup}`;
  const suffix = String(10_000_000 + (salt % 89_999_999));
  const pool = (p: Omit<SimAksPool, 'scaleSetName' | 'scaleSetId'>): SimAksPool => {
    const scaleSetName = `aks-${p.name}-${suffix}-vmss`;
    return {
      ...p,
      scaleSetName,
      scaleSetId: `${nodePath}/providers/Microsoft.Compute/virtualMachineScaleSets/${scaleSetName}`,
    };
  };
  const disk = (i: number, ns: string | null, claim: string | null, sizeGB: number): SimAksDisk => {
    const diskName = `pvc-${(salt + i).toString(16).padStart(8, '0')}-${i}`;
    return {
      id: `${nodePath}/providers/Microsoft.Compute/disks/${diskName}`,
      name: diskName,
      claimNamespace: ns,
      claimName: claim,
      sizeGB,
      // Premium SSD v1 prices, per day (P10 128 GB ~ 19.71/month, P4 32 GB ~ 5.28/month).
      dailyCost: sizeGB >= 128 ? 0.648 : 0.1736,
    };
  };
  return {
    id: `${rgPath}/providers/Microsoft.ContainerService/managedClusters/${name}`,
    name,
    resourceGroup,
    nodeResourceGroup,
    location,
    tierHourlyRate: 0.1,
    pools: [
      pool({
        name: 'system',
        vmSize: 'Standard_D4s_v5',
        cores: 4,
        memoryGiB: 16,
        hourlyRate: 0.192,
        reserved: true,
        reservedHourlyRate: 0.1204,
        burst: 0,
        baseInstances: 3,
      }),
      pool({
        name: 'user',
        vmSize: 'Standard_D8s_v5',
        cores: 8,
        memoryGiB: 32,
        hourlyRate: 0.384,
        reserved: false,
        reservedHourlyRate: 0.384,
        burst: 3,
        baseInstances: 2,
      }),
    ],
    disks: [
      disk(0, 'shop', 'data-postgres-0', 128),
      disk(1, 'shop', 'data-redis-0', 32),
      disk(2, 'monitoring', 'prometheus-data', 128),
      // released by its claim, still billed: nobody's
      disk(3, null, null, 32),
    ],
    publicIpId: `${nodePath}/providers/Microsoft.Network/publicIPAddresses/kubernetes-a${suffix}`,
    publicIpDailyCost: 0.12,
    loadBalancerId: `${nodePath}/providers/Microsoft.Network/loadBalancers/kubernetes`,
    loadBalancerDailyCost: 0.6,
  };
}

/** Instances of a pool running in the hour starting at `hourStartMs` (the autoscaler's doing). */
export function instancesAt(pool: SimAksPool, hourStartMs: number): number {
  if (pool.burst === 0) return pool.baseInstances;
  const d = new Date(hourStartMs);
  const weekday = d.getUTCDay() !== 0 && d.getUTCDay() !== 6;
  const h = d.getUTCHours();
  if (!weekday || h < 8 || h >= 18) return pool.baseInstances;
  // 1..burst extra instances, varying by the hour
  return (
    pool.baseInstances +
    1 +
    Math.floor(unitFrom(hashString(pool.name), Math.floor(hourStartMs / HOUR_MS), 7) * pool.burst)
  );
}

/** Instance-hours of a pool on a day (day number since the epoch). */
export function poolDayHours(pool: SimAksPool, day: number): number {
  let n = 0;
  for (let h = 0; h < 24; h++) n += instancesAt(pool, (day * 24 + h) * HOUR_MS);
  return n;
}

export type SimCostType = 'ActualCost' | 'AmortizedCost' | 'Usage';

/** What Azure bills a pool's scale set for a day, actual or amortized (6 decimals, as the service). */
export function poolDayCost(pool: SimAksPool, day: number, type: SimCostType): number {
  const hours = poolDayHours(pool, day);
  const rate = pool.reserved ? (type === 'AmortizedCost' ? pool.reservedHourlyRate : 0) : pool.hourlyRate;
  return Math.round(hours * rate * 1e6) / 1e6;
}
