// The bill of the allocation benches' cluster: one pool of `nodes` nodes billed 24 hours a day,
// and the cluster resource (the Standard tier), per day of first..today.
import type { PrismaClient } from '../shared/db/client.js';

const DAY = 86_400_000;
export const BENCH_SUB = '0b5c6a1e-1111-4a2b-8c3d-00000000b001';
export const BENCH_RG = 'mc_rg_aks_westeurope';
export const BENCH_VMSS = `/subscriptions/${BENCH_SUB}/resourcegroups/${BENCH_RG}/providers/microsoft.compute/virtualmachinescalesets/aks-np1-1234-vmss`;

export async function storeBenchBill(prisma: PrismaClient, nodes: number, first: number, today: number) {
  const now = new Date();
  const clusterId = `/subscriptions/${BENCH_SUB}/resourcegroups/rg/providers/microsoft.containerservice/managedclusters/bench`;
  await prisma.kubernetesManagedCluster.create({
    data: {
      id: clusterId,
      subscriptionId: BENCH_SUB,
      name: 'bench',
      resourceGroup: 'rg',
      nodeResourceGroup: BENCH_RG,
      location: 'westeurope',
      tier: 'Standard',
      pools: [{ name: 'np1', scaleSetId: BENCH_VMSS, vmSize: 'Standard_D16s_v5' }],
      disks: [],
      collectedAt: new Date(today + 3 * DAY),
    },
  });
  const bill = [];
  for (let d = first; d < today; d += DAY) {
    const day = new Date(d);
    bill.push(
      {
        clusterId,
        day,
        resourceId: BENCH_VMSS,
        kind: 'pool',
        actualCost: nodes * 24 * 0.768,
        amortizedCost: nodes * 24 * 0.6,
        quantity: nodes * 24,
        currency: 'USD',
        collectedAt: now,
      },
      {
        clusterId,
        day,
        resourceId: clusterId,
        kind: 'cluster',
        actualCost: 2.4,
        amortizedCost: 2.4,
        quantity: 24,
        currency: 'USD',
        collectedAt: now,
      },
    );
  }
  await prisma.kubernetesBilledCost.createMany({ data: bill });
}
