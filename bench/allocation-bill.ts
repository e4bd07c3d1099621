// The allocation benches' cluster and its timing. The bill: one pool of `nodes` nodes billed 24 hours a day,
// and the cluster resource (the Standard tier), per day of first..today.
import type { PrismaClient } from '../shared/db/client.js';
import { allocateCluster, knownClusters } from '../shared/finops/kubernetes/service.js';
import type { KubernetesUsageSource } from '../shared/finops/kubernetes/usage-source.js';

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

/** Allocates first..today-1 by namespace `runs` times, as the route does; prints min and median. */
export async function timeAllocation(
  prisma: PrismaClient,
  usage: KubernetesUsageSource,
  first: number,
  today: number,
  runs: number,
  what: string,
  aim: string,
) {
  const times: number[] = [];
  let rows = 0;
  let billed = 0;
  let total = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const cluster = (await knownClusters(prisma, usage)).find((c) => c.clusterName === 'bench')!;
    const answer = await allocateCluster(prisma, usage, {
      cluster,
      from: new Date(first).toISOString().slice(0, 10),
      to: new Date(today - DAY).toISOString().slice(0, 10),
      aggregate: { kind: 'namespace' },
      costType: 'AmortizedCost',
      sharedNamespaces: ['kube-system'],
      shareMode: 'weighted',
      now: new Date(),
    });
    times.push(performance.now() - t);
    rows = answer.rows.length;
    billed = answer.billedCost;
    // The rows' cost to the cent: two reads of the same store must give the same.
    total = answer.rows.reduce((s, r) => s + Math.round(r.totalCost * 100), 0) / 100;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${what} -> ${rows} namespaces, total ${total.toFixed(2)}, billed ${billed}: ` +
      `min ${(times[0]! / 1000).toFixed(2)} s, median ${(times[Math.floor(times.length / 2)]! / 1000).toFixed(2)} s${aim ? ` (aim ${aim})` : ''}`,
  );
}
