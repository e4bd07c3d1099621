/**
 * AKS clusters of a subscription, from the resources an analysis lists (Resource Graph): each
 * managed cluster with its node resource group, the node pools' scale sets, and the disks of
 * persistent volumes with their claims (the Azure Disk CSI driver tags a disk it creates with
 * `kubernetes.io-created-for-pvc-namespace` and `-name`).
 */
import type { AzureResource } from '../azure/index.js';

export const MANAGED_CLUSTER_TYPE = 'microsoft.containerservice/managedclusters';
const SCALE_SET_TYPE = 'microsoft.compute/virtualmachinescalesets';
const DISK_TYPE = 'microsoft.compute/disks';

export interface ClusterPool {
  name: string;
  /** Lower case: a node's provider id names it. */
  scaleSetId: string;
  vmSize: string | null;
}

export interface ClusterDisk {
  id: string;
  namespace: string | null;
  claim: string | null;
}

export interface ClusterPlan {
  id: string;
  subscriptionId: string;
  name: string;
  resourceGroup: string;
  nodeResourceGroup: string;
  location: string;
  tier: string | null;
  pools: ClusterPool[];
  disks: ClusterDisk[];
}

export type BillKind = 'pool' | 'cluster' | 'disk' | 'network' | 'other';

/** The scale set resource id in a node's provider id (azure:///subscriptions/.../virtualMachines/3). */
export function scaleSetOfProviderId(providerId: string | null | undefined): string | null {
  if (!providerId) return null;
  const m =
    /^azure:\/\/(\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/microsoft\.compute\/virtualmachinescalesets\/[^/]+)/i.exec(
      providerId,
    );
  return m ? m[1]!.toLowerCase() : null;
}

/** The pool of an AKS scale set by its name (aks-<pool>-<digits>-vmss) when it has no pool tag. */
function poolNameOf(r: AzureResource): string {
  const tag = r.tags['aks-managed-poolName'] ?? r.tags['poolName'];
  if (tag) return tag;
  const m = /^aks-(.+)-\d+-vmss$/i.exec(r.name);
  return m ? m[1]! : r.name;
}

export function discoverClusters(subscriptionId: string, resources: readonly AzureResource[]): ClusterPlan[] {
  const clusters = resources.filter((r) => r.type === MANAGED_CLUSTER_TYPE);
  if (clusters.length === 0) return [];
  const byGroup = new Map<string, AzureResource[]>();
  for (const r of resources) {
    const g = r.resourceGroup.toLowerCase();
    const list = byGroup.get(g);
    if (list) list.push(r);
    else byGroup.set(g, [r]);
  }
  const plans: ClusterPlan[] = [];
  for (const c of clusters) {
    const nodeResourceGroup = String(c.properties['nodeResourceGroup'] ?? '');
    if (!nodeResourceGroup) continue;
    const inNodeGroup = byGroup.get(nodeResourceGroup.toLowerCase()) ?? [];
    plans.push({
      id: c.id.toLowerCase(),
      subscriptionId: subscriptionId.toLowerCase(),
      name: c.name,
      resourceGroup: c.resourceGroup,
      nodeResourceGroup,
      location: c.location,
      tier: typeof c.sku?.['tier'] === 'string' ? (c.sku['tier'] as string) : null,
      pools: inNodeGroup
        .filter((r) => r.type === SCALE_SET_TYPE)
        .map((r) => ({
          name: poolNameOf(r),
          scaleSetId: r.id.toLowerCase(),
          vmSize: typeof r.sku?.['name'] === 'string' ? (r.sku['name'] as string) : null,
        })),
      disks: inNodeGroup
        .filter((r) => r.type === DISK_TYPE)
        .map((r) => ({
          id: r.id.toLowerCase(),
          namespace: r.tags['kubernetes.io-created-for-pvc-namespace'] || null,
          claim: r.tags['kubernetes.io-created-for-pvc-name'] || null,
        })),
    });
  }
  return plans;
}

/** What a billed resource of the cluster is; null when it is not the cluster's. */
export function billKindOf(plan: ClusterPlan, resourceId: string): BillKind | null {
  const id = resourceId.toLowerCase();
  if (id === plan.id) return 'cluster';
  if (!id.includes(`/resourcegroups/${plan.nodeResourceGroup.toLowerCase()}/`)) return null;
  if (plan.pools.some((p) => p.scaleSetId === id)) return 'pool';
  if (id.includes('/providers/microsoft.compute/disks/')) return 'disk';
  if (
    id.includes('/providers/microsoft.network/publicipaddresses/') ||
    id.includes('/providers/microsoft.network/loadbalancers/')
  )
    return 'network';
  return 'other';
}
