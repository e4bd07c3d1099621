import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { retailPricesClient } from '../../shared/metrics/prices/retail-api.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { createUser, type TestUser } from '../support/users.js';
import { ANONYMOUS_INGEST, at, nodeData, sendNodes } from './alerts-support.js';

const UI_REQUEST = {
  currencyCode: 'USD',
  serviceName: 'Virtual Machines',
  armSkuName: 'Standard_D4s_v5',
  armRegionName: 'eastus',
  type: 'Consumption',
  OperatingSystem: 'Linux',
};

describe('the simulator serves the Retail Prices wire shape', () => {
  it('pages through NextPageLink with $skip, filters with the OData subset, answers PascalCase', async () => {
    const sim = await startAzureSimulator({ retailPricesPageSize: 3 });
    try {
      const url = `${sim.url}/api/retail/prices?currencyCode='USD'&$filter=${encodeURIComponent("armSkuName eq 'Standard_D2s_v5' and armRegionName eq 'westeurope'")}`;
      const first = (await (await fetch(url, { dispatcher: simAgent(sim) })).json()) as any;
      expect(Object.keys(first)).toEqual([
        'BillingCurrency',
        'CustomerEntityId',
        'CustomerEntityType',
        'Items',
        'NextPageLink',
        'Count',
      ]);
      expect(first.Count).toBe(3);
      expect(new URL(first.NextPageLink).searchParams.get('$skip')).toBe('3');
      // The client follows the links: all 8 items of one size in one region, the same on every run.
      const client = retailPricesClient(sim.url, sim.ca);
      const all = await client.lookup({
        currencyCode: 'USD',
        armSkuName: 'Standard_D2s_v5',
        armRegionName: 'westeurope',
      });
      await client.close();
      // Spot and Low Priority are filtered out by the client's filter: 8 - 3.
      expect(all.Items.map((i) => [i.type, i.skuName, i.productName])).toEqual([
        ['Consumption', 'D2s v5', 'Virtual Machines Dsv5 Series'],
        ['Consumption', 'D2s v5', 'Virtual Machines Dsv5 Series Windows'],
        ['DevTestConsumption', 'D2s v5', 'Virtual Machines Dsv5 Series Windows'],
        ['Reservation', 'D2s v5', 'Virtual Machines Dsv5 Series'],
        ['Reservation', 'D2s v5', 'Virtual Machines Dsv5 Series'],
      ]);
      expect(all.NextPageLink).toBeNull();
      const bad = await fetch(`${sim.url}/api/retail/prices?$filter=${encodeURIComponent('price gt 1')}`, {
        dispatcher: simAgent(sim),
      });
      expect(bad.status).toBe(400);
    } finally {
      await sim.close();
    }
  });
});

/** A dispatcher trusting the simulator's self-signed certificate. */
function simAgent(sim: AzureSimulator) {
  return new Agent({ connect: { ca: sim.ca } });
}

describe('cluster prices from node records, and POST azure-prices', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: TestUser;
  let user: TestUser;

  beforeAll(async () => {
    sim = await startAzureSimulator();
    host = await startTestHost({
      queueWorker: false,
      notifier: false,
      silenceTimer: false,
      metricsTimer: false,
      settings: {
        ...ANONYMOUS_INGEST,
        Metrics__AzurePricesBaseUrl: sim.url,
        Metrics__AzurePricesCacheMinutes: '10',
        Metrics__AzurePricesPerClientPerMinute: '5',
        // The simulator's certificate, trusted as npm start does.
        Cloud__CaFile: fileURLToPath(new URL('../../dev/azure-sim/tls/sim-cert.pem', import.meta.url)),
      },
    });
    api = apiClient(host.url);
    admin = await createUser(host.services.prisma, true);
    user = await createUser(host.services.prisma, false, { clusters: ['aks-a'] });
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const prices = async (path = '/metrics/api/cluster-prices', token = admin.token) =>
    api.get(path, { token });

  it('writes a price row when a node first reports and when its price changes, not on every post', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const post = async (minute: number, cluster: string, node: string, extra: object = {}) => {
      vi.setSystemTime(at(minute));
      await sendNodes(host, cluster, [{ at: at(minute), data: nodeData(cluster, node, undefined, extra) }]);
      await host.services.metricsAlerts.settled();
    };
    for (let m = 0; m < 5; m++) {
      await post(m, 'aks-a', 'n1');
      await post(m, 'aks-a', 'n2', { instanceType: 'Standard_E8ds_v5', region: 'WestEurope' });
      await post(m, 'aks-b', 'm1');
      // Not Azure, or no size: no price.
      await post(m, 'aks-b', 'other', {
        cloudProvider: 'EKS',
        region: 'us-east-1',
        instanceType: 'm5.large',
      });
    }
    expect(sim.stats.counts().prices).toBe(2); // one lookup per size and region, then the cache
    const first = await prices('/metrics/api/cluster-prices?minutes=60');
    expect(first.status).toBe(200);
    const rows = first.body.map((r: any) => [r.clusterName, r.nodeName, r.instanceType, r.retailPrice > 0]);
    expect(rows.sort()).toEqual([
      ['aks-a', 'n1', 'Standard_D4s_v5', true],
      ['aks-a', 'n2', 'Standard_E8ds_v5', true],
      ['aks-b', 'm1', 'Standard_D4s_v5', true],
    ]);
    const n1 = first.body.find((r: any) => r.nodeName === 'n1');
    expect(n1).toMatchObject({
      timestamp: at(0).toISOString(),
      region: 'eastus',
      operatingSystem: 'Linux',
      cloudProvider: 'AKS',
      currencyCode: 'USD',
      meterName: 'D4s v5',
      skuName: 'D4s v5',
      serviceName: 'Virtual Machines',
      armRegionName: 'eastus',
      effectiveStartDate: '2024-05-01T00:00:00.000Z',
    });
    expect(n1.unitPrice).toBe(n1.retailPrice);

    // Azure's price moves: after the cache's 10 minutes, each node gets one new row.
    sim.setRetailPriceFactor(1.1);
    for (let m = 20; m < 23; m++) await post(m, 'aks-a', 'n1');
    const after = await prices('/metrics/api/cluster-prices/cluster/AKS-A/node/n1?minutes=60');
    expect(after.body.map((r: any) => r.timestamp)).toEqual([at(20).toISOString(), at(0).toISOString()]);
    expect(after.body[0].retailPrice).toBeCloseTo(n1.retailPrice * 1.1, 3);

    // A window answers the prices in effect during it for the nodes that reported in it: n1's new
    // price and the one in effect when the window began; n2 has not reported since minute 4.
    const recent = await prices('/metrics/api/cluster-prices/cluster/aks-a?minutes=5');
    expect(recent.body.map((r: any) => [r.nodeName, r.timestamp])).toEqual([
      ['n1', at(20).toISOString()],
      ['n1', at(0).toISOString()],
    ]);
    vi.setSystemTime(at(40));
    expect((await prices('/metrics/api/cluster-prices/cluster/aks-a?minutes=5')).body).toEqual([]);
  });

  it('scopes the lists to the caller clusters', async () => {
    const mine = await prices('/metrics/api/cluster-prices?minutes=600', user.token);
    expect(new Set(mine.body.map((r: any) => r.clusterName))).toEqual(new Set(['aks-a']));
    expect(isProblem(await prices('/metrics/api/cluster-prices/cluster/aks-b', user.token), 403)).toBe(true);
    expect(isProblem(await prices('/metrics/api/cluster-prices?minutes=0'), 400)).toBe(true);
    expect((await api.get('/metrics/api/cluster-prices')).status).toBe(401);
  });

  it('POST azure-prices: anonymous, the web client body, validated, rate-limited', async () => {
    // Ten seconds into a minute: the per-minute count does not restart during the test.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(at(50).getTime() + 10_000));
    const res = await api.post('/metrics/api/azure-prices', { json: UI_REQUEST });
    expect(res.status).toBe(200);
    // Linux pay-as-you-go only: the Windows, Dev/Test, reservation, Spot and Low Priority items are filtered out.
    expect(res.body.Items.map((i: any) => [i.type, i.meterName, i.productName])).toEqual([
      ['Consumption', 'D4s v5', 'Virtual Machines Dsv5 Series'],
    ]);
    expect(res.body).toMatchObject({ BillingCurrency: 'USD', NextPageLink: null, Count: 1 });

    const nullBody = await api.post('/metrics/api/azure-prices', { raw: 'null' });
    expect(isProblem(nullBody, 400) && nullBody.body.detail).toBe('Request body is required');
    const filter = await api.post('/metrics/api/azure-prices', {
      json: { ...UI_REQUEST, filter: "serviceName eq 'x' or 1 eq 1" },
    });
    expect(isProblem(filter, 400)).toBe(true);
    expect(filter.body.errors.filter).toHaveLength(1);
    const quote = await api.post('/metrics/api/azure-prices', {
      json: { ...UI_REQUEST, armSkuName: "x' or '1" },
    });
    expect(isProblem(quote, 400)).toBe(true);
    const big = await api.post('/metrics/api/azure-prices', {
      json: { ...UI_REQUEST, productName: 'x'.repeat(5000) },
    });
    expect(isProblem(big, 413)).toBe(true);
    // Five a minute per address in this test's settings, invalid ones included (the 413 never
    // reached the app); the sixth waits for the next minute.
    expect((await api.post('/metrics/api/azure-prices', { json: UI_REQUEST })).status).toBe(200);
    const limited = await api.post('/metrics/api/azure-prices', { json: UI_REQUEST });
    expect(isProblem(limited, 429)).toBe(true);
    expect(limited.headers.get('retry-after')).toBe('50');
    vi.setSystemTime(at(51));
    expect((await api.post('/metrics/api/azure-prices', { json: UI_REQUEST })).status).toBe(200);
  });
});
