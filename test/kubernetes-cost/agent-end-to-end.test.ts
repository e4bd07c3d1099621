import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../agent/src/agent.js';
import { loadConfig } from '../../agent/src/config.js';
import type { Node, NodeMetrics, Pod, PodMetrics } from '../../agent/src/kube-types.js';
import { createLogger } from '../../agent/src/logger.js';
import { emptyCluster, type FakeKube, startFakeKube } from '../../agent/test/fakes/kube-server.js';
import { instancesAt, type SimAksCluster, simAksCluster } from '../../dev/azure-sim/aks.js';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { ADMIN, type Api, SUB_A, SUB_B, startAnalysisHost, USER } from '../finops-engine/support.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { STUB_USER, seedStubCallers } from '../support/users.js';
import { billedCents, DAY, HOUR, ymd } from './cluster-fixture.js';

const CLUSTER_NAME = 'shop-prod';
const cents = (x: number) => Math.round(x * 100);

/**
 * The simulated AKS cluster as its API server shows it: each pool's nodes of the current hour, with
 * the provider id AKS gives them (their scale set's instance), and a few pods with requests.
 */
function apiServerOf(cluster: SimAksCluster, subscriptionId: string, now: number) {
  const fake = emptyCluster();
  const nodes: Node[] = [];
  const nodeMetrics: NodeMetrics[] = [];
  for (const pool of cluster.pools) {
    for (let i = 0; i < instancesAt(pool, Math.floor(now / HOUR) * HOUR); i++) {
      const name = `${pool.scaleSetName.replace(/-vmss$/, '')}-vmss${String(i).padStart(6, '0')}`;
      nodes.push({
        metadata: {
          name,
          uid: `uid-${name}`,
          labels: {
            'kubernetes.azure.com/agentpool': pool.name,
            'node.kubernetes.io/instance-type': pool.vmSize,
            'topology.kubernetes.io/region': cluster.location,
          },
        },
        spec: {
          providerID: `azure:///subscriptions/${subscriptionId}/resourceGroups/${cluster.nodeResourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${pool.scaleSetName}/virtualMachines/${i}`,
        },
        status: {
          capacity: { cpu: String(pool.cores), memory: `${pool.memoryGiB}Gi` },
          allocatable: { cpu: `${pool.cores * 1000 - 140}m`, memory: `${pool.memoryGiB - 2}Gi` },
          conditions: [{ type: 'Ready', status: 'True' }],
          nodeInfo: { architecture: 'amd64', operatingSystem: 'linux', kubeletVersion: 'v1.30.4' },
        },
      });
      nodeMetrics.push({ metadata: { name }, usage: { cpu: '1', memory: '4Gi' } });
    }
  }
  const userNode = nodes.find((n) => n.metadata?.labels?.['kubernetes.azure.com/agentpool'] === 'user')!;
  const systemNode = nodes[0]!;
  const pod = (namespace: string, name: string, node: Node, cpu: string, memory: string): Pod => ({
    metadata: { name, namespace, uid: `pod-${name}`, creationTimestamp: new Date(now - DAY).toISOString() },
    spec: {
      nodeName: node.metadata?.name,
      containers: [{ name: 'main', resources: { requests: { cpu, memory } } }],
    },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'main', restartCount: 0, state: { running: {} } }],
    },
  });
  const pods = [
    pod('shop', 'api-0', userNode, '2', '4Gi'),
    pod('shop', 'api-1', userNode, '2', '4Gi'),
    pod('monitoring', 'prometheus-0', systemNode, '500m', '2Gi'),
    pod('kube-system', 'coredns-0', systemNode, '100m', '128Mi'),
  ];
  const podMetrics: PodMetrics[] = pods.map((p) => ({
    metadata: { name: p.metadata?.name ?? '', namespace: p.metadata?.namespace ?? '' },
    containers: [{ name: 'main', usage: { cpu: '250m', memory: '1Gi' } }],
  }));
  fake.nodes = nodes;
  fake.nodeMetrics = nodeMetrics;
  fake.pods = pods;
  fake.podMetrics = podMetrics;
  return fake;
}

/**
 * The whole path, through HTTP: the real agent reads a fake Kubernetes API server whose nodes are
 * the simulator's AKS scale set instances and posts to a finwatch host; an analysis of the
 * subscription collects the bill; the Kubernetes cost ties the two through the provider ids.
 */
describe('the agent on a simulated AKS cluster, end to end', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let kube: FakeKube;
  let api: Api;
  const cluster = simAksCluster(SUB_A, 1);
  const today = Math.floor(Date.now() / DAY) * DAY;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 12, aks: true });
    host = await startAnalysisHost(sim, {
      queueWorker: false,
      settings: { Metrics__AllowAnonymousIngest: 'true' },
    });
    api = apiClient(host.url);
    kube = await startFakeKube(apiServerOf(cluster, SUB_A, Date.now()));
    const env = {
      KUBECONFIG: kube.kubeconfig,
      CLUSTER_NAME,
      METRICS_API_URL: `${host.url}/metrics`,
      NAMESPACES_TO_WATCH: 'shop, monitoring, kube-system',
      CLUSTER_ENVIRONMENT: 'PROD',
      INGEST_MODE: 'batch',
      LOG_LEVEL: 'Error',
    };
    const silent = new Writable({ write: (_c, _e, done) => done() });
    const config = loadConfig(env);
    const agent = await Agent.create(config, createLogger(config.logLevel, silent), env);
    try {
      // Two cycles: every node is seen in each of the hour's cycles.
      for (let i = 0; i < 2; i++) {
        const summary = await agent.runOnce();
        expect(JSON.stringify(summary)).not.toMatch(/"failed":[1-9]/);
      }
    } finally {
      await agent.close();
    }
    expect((await api.post('/finops/api/Analysis/start', { token: ADMIN, json: SUB_A })).status).toBe(200);
    expect((await api.post('/finops/api/Analysis/start', { token: ADMIN, json: SUB_B })).status).toBe(200);
    await seedStubCallers(host.services.prisma);
  }, 180_000);
  afterAll(async () => {
    await kube?.close();
    await host?.close();
    await sim?.close();
  });

  it("ties the agent's cluster to its managed cluster through the nodes' provider ids", async () => {
    const res = await api.get('/finops/api/KubernetesCost/clusters', { token: ADMIN });
    expect(res.status).toBe(200);
    expect(res.body.find((c: { clusterName: string }) => c.clusterName === CLUSTER_NAME)).toMatchObject({
      reportedByAgent: true,
      managedClusterId: cluster.id.toLowerCase(),
      managedClusterName: cluster.name,
      subscriptionId: SUB_A,
      nodeResourceGroup: cluster.nodeResourceGroup,
      lastBilledDay: ymd(today),
    });
  });

  it("allocates the day the agent reported to namespaces, reconciled to the cent with the day's bill", async () => {
    // As if the bill were collected again three days later: today has closed.
    await host.services.prisma.kubernetesManagedCluster.updateMany({
      data: { collectedAt: new Date(Date.now() + 3 * DAY) },
    });
    try {
      const res = await api.get(
        `/finops/api/KubernetesCost/allocation?${new URLSearchParams({ clusterName: CLUSTER_NAME, from: ymd(today), to: ymd(today), costType: 'AmortizedCost' })}`,
        { token: ADMIN },
      );
      expect(res.status).toBe(200);
      expect(res.body.estimatedDays).toEqual([]);
      const billed = billedCents(cluster, today, 'AmortizedCost');
      expect(cents(res.body.billedCost)).toBe(billed);
      const rows = res.body.rows as Array<{ name: string; totalCost: number; cpuCoreHours: number }>;
      // kube-system is shared over the others, not a row of its own.
      expect(rows.map((r) => r.name).sort()).toEqual(['monitoring', 'shop']);
      // shop asks 4 cores for the hour on a user node; monitoring half a core on a system node.
      expect(rows.find((r) => r.name === 'shop')!.cpuCoreHours).toBeCloseTo(4, 6);
      expect(rows.find((r) => r.name === 'monitoring')!.cpuCoreHours).toBeCloseTo(0.5, 6);
      for (const r of rows) expect(r.totalCost).toBeGreaterThan(0);
      const parts =
        rows.reduce((s, r) => s + cents(r.totalCost), 0) +
        res.body.idle.reduce((s: number, i: { totalCost: number }) => s + cents(i.totalCost), 0) +
        cents(res.body.system) +
        cents(res.body.service) +
        cents(res.body.unallocated);
      expect(parts).toBe(billed);
      // The hours the agent did not see (it ran one hour of the day) are unallocated, not spread.
      expect(res.body.unallocated).toBeGreaterThan(res.body.billedCost / 2);
    } finally {
      await host.services.prisma.kubernetesManagedCluster.updateMany({ data: { collectedAt: new Date() } });
    }
  });

  it('shows a user only the clusters assigned to them, the same on the metrics and the Kubernetes cost APIs', async () => {
    const seen = async () => ({
      metrics: (await api.get('/metrics/api/metrics/clusters', { token: USER })).body as string[],
      cost: (
        (await api.get('/finops/api/KubernetesCost/clusters', { token: USER })).body as Array<{
          clusterName: string;
        }>
      ).map((c) => c.clusterName),
      namespaces: (
        await api.get(`/metrics/api/metrics/namespaces?clusterName=${CLUSTER_NAME}`, { token: USER })
      ).status,
      allocation: (
        await api.get(`/finops/api/KubernetesCost/allocation?clusterName=${CLUSTER_NAME}`, { token: USER })
      ).status,
    });
    // Nothing assigned: nothing seen, and naming the cluster is refused on both.
    expect(await seen()).toEqual({ metrics: [], cost: [], namespaces: 403, allocation: 403 });
    // Another subscription: its bill-only cluster, not the agent's.
    await host.services.prisma.userSubscription.create({
      data: { userId: STUB_USER.id, subscriptionId: SUB_B },
    });
    expect(await seen()).toEqual({ metrics: [], cost: ['aks-shop'], namespaces: 403, allocation: 403 });
    // The agent's cluster's subscription: the agent's cluster on both services.
    await host.services.prisma.userSubscription.create({
      data: { userId: STUB_USER.id, subscriptionId: SUB_A },
    });
    expect(await seen()).toEqual({
      metrics: [CLUSTER_NAME],
      cost: ['aks-shop', CLUSTER_NAME],
      namespaces: 200,
      allocation: 200,
    });
    await host.services.prisma.userSubscription.deleteMany({ where: { userId: STUB_USER.id } });
    // Assigned by the agent's cluster name: the same.
    await host.services.prisma.userCluster.create({
      data: { userId: STUB_USER.id, clusterName: CLUSTER_NAME },
    });
    expect(await seen()).toEqual({
      metrics: [CLUSTER_NAME],
      cost: [CLUSTER_NAME],
      namespaces: 200,
      allocation: 200,
    });
  });
});
