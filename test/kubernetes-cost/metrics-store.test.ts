import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simAksCluster } from '../../dev/azure-sim/aks.js';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { ADMIN, type Api, SUB_A, startAnalysisHost } from '../finops-engine/support.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import {
  AGENT_CLUSTER,
  agentRecords,
  billedCents,
  DAY,
  expectedNamespaces,
  today,
  ymd,
} from './cluster-fixture.js';

/**
 * The whole path: the agent's records posted to the metrics ingest route, stored by the metrics
 * store with its hourly rollups, read back by the Kubernetes cost allocation, against the bill an
 * analysis collected from the simulator.
 */
describe('Kubernetes cost from the metrics store', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: Api;
  const cluster = simAksCluster(SUB_A, 1);
  const days = [today - 6 * DAY, today - 5 * DAY, today - 4 * DAY];

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 12, aks: true });
    host = await startAnalysisHost(sim, {
      queueWorker: false,
      settings: { Metrics__AllowAnonymousIngest: 'true' },
    });
    api = apiClient(host.url);
    expect((await api.post('/finops/api/Analysis/start', { token: ADMIN, json: SUB_A })).status).toBe(200);
    const { nodes, pods } = agentRecords(cluster, days);
    const records = [
      ...nodes.map(({ collectedAt, ...n }) => ({
        kind: 'node',
        collectedAt: collectedAt.toISOString(),
        data: {
          clusterName: AGENT_CLUSTER,
          cpuUsageCores: 1,
          memoryUsageBytes: 1e9,
          cloudProvider: 'AKS',
          ...n,
        },
      })),
      ...pods.map(({ collectedAt, ...p }) => ({
        kind: 'pod',
        collectedAt: collectedAt.toISOString(),
        data: { clusterName: AGENT_CLUSTER, podState: 'Running', ...p },
      })),
    ];
    for (let i = 0; i < records.length; i += 4000) {
      const res = await api.post('/metrics/api/ingest/batch', {
        json: {
          batchId: crypto.randomUUID(),
          clusterName: AGENT_CLUSTER,
          records: records.slice(i, i + 4000),
        },
      });
      expect(res.status, res.text).toBe(200);
    }
  }, 180_000);
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('ties the agent cluster to its managed cluster and allocates each billed day to the cent', async () => {
    const clusters = await api.get('/finops/api/KubernetesCost/clusters', { token: ADMIN });
    expect(clusters.body.find((c: { clusterName: string }) => c.clusterName === AGENT_CLUSTER)).toMatchObject(
      {
        reportedByAgent: true,
        subscriptionId: SUB_A,
        managedClusterId: cluster.id.toLowerCase(),
      },
    );
    const from = ymd(days[0]!);
    const to = ymd(days[2]!);
    const res = await api.get(
      `/finops/api/KubernetesCost/allocation?${new URLSearchParams({ clusterName: AGENT_CLUSTER, from, to, costType: 'AmortizedCost' })}`,
      { token: ADMIN },
    );
    expect(res.status).toBe(200);
    expect(res.body.estimatedDays).toEqual([]);
    for (const d of res.body.days) {
      const want = billedCents(cluster, Date.parse(`${d.day}T00:00:00Z`), 'AmortizedCost');
      const parts = [d.allocated, d.idle, d.system, d.service, d.unallocated].reduce(
        (s: number, x: number) => s + Math.round(x * 100),
        0,
      );
      expect(parts).toBe(want);
    }
    const expected = expectedNamespaces(cluster, days[0]!, days[2]!, 'AmortizedCost', 'weighted');
    expect(res.body.rows.map((r: { name: string }) => r.name).sort()).toEqual(['monitoring', 'shop']);
    for (const row of res.body.rows) {
      const want = expected.get(row.name)!;
      expect(Math.abs(row.totalCost - want) / want).toBeLessThan(0.01);
    }
    // The other aggregates, summed in SQL the same way: same total, rows named as the API says.
    const by = async (aggregate: string) =>
      (
        await api.get(
          `/finops/api/KubernetesCost/allocation?${new URLSearchParams({ clusterName: AGENT_CLUSTER, from, to, costType: 'AmortizedCost', aggregate })}`,
          { token: ADMIN },
        )
      ).body as { rows: Array<{ name: string; totalCost: number }> };
    const total = (b: { rows: Array<{ totalCost: number }> }) =>
      Math.round(b.rows.reduce((s, r) => s + r.totalCost, 0) * 100);
    const namespaces = total(res.body);
    const labels = await by('label:team');
    expect(labels.rows.map((r) => r.name).sort()).toEqual(['(none)', 'obs', 'shop']);
    const pools = await by('nodepool');
    expect(pools.rows.map((r) => r.name).sort()).toEqual(['(disks)', 'system', 'user']);
    const workloads = await by('workload');
    expect(workloads.rows.map((r) => r.name)).toContain('shop/Deployment/api');
    for (const b of [labels, pools, workloads])
      expect(Math.abs(total(b) - namespaces)).toBeLessThanOrEqual(6);
  });
});
