import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillRow, saveClusterBill } from '../../shared/finops/kubernetes/bill-store.js';
import type { ClusterPlan } from '../../shared/finops/kubernetes/discover.js';
import { detectNamespaceAnomalies } from '../../shared/finops/kubernetes/namespace-anomalies.js';
import {
  type AgentNodeRecord,
  type AgentPodRecord,
  MemoryUsageSource,
} from '../../shared/finops/kubernetes/usage-source.js';
import { ADMIN, type Api, stubAuth } from '../finops-engine/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';

const GiB = 1024 ** 3;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const SUB = '0b5c6a1e-1111-4a2b-8c3d-0000000000aa';
const NODE_RG = 'MC_rg_aks_westeurope';
const POOL = `/subscriptions/${SUB}/resourcegroups/${NODE_RG.toLowerCase()}/providers/microsoft.compute/virtualmachinescalesets/aks-np1-1234-vmss`;
const DAYS = 70;
const today = Math.floor(Date.now() / DAY) * DAY;
const first = today - DAYS * DAY;
/** The day `shop` asks for five times its usual CPU. */
const SPIKE = today - 10 * DAY;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

describe('namespace cost as an anomaly scope', () => {
  let host: TestHost;
  let api: Api;

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    stubAuth(host.services);
    api = apiClient(host.url);
    const plan: ClusterPlan = {
      id: `/subscriptions/${SUB}/resourcegroups/rg/providers/microsoft.containerservice/managedclusters/aks`,
      subscriptionId: SUB,
      name: 'aks',
      resourceGroup: 'rg',
      nodeResourceGroup: NODE_RG,
      location: 'westeurope',
      tier: 'Free',
      pools: [{ name: 'np1', scaleSetId: POOL, vmSize: 'Standard_D4s_v5' }],
      disks: [],
    };
    // Two nodes all day, every day: 48 instance-hours at 0.20.
    const bill: BillRow[] = [];
    for (let d = first; d < today; d += DAY) {
      bill.push({
        day: ymd(d),
        resourceId: POOL,
        kind: 'pool',
        actualCost: 9.6,
        amortizedCost: 9.6,
        quantity: 48,
        currency: 'EUR',
      });
    }
    await saveClusterBill(host.services.prisma, plan, bill, ymd(first), ymd(today), new Date());
    const nodes: AgentNodeRecord[] = [];
    const pods: AgentPodRecord[] = [];
    for (let d = first; d < today; d += DAY) {
      for (let h = 0; h < 24; h++) {
        const at = new Date(d + h * HOUR + 60_000);
        for (const n of [0, 1]) {
          nodes.push({
            collectedAt: at,
            nodeName: `node-${n}`,
            providerId: `azure://${POOL}/virtualMachines/${n}`,
            cpuCapacityCores: 4,
            memoryCapacityBytes: 16 * GiB,
          });
          for (const ns of ['shop', 'search']) {
            pods.push({
              collectedAt: at,
              namespace: ns,
              pod: `${ns}-${n}`,
              container: 'app',
              nodeName: `node-${n}`,
              cpuUsageCores: 0.1,
              memoryUsageBytes: GiB,
              cpuRequestCores: ns === 'shop' && d === SPIKE ? 3.5 : 0.7,
              memoryRequestBytes: 2 * GiB,
            });
          }
        }
      }
    }
    host.services.finops.kubernetesUsage = new MemoryUsageSource().add('prod-eu', { nodes, pods });
    await host.services.prisma.notificationChannel.create({
      data: { name: 'ops', kind: 'webhook', target: 'https://hooks.example/ops' },
    });
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  /** One detection over the subscription's namespaces, as an analysis runs it. */
  const detect = () =>
    detectNamespaceAnomalies(
      {
        prisma: host.services.prisma,
        log: host.services.log,
        usage: host.services.finops.kubernetesUsage,
        settings: { sensitivity: 4, minImpact: 1 },
        costType: 'AmortizedCost',
        sharedNamespaces: [],
        shareMode: 'weighted',
      },
      SUB,
    );

  it('finds the spike of one namespace, lists it with the other anomalies and queues its notification', async () => {
    const found = await detect();
    expect(found).toBe(1);
    const res = await api.get(`/finops/api/Anomalies?subscriptionId=${SUB}`, { token: ADMIN });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({
      scope: { kind: 'namespace', name: 'prod-eu/shop' },
      kind: 'spike',
      date: ymd(SPIKE),
      currency: 'EUR',
    });
    expect(res.body[0].impact).toBeGreaterThan(1);
    const deliveries = await host.services.prisma.notificationDelivery.findMany();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.eventType).toBe('anomaly');
    // A second detection over the same days stores and sends nothing new.
    const again = await detect();
    expect(again).toBe(0);
  });
});
