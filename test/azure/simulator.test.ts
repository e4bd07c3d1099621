import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASTE_CASES } from '../../dev/azure-sim/index.js';
import { type Harness, raw, rawToken, SUB, startHarness } from './helpers.js';

let h: Harness;
let token: string;
const costPath = `/subscriptions/${SUB}/providers/Microsoft.CostManagement/query?api-version=2023-11-01`;
const mtdBody = (grouping: string[], granularity = 'Daily') => ({
  type: 'ActualCost',
  timeframe: 'MonthToDate',
  dataset: {
    granularity,
    aggregation: { totalCost: { name: 'Cost', function: 'Sum' } },
    grouping: grouping.map((name) => ({ type: 'Dimension', name })),
  },
});

beforeAll(async () => {
  h = await startHarness({ costPageSize: 10 });
  token = await rawToken(h.sim);
});
afterAll(() => h.sim.close());

describe('Azure simulator wire shapes', () => {
  it('serves the token endpoint and OpenID metadata', async () => {
    expect(token.startsWith('simtoken.')).toBe(true);
    const meta = await raw(h.sim, 'GET', '/tenant-1/v2.0/.well-known/openid-configuration');
    expect((meta.body as { token_endpoint: string }).token_endpoint).toBe(
      `${h.sim.url}/tenant-1/oauth2/v2.0/token`,
    );
  });

  it('refuses ARM calls without a bearer token', async () => {
    const res = await raw(h.sim, 'GET', `/subscriptions/${SUB}?api-version=2021-01-01`);
    expect(res.status).toBe(401);
  });

  it('derives the same data from the same id and seed', async () => {
    const a = h.sim.subscription(SUB);
    const other = await startHarness({ costPageSize: 10 });
    try {
      const b = other.sim.subscription(SUB);
      expect(b.displayName).toBe(a.displayName);
      expect(b.resources.map((r) => r.id)).toEqual(a.resources.map((r) => r.id));
    } finally {
      await other.sim.close();
    }
    expect(a.resources).toHaveLength(60);
    const cases = new Set(a.billing.map((b) => b.waste).filter(Boolean));
    for (const c of WASTE_CASES) expect(cases.has(c)).toBe(true);
    const vm = a.resources.find((r) => r.type === 'microsoft.compute/virtualmachines');
    expect(vm?.properties).toHaveProperty('extended.instanceView.powerState.code');
  });

  it('answers cost queries with columns in the service order and a nextLink with an encoded $skiptoken', async () => {
    const res = await raw(h.sim, 'POST', costPath, mtdBody(['ResourceGroupName', 'ServiceName']), {
      authorization: `Bearer ${token}`,
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-ms-ratelimit-microsoft.costmanagement-qpu-remaining']).toMatch(/QueriesPerHour/);
    const props = (
      res.body as { properties: { columns: Array<{ name: string }>; rows: unknown[][]; nextLink: string } }
    ).properties;
    expect(props.columns.map((c) => c.name)).toEqual([
      'totalCost',
      'UsageDate',
      'ResourceGroupName',
      'ServiceName',
      'Currency',
    ]);
    expect(props.rows.length).toBeLessThanOrEqual(10);
    expect(props.nextLink).toMatch(/\$skiptoken=sk%2B[0-9a-f]+%2F10%3D%3D$/);
  });

  it('rejects a double-encoded or a raw $skiptoken with 400 (W2)', async () => {
    const first = await raw(h.sim, 'POST', costPath, mtdBody(['ResourceGroupName']), {
      authorization: `Bearer ${token}`,
    });
    const nextLink = (first.body as { properties: { nextLink: string } }).properties.nextLink;
    const path = nextLink.slice(h.sim.url.length);
    const [base, encoded] = path.split('$skiptoken=') as [string, string];
    const auth = { authorization: `Bearer ${token}` };
    const ok = await raw(h.sim, 'POST', path, mtdBody(['ResourceGroupName']), auth);
    expect(ok.status).toBe(200);
    const doubled = await raw(
      h.sim,
      'POST',
      `${base}$skiptoken=${encodeURIComponent(encoded)}`,
      mtdBody([]),
      auth,
    );
    expect(doubled.status).toBe(400);
    const rawToken_ = await raw(
      h.sim,
      'POST',
      `${base}$skiptoken=${decodeURIComponent(encoded)}`,
      mtdBody([]),
      auth,
    );
    expect(rawToken_.status).toBe(400);
  });

  it('keeps totals consistent across groupings', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const total = async (grouping: string[]) => {
      let sum = 0;
      let path: string | null = costPath;
      while (path) {
        const res = await raw(h.sim, 'POST', path, mtdBody(grouping, 'None'), auth);
        const p = (res.body as { properties: { rows: unknown[][]; nextLink: string | null } }).properties;
        for (const row of p.rows) sum += row[0] as number;
        path = p.nextLink ? p.nextLink.slice(h.sim.url.length) : null;
      }
      return sum;
    };
    const all = await total([]);
    expect(all).toBeGreaterThan(0);
    expect(await total(['ResourceId'])).toBeCloseTo(all, 6);
    expect(await total(['ResourceGroupName', 'ServiceName'])).toBeCloseTo(all, 6);
  });

  it('pages Resource Graph with $skipToken, at most 1,000 rows a page, with quota headers', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const path = '/providers/Microsoft.ResourceGraph/resources?api-version=2021-03-01';
    const query =
      "Resources | where type =~ 'Microsoft.Compute/disks' | project id, name, type | order by id asc";
    const first = await raw(h.sim, 'POST', path, { subscriptions: [SUB], query, options: { $top: 2 } }, auth);
    expect(first.status).toBe(200);
    expect(first.headers['x-ms-user-quota-remaining']).toBeDefined();
    const b = first.body as {
      totalRecords: number;
      count: number;
      $skipToken?: string;
      data: Array<{ type: string }>;
    };
    expect(b.count).toBe(2);
    expect(b.data.every((d) => d.type === 'microsoft.compute/disks')).toBe(true);
    expect(b.$skipToken).toBeTruthy();
    const big = await raw(
      h.sim,
      'POST',
      path,
      { subscriptions: [SUB], query, options: { $top: 5000 } },
      auth,
    );
    expect(big.status).toBe(400);
    const bad = await raw(
      h.sim,
      'POST',
      path,
      { subscriptions: [SUB], query: 'Resources | summarize count()' },
      auth,
    );
    expect(bad.status).toBe(400);
  });

  it('counts requests and exposes stats on the admin route', async () => {
    const stats = await raw(h.sim, 'GET', '/_sim/stats');
    expect((stats.body as { counts: { cost: number } }).counts.cost).toBeGreaterThan(0);
  });
});
