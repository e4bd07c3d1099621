import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  instancesAt,
  poolDayCost,
  poolDayHours,
  type SimAksCluster,
  simAksCluster,
} from '../../dev/azure-sim/aks.js';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { itemsFor } from '../../dev/azure-sim/retail-prices.js';
import { MemoryUsageSource } from '../../shared/finops/kubernetes/usage-source.js';
import { ADMIN, type Api, SUB_A, SUB_B, startAnalysisHost, USER } from '../finops-engine/support.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { STUB_USER, seedStubCallers } from '../support/users.js';
import {
  AGENT_CLUSTER,
  agentRecords,
  BILLED_FROM,
  BILLED_TO,
  billedCents,
  DAY,
  expectedNamespaces,
  GiB,
  OUTAGE,
  today,
  ymd,
} from './cluster-fixture.js';

const cents = (x: number) => Math.round(x * 100);

describe('Kubernetes cost through HTTP, on a simulated AKS cluster', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: Api;
  let cluster: SimAksCluster;
  const q = (o: Record<string, string>) => `?${new URLSearchParams({ clusterName: AGENT_CLUSTER, ...o })}`;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 12, aks: true });
    // Estimated days are priced from the simulator's Retail Prices API.
    host = await startAnalysisHost(sim, {
      queueWorker: false,
      extra: { Metrics__AzurePricesBaseUrl: sim.url },
    });
    api = apiClient(host.url);
    cluster = simAksCluster(SUB_A, 1);
    for (const sub of [SUB_A, SUB_B]) {
      const res = await api.post('/finops/api/Analysis/start', { token: ADMIN, json: sub });
      expect(res.status).toBe(200);
    }
    host.services.finops.kubernetesUsage = new MemoryUsageSource().add(AGENT_CLUSTER, agentRecords(cluster));
    await seedStubCallers(host.services.prisma);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('lists the agent cluster tied to its managed cluster through the nodes’ scale sets', async () => {
    const res = await api.get('/finops/api/KubernetesCost/clusters', { token: ADMIN });
    expect(res.status).toBe(200);
    const prod = res.body.find((c: { clusterName: string }) => c.clusterName === AGENT_CLUSTER);
    expect(prod).toMatchObject({
      reportedByAgent: true,
      managedClusterId: cluster.id.toLowerCase(),
      managedClusterName: 'aks-shop',
      subscriptionId: SUB_A,
      firstBilledDay: ymd(today - 30 * DAY),
      lastBilledDay: ymd(today),
    });
    // SUB_B's cluster is known to the bill only, under its managed cluster's name.
    const other = res.body.find((c: { subscriptionId: string }) => c.subscriptionId === SUB_B);
    expect(other).toMatchObject({ clusterName: 'aks-shop', reportedByAgent: false });
    expect(res.headers.get('x-total-count')).toBe('2');
  });

  for (const type of ['AmortizedCost', 'ActualCost'] as const) {
    it(`reconciles every billed day to the cent and allocates each namespace within 1 % (${type})`, async () => {
      const res = await api.get(
        `/finops/api/KubernetesCost/allocation${q({ from: BILLED_FROM, to: BILLED_TO, costType: type })}`,
        { token: ADMIN },
      );
      expect(res.status).toBe(200);
      expect(res.body.costType).toBe(type);
      expect(res.body.estimatedDays).toEqual([]);
      expect(res.body.days).toHaveLength(7);
      let billed = 0;
      for (const d of res.body.days) {
        const want = billedCents(cluster, Date.parse(`${d.day}T00:00:00Z`), type);
        expect(cents(d.billedCost)).toBe(want);
        expect(
          cents(d.allocated) + cents(d.idle) + cents(d.system) + cents(d.service) + cents(d.unallocated),
        ).toBe(want);
        billed += want;
      }
      expect(cents(res.body.billedCost)).toBe(billed);
      const expected = expectedNamespaces(cluster, today - 10 * DAY, today - 4 * DAY, type, 'weighted');
      expect(res.body.rows.map((r: { name: string }) => r.name).sort()).toEqual(['monitoring', 'shop']);
      for (const row of res.body.rows) {
        const want = expected.get(row.name)!;
        expect(Math.abs(row.totalCost - want) / want).toBeLessThan(0.01);
      }
      // The cluster resource, the public IP and the load balancer: service; 7 days.
      expect(cents(res.body.service)).toBe(7 * (240 + 12 + 60));
      expect(res.body.idle.map((i: { pool: string }) => i.pool).sort()).toEqual(['system', 'user']);
    });
  }

  it('charges the reserved pool at the reservation rate only in amortized cost', async () => {
    const get = async (type: string) =>
      (
        await api.get(
          `/finops/api/KubernetesCost/allocation${q({ from: BILLED_FROM, to: BILLED_TO, costType: type, aggregate: 'nodepool' })}`,
          { token: ADMIN },
        )
      ).body;
    const actual = await get('ActualCost');
    const amortized = await get('AmortizedCost');
    const system = (b: { rows: Array<{ name: string; totalCost: number }> }) =>
      b.rows.find((r) => r.name === 'system')?.totalCost ?? 0;
    expect(system(actual)).toBe(0);
    expect(system(amortized)).toBeGreaterThan(1);
    let difference = 0;
    for (let i = 0; i < 7; i++) {
      const day = today - (10 - i) * DAY;
      difference += billedCents(cluster, day, 'AmortizedCost') - billedCents(cluster, day, 'ActualCost');
    }
    expect(cents(amortized.billedCost) - cents(actual.billedCost)).toBe(difference);
    expect(difference).toBeGreaterThan(0);
  });

  it('leaves the outage hour unallocated at the pools’ rates, with the unclaimed disk', async () => {
    const day = ymd(OUTAGE);
    const res = await api.get(
      `/finops/api/KubernetesCost/allocation${q({ from: day, to: day, costType: 'AmortizedCost' })}`,
      { token: ADMIN },
    );
    const dayNo = Math.floor(OUTAGE / DAY);
    let want = cluster.disks.filter((d) => !d.claimName).reduce((s, d) => s + d.dailyCost, 0);
    for (const p of cluster.pools) {
      want += (instancesAt(p, OUTAGE) * poolDayCost(p, dayNo, 'AmortizedCost')) / poolDayHours(p, dayNo);
    }
    expect(Math.abs(res.body.unallocated - want)).toBeLessThanOrEqual(0.01);
    // Another day: only the released disk.
    const other = await api.get(
      `/finops/api/KubernetesCost/allocation${q({ from: BILLED_TO, to: BILLED_TO, costType: 'AmortizedCost' })}`,
      { token: ADMIN },
    );
    expect(other.body.unallocated).toBe(0.17);
  });

  it('spreads kube-system evenly when set so', async () => {
    host.services.config.finops.KubernetesCost__ShareMode = 'even';
    try {
      const res = await api.get(
        `/finops/api/KubernetesCost/allocation${q({ from: BILLED_FROM, to: BILLED_TO, costType: 'AmortizedCost' })}`,
        { token: ADMIN },
      );
      const expected = expectedNamespaces(
        cluster,
        today - 10 * DAY,
        today - 4 * DAY,
        'AmortizedCost',
        'even',
      );
      for (const row of res.body.rows) {
        const want = expected.get(row.name)!;
        expect(Math.abs(row.totalCost - want) / want).toBeLessThan(0.01);
      }
    } finally {
      host.services.config.finops.KubernetesCost__ShareMode = 'weighted';
    }
  });

  it("puts a PV disk's cost in its claim's namespace", async () => {
    const res = await api.get(
      `/finops/api/KubernetesCost/allocation${q({ from: BILLED_FROM, to: BILLED_TO, costType: 'AmortizedCost', aggregate: 'workload' })}`,
      { token: ADMIN },
    );
    const claim = res.body.rows.find(
      (r: { name: string }) => r.name === 'shop/PersistentVolumeClaim/data-postgres-0',
    );
    // 7 days of a 128 GB disk (each day rounded to the cent on its own); kube-system has no disk,
    // so its part of kube-system's cost (spread by cost) adds CPU and memory, not storage.
    expect(Math.abs(claim.storageCost - 7 * 0.648)).toBeLessThanOrEqual(0.07);
    expect(claim.cpuCoreHours).toBe(0);
    const monitoring = res.body.rows.find(
      (r: { name: string }) => r.name === 'monitoring/PersistentVolumeClaim/prometheus-data',
    );
    expect(Math.abs(monitoring.storageCost - 7 * 0.648)).toBeLessThanOrEqual(0.07);
  });

  it('estimates the days whose bill has not closed, and replaces them when it has', async () => {
    const from = ymd(today - 3 * DAY);
    const to = ymd(today - DAY);
    const before = await api.get(
      `/finops/api/KubernetesCost/allocation${q({ from, to, costType: 'AmortizedCost' })}`,
      { token: ADMIN },
    );
    expect(before.body.estimatedDays).toEqual([ymd(today - 2 * DAY), ymd(today - DAY)]);
    // SUB_A is billed in EUR: its open days are priced at the EUR retail rate of each pool's size,
    // the tier, disks and network as last billed.
    expect(before.body.currency).toBe('EUR');
    expect(before.body.estimatedPrices).toBe('retail-api');
    const eurHourly = (vmSize: string) =>
      itemsFor(vmSize, cluster.location, 1, 'EUR').find(
        (i) =>
          i.type === 'Consumption' &&
          !/Windows/.test(String(i.productName)) &&
          !/Spot|Low/.test(String(i.skuName)),
      )!.retailPrice as number;
    expect(eurHourly('Standard_D8s_v5')).not.toBe(
      itemsFor('Standard_D8s_v5', cluster.location)[0]!.retailPrice,
    );
    const lastBilled =
      24 * cluster.tierHourlyRate + cluster.publicIpDailyCost + cluster.loadBalancerDailyCost;
    const disks = cluster.disks.reduce((s, d) => s + d.dailyCost, 0);
    for (const day of [today - 2 * DAY, today - DAY]) {
      const nodes = cluster.pools.reduce((s, p) => s + poolDayHours(p, day / DAY) * eurHourly(p.vmSize), 0);
      const d = before.body.days.find((x: { day: string }) => x.day === ymd(day));
      expect(d.estimated).toBe(true);
      expect(Math.abs(cents(d.billedCost) - cents(nodes + lastBilled + disks))).toBeLessThanOrEqual(1);
      expect(
        cents(d.allocated) + cents(d.idle) + cents(d.system) + cents(d.service) + cents(d.unallocated),
      ).toBe(cents(d.billedCost));
    }
    // The sizes' prices are cached: asking again does not call the API.
    const asked = sim.stats.counts().prices;
    expect(asked).toBeGreaterThan(0);
    await api.get(`/finops/api/KubernetesCost/allocation${q({ from, to, costType: 'ActualCost' })}`, {
      token: ADMIN,
    });
    expect(sim.stats.counts().prices).toBe(asked);
    // As if the bill were collected again three days later: every one of these days has closed.
    await host.services.prisma.kubernetesManagedCluster.updateMany({
      data: { collectedAt: new Date(Date.now() + 3 * DAY) },
    });
    const after = await api.get(
      `/finops/api/KubernetesCost/allocation${q({ from, to, costType: 'AmortizedCost' })}`,
      { token: ADMIN },
    );
    expect(after.body.estimatedDays).toEqual([]);
    expect(after.body.estimatedPrices).toBeNull();
    for (const d of after.body.days) {
      expect(cents(d.billedCost)).toBe(
        billedCents(cluster, Date.parse(`${d.day}T00:00:00Z`), 'AmortizedCost'),
      );
    }
    await host.services.prisma.kubernetesManagedCluster.updateMany({ data: { collectedAt: new Date() } });
  });

  it('answers the rows as CSV on Accept: text/csv, and by label', async () => {
    const res = await api.get(
      `/finops/api/KubernetesCost/allocation${q({ from: BILLED_FROM, to: BILLED_TO, aggregate: 'label:team' })}`,
      { token: ADMIN, headers: { accept: 'text/csv' } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]).toBe('name,cpuCost,memoryCost,storageCost,totalCost,cpuCoreHours,memoryGiBHours');
    // team=platform is kube-system's, spread over the others; disks have no label.
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).toEqual(['(none)', 'obs', 'shop']);
  });

  it('shows a user only the clusters assigned to them, by cluster or by subscription', async () => {
    const list = async () =>
      (
        (await api.get('/finops/api/KubernetesCost/clusters', { token: USER })).body as Array<{
          clusterName: string;
        }>
      )
        .map((c) => c.clusterName)
        .sort();
    expect(await list()).toEqual([]);
    const denied = await api.get(`/finops/api/KubernetesCost/allocation${q({})}`, { token: USER });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('content-type')).toMatch(/problem\+json/);
    await host.services.prisma.userSubscription.create({
      data: { userId: STUB_USER.id, subscriptionId: SUB_B },
    });
    expect(await list()).toEqual(['aks-shop']);
    await host.services.prisma.userCluster.create({
      data: { userId: STUB_USER.id, clusterName: AGENT_CLUSTER },
    });
    expect(await list()).toEqual(['aks-shop', AGENT_CLUSTER]);
    const allowed = await api.get(`/finops/api/KubernetesCost/allocation${q({})}`, { token: USER });
    expect(allowed.status).toBe(200);
  });

  it('recommends requests from usage: over-requested with a saving, under-requested as a risk', async () => {
    const res = await api.get(`/finops/api/KubernetesCost/rightsizing${q({})}`, { token: ADMIN });
    expect(res.status).toBe(200);
    const item = (workload: string) =>
      res.body.items.find((i: { workload: string }) => i.workload === workload);
    const api0 = item('Deployment/api');
    // Uses 0.5 core and 3 GiB steadily, asks for 1 core and 2 GiB: CPU 0.5 * 1.15, memory 3 GiB * 1.15.
    expect(api0).toMatchObject({
      namespace: 'shop',
      container: 'api',
      current: { cpuCores: 1, memoryBytes: 2 * GiB },
      recommended: { cpuCores: 0.575, memoryBytes: Math.ceil(3 * 1024 * 1.15) * 1024 * 1024 },
      kind: 'under-requested',
    });
    const prometheus = item('StatefulSet/prometheus');
    // Uses 0.7 core of the 0.5 it asks: a risk, with a negative saving.
    expect(prometheus.recommended.cpuCores).toBe(0.805);
    expect(prometheus.kind).toBe('under-requested');
    expect(prometheus.monthlySaving).toBeLessThan(0);
    const proxy = item('DaemonSet/kube-proxy');
    // Asks 0.1 core / 128 MiB, uses 0.05 / ~102 MiB: CPU to 0.0575, memory up to the 250 MiB minimum.
    expect(proxy.recommended.cpuCores).toBeCloseTo(0.0575, 2);
    expect(proxy.recommended.memoryBytes).toBe(250 * 1024 * 1024);
    const worker = item('Deployment/worker');
    // Asks 2 cores / 4 GiB, uses 1.5 / 2 GiB: 1.725 cores and 2.3 GiB would do, a saving.
    expect(worker.recommended.cpuCores).toBe(1.725);
    expect(worker.kind).toBe('over-requested');
    expect(worker.monthlySaving).toBeGreaterThan(0);
    expect(res.body.windowDays).toBe(7);
    const one = await api.get(`/finops/api/KubernetesCost/rightsizing${q({ namespace: 'monitoring' })}`, {
      token: ADMIN,
    });
    expect(one.body.items.map((i: { workload: string }) => i.workload)).toEqual(['StatefulSet/prometheus']);
  });

  it("forecasts each allocated namespace's month-end from its closed days, paged, with its interval", async () => {
    const res = await api.get(`/finops/api/KubernetesCost/forecast${q({})}`, { token: ADMIN });
    expect(res.status).toBe(200);
    const month = new Date().toISOString().slice(0, 7);
    expect(res.body).toMatchObject({ clusterName: AGENT_CLUSTER, month });
    const list: Array<{
      namespace: string;
      actualToDate: number;
      forecast: number;
      low: number;
      high: number;
    }> = res.body.namespaces;
    expect(list.length).toBeGreaterThan(0);
    expect(res.headers.get('x-total-count')).toBe(String(list.length));
    const firstOfMonth = `${month}-01`;
    const lastKnown: string | null = res.body.lastKnownDay;
    if (lastKnown && lastKnown >= firstOfMonth) {
      // The month's closed days since the bill's first, as the allocation route charges them.
      const clusters = await api.get('/finops/api/KubernetesCost/clusters', { token: ADMIN });
      const firstBilled: string = clusters.body.find(
        (c: { clusterName: string }) => c.clusterName === AGENT_CLUSTER,
      ).firstBilledDay;
      const from = firstBilled > firstOfMonth ? firstBilled : firstOfMonth;
      const alloc = await api.get(`/finops/api/KubernetesCost/allocation${q({ from, to: lastKnown })}`, {
        token: ADMIN,
      });
      expect(alloc.status).toBe(200);
      const allocated = new Map<string, number>(
        alloc.body.rows.map((r: { name: string; totalCost: number }) => [r.name, r.totalCost]),
      );
      expect(list.map((n) => n.namespace).sort()).toEqual([...allocated.keys()].sort());
      for (const n of list) expect(cents(n.actualToDate)).toBe(cents(allocated.get(n.namespace)!));
    } else {
      // Early in a month the billed days of the fixture are last month's: nothing known yet.
      for (const n of list) expect(n.actualToDate).toBe(0);
    }
    for (const n of list) {
      expect(n.forecast).toBeGreaterThanOrEqual(n.actualToDate);
      expect(n.low).toBeLessThanOrEqual(n.forecast);
      expect(n.high).toBeGreaterThanOrEqual(n.forecast);
    }
    const forecasts = list.map((n) => n.forecast);
    expect(forecasts).toEqual([...forecasts].sort((a, b) => b - a));
    const first = await api.get(`/finops/api/KubernetesCost/forecast${q({ page: '1', pageSize: '1' })}`, {
      token: ADMIN,
    });
    expect(first.body.namespaces).toEqual(list.slice(0, 1));
    const missing = await api.get('/finops/api/KubernetesCost/forecast?clusterName=nope', { token: ADMIN });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/problem\+json/);
    const noCluster = await api.get('/finops/api/KubernetesCost/forecast', { token: ADMIN });
    expect(noCluster.status).toBe(400);
  });

  it('refuses bad input with problem+json', async () => {
    const bad = async (query: string, status: number) => {
      const res = await api.get(`/finops/api/KubernetesCost/allocation${query}`, { token: ADMIN });
      expect(res.status, query).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    };
    await bad(q({ aggregate: 'owner' }), 400);
    await bad(q({ costType: 'Usage' }), 400);
    await bad(q({ from: '2026-02-30' }), 400);
    await bad(q({ from: BILLED_TO, to: BILLED_FROM }), 400);
    await bad('?from=2026-01-01', 400);
    await bad(`?clusterName=nope`, 404);
    const anon = await api.get(`/finops/api/KubernetesCost/clusters`);
    expect(anon.status).toBe(401);
  });
});
