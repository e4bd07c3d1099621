import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../shared/db/client.js';
import { forecastNamespaces } from '../../shared/finops/kubernetes/namespace-forecast.js';
import { knownClusters } from '../../shared/finops/kubernetes/service.js';
import {
  type AgentNodeRecord,
  type AgentPodRecord,
  MemoryUsageSource,
} from '../../shared/finops/kubernetes/usage-source.js';
import { openMigratedDatabase } from '../support/databases.js';

/**
 * A cluster of one node whose only container asks for the node's whole capacity: its namespace
 * pays the pool's whole bill, 24.00 a day. A flat series forecasts flat, whichever method applies,
 * so the month-end is 24.00 times the days of the month, worked out here from the calendar.
 */
const DAY = 86_400_000;
const HOUR = 3_600_000;
const GiB = 1024 ** 3;
const SUB = '0b5c6a1e-1111-4a2b-8c3d-00000000d001';
const VMSS = `/subscriptions/${SUB}/resourcegroups/mc_rg/providers/microsoft.compute/virtualmachinescalesets/aks-np-1-vmss`;
// A fixed day in the middle of a month, so the first case knows a few days of it and no more.
const now = new Date('2026-03-13T12:00:00Z');
const today = Date.parse('2026-03-13T00:00:00Z');
const monthStart = Date.parse('2026-03-01T00:00:00Z');
const monthDays = (Date.parse('2026-04-01T00:00:00Z') - monthStart) / DAY;

describe.each([
  ['the month known since its first day (run rate)', monthStart],
  ['eight weeks known (seasonal baseline)', today - 60 * DAY],
])('Namespace month-end forecast with %s', (_label, first) => {
  let db: { prisma: PrismaClient; close(): Promise<void> };
  const usage = new MemoryUsageSource();

  beforeAll(async () => {
    db = await openMigratedDatabase('pglite');
    const nodes: AgentNodeRecord[] = [];
    const pods: AgentPodRecord[] = [];
    for (let t = first; t < today; t += HOUR) {
      const collectedAt = new Date(t + 20 * 60_000);
      nodes.push({
        collectedAt,
        nodeName: 'aks-np-1-vmss000000',
        providerId: `azure://${VMSS}/virtualMachines/0`,
        nodePool: 'np',
        cpuCapacityCores: 4,
        memoryCapacityBytes: 16 * GiB,
      });
      pods.push({
        collectedAt,
        namespace: 'shop',
        pod: 'api-1',
        container: 'api',
        nodeName: 'aks-np-1-vmss000000',
        cpuUsageCores: 1,
        memoryUsageBytes: GiB,
        cpuRequestCores: 4,
        memoryRequestBytes: 16 * GiB,
        ownerKind: 'Deployment',
        ownerName: 'api',
      });
    }
    usage.add('forecast-agent', { nodes, pods });
    const clusterId = `/subscriptions/${SUB}/resourcegroups/rg/providers/microsoft.containerservice/managedclusters/fc`;
    await db.prisma.kubernetesManagedCluster.create({
      data: {
        id: clusterId,
        subscriptionId: SUB,
        name: 'fc',
        resourceGroup: 'rg',
        nodeResourceGroup: 'mc_rg',
        location: 'westeurope',
        tier: 'Free',
        pools: [{ name: 'np', scaleSetId: VMSS, vmSize: 'Standard_D4s_v5' }],
        disks: [],
        collectedAt: now,
      },
    });
    const data = [];
    for (let d = first; d < today; d += DAY)
      data.push({
        clusterId,
        day: new Date(d),
        resourceId: VMSS,
        kind: 'pool',
        actualCost: 24,
        amortizedCost: 24,
        quantity: 24,
        currency: 'EUR',
        collectedAt: now,
      });
    await db.prisma.kubernetesBilledCost.createMany({ data });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('forecasts the namespace at its daily cost times the days of the month', async () => {
    const cluster = (await knownClusters(db.prisma, usage)).find((c) => c.clusterName === 'forecast-agent')!;
    const out = await forecastNamespaces(db.prisma, usage, {
      cluster,
      costType: 'ActualCost',
      sharedNamespaces: ['kube-system'],
      shareMode: 'weighted',
      now,
    });
    // The bill closes 48 hours after a day ends: the last known day is three days back.
    const lastKnown = today - 3 * DAY;
    const knownThisMonth = (lastKnown - monthStart) / DAY + 1;
    expect(out).toMatchObject({
      month: '2026-03',
      currency: 'EUR',
      lastKnownDay: new Date(lastKnown).toISOString().slice(0, 10),
    });
    expect(out.namespaces).toHaveLength(1);
    const [shop] = out.namespaces;
    expect(shop!.namespace).toBe('shop');
    expect(shop!.method).toBe(first === monthStart ? 'run-rate' : 'seasonal-baseline');
    expect(shop!.actualToDate).toBe(24 * knownThisMonth);
    expect(shop!.forecast).toBeCloseTo(24 * monthDays, 2);
  });
});
