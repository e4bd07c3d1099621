import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { createUser, ensureAuth, FIXTURE_TYPES, insertFixtureRun, type TestUser } from './support.js';

const SUB = '44444444-dddd-4ddd-8ddd-000000000004';

describe('finops Resources and CostDetails routes (fixture runs inserted with Prisma)', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  let run = 0;
  const get = (path: string) => api.get(`/finops/api/${path}`, { token: user.token });

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false);
    await ensureAuth(host, user);
    run = (
      await insertFixtureRun(host.services.prisma, {
        subscriptionId: SUB,
        subscriptionName: 'Delta',
        runDate: new Date('2026-05-04T00:00:00Z'),
        days: 2,
      })
    ).id;
    // A second run of other data must never leak into the first one's answers.
    await insertFixtureRun(host.services.prisma, {
      subscriptionId: SUB,
      subscriptionName: 'Delta',
      runDate: new Date('2026-05-05T00:00:00Z'),
      days: 1,
      resources: 3,
    });
  });
  afterAll(async () => {
    await host?.close();
  });

  it.each([
    'Resources/analysis/1',
    'Resources/analysis/1/type/x',
    'Resources/analysis/1/summary/types',
    'CostDetails/analysis/1',
    'CostDetails/analysis/1/top/5',
  ])('GET %s without a token is 401', async (path) => {
    expect(isProblem(await api.get(`/finops/api/${path}`), 401)).toBe(true);
  });

  it.each([
    'Resources/analysis/abc',
    'Resources/analysis/0/flags',
    'Resources/analysis/1.5/summary/types',
    'Resources/analysis/99999999999/search?searchTerm=x',
    'CostDetails/analysis/x',
    'CostDetails/analysis/-1/summary/services',
  ])('GET %s (non-numeric or non-positive run id) is 400', async (path) => {
    expect(isProblem(await get(path), 400)).toBe(true);
  });

  describe('Resources', () => {
    it('pages a run by type then name with the default page size of 50', async () => {
      const res = await get(`Resources/analysis/${run}`);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(24);
      expect(res.headers.get('x-total-count')).toBe('24');
      expect(res.headers.get('x-page-size')).toBe('50');
      const keys = res.body.map(
        (r: { resourceType: string; resourceName: string }) => `${r.resourceType}|${r.resourceName}`,
      );
      expect(keys).toEqual([...keys].sort());
      expect(res.body[0]).toMatchObject({ analysisRunId: run, analysisRun: null, location: 'westeurope' });
      expect(res.body[0].recordedAt).toBe('2026-05-04T00:00:00');
      expect(typeof res.body[0].tagsJson).toBe('string');
      const p2 = await get(`Resources/analysis/${run}?page=3&pageSize=10`);
      expect(p2.body).toHaveLength(4);
      expect(p2.headers.get('x-page')).toBe('3');
      expect(p2.headers.get('x-total-count')).toBe('24');
      const past = await get(`Resources/analysis/${run}?page=9&pageSize=10`);
      expect(past.body).toEqual([]);
      expect(past.headers.get('x-total-count')).toBe('24');
    });

    it('filters by type case-insensitively, ordered by name, unpaged unless asked', async () => {
      const res = await get(
        `Resources/analysis/${run}/type/${encodeURIComponent(FIXTURE_TYPES[0]!.toUpperCase())}`,
      );
      expect(res.body).toHaveLength(6);
      expect(res.body.every((r: { resourceType: string }) => r.resourceType === FIXTURE_TYPES[0])).toBe(true);
      const names = res.body.map((r: { resourceName: string }) => r.resourceName);
      expect(names).toEqual([...names].sort());
      const paged = await get(
        `Resources/analysis/${run}/type/${encodeURIComponent(FIXTURE_TYPES[0]!)}?pageSize=4`,
      );
      expect(paged.body).toHaveLength(4);
      expect(paged.headers.get('x-total-count')).toBe('6');
      expect((await get(`Resources/analysis/${run}/type/unknown`)).body).toEqual([]);
    });

    it('filters by resource group case-insensitively and writes groups upper-case', async () => {
      const res = await get(`Resources/analysis/${run}/resourcegroup/rg-shared_1`);
      expect(res.body).toHaveLength(8);
      expect(new Set(res.body.map((r: { resourceGroup: string }) => r.resourceGroup))).toEqual(
        new Set(['RG-SHARED_1']),
      );
      // '_' is not a wildcard: RG-SHAREDX1 would not match.
      expect((await get(`Resources/analysis/${run}/resourcegroup/rg-sharedx1`)).body).toEqual([]);
    });

    it('lists flagged resources, optionally whose flags contain flagContains', async () => {
      const all = await get(`Resources/analysis/${run}/flags`);
      expect(all.body).toHaveLength(8);
      expect(all.body.every((r: { flags: string }) => r.flags.length > 0)).toBe(true);
      const some = await get(`Resources/analysis/${run}/flags?flagContains=old%20SNAPSHOT`);
      expect(some.body).toHaveLength(4);
      expect((await get(`Resources/analysis/${run}/flags?flagContains=%25`)).body).toEqual([]);
    });

    it('summarises by type and by group, count descending', async () => {
      const types = await get(`Resources/analysis/${run}/summary/types`);
      expect(types.body).toHaveLength(4);
      for (const t of types.body) expect(t).toMatchObject({ count: 6, withFlags: 2 });
      const groups = await get(`Resources/analysis/${run}/summary/resourcegroups`);
      expect(groups.body).toContainEqual({ resourceGroup: 'RG-WEB', count: 8, types: 4, withFlags: 8 });
      expect(groups.body).toContainEqual({ resourceGroup: 'RG-DATA', count: 8, types: 4, withFlags: 0 });
    });

    it('searches name, group and type case-insensitively with LIKE wildcards taken literally', async () => {
      expect((await get(`Resources/analysis/${run}/search?searchTerm=RES-00`)).body).toHaveLength(9);
      const pct = await get(`Resources/analysis/${run}/search?searchTerm=${encodeURIComponent('odd%')}`);
      expect(pct.body.map((r: { resourceName: string }) => r.resourceName)).toEqual(['odd%name_0']);
      expect((await get(`Resources/analysis/${run}/search?searchTerm=%25`)).body).toHaveLength(1);
      expect((await get(`Resources/analysis/${run}/search?searchTerm=_`)).body).toHaveLength(9);
      expect((await get(`Resources/analysis/${run}/search?searchTerm=PUBLICIP`)).body).toHaveLength(6);
    });

    it.each(['', '?searchTerm=', '?searchTerm=%20%20'])('refuses search%s with 400', async (q) => {
      const res = await get(`Resources/analysis/${run}/search${q}`);
      expect(isProblem(res, 400)).toBe(true);
      expect(res.body.detail).toBe('Search term is required');
    });

    it('answers an unknown run with an empty list', async () => {
      expect((await get('Resources/analysis/999999')).body).toEqual([]);
      expect((await get('Resources/analysis/999999/summary/types')).body).toEqual([]);
    });
  });

  describe('CostDetails', () => {
    it('lists cost lines by cost descending with merged tags and exact money', async () => {
      const res = await get(`CostDetails/analysis/${run}`);
      expect(res.body).toHaveLength(12);
      const costs = res.body.map((c: { cost: number }) => c.cost);
      expect(costs).toEqual([...costs].sort((a, b) => b - a));
      expect(res.body[0]).toMatchObject({
        costType: 'ResourceGroup',
        name: 'RG-SHARED_1',
        resourceGroup: 'RG-SHARED_1',
        cost: 93.3702,
        currency: 'USD',
        analysisRun: null,
      });
      const web = res.body.find(
        (c: { costType: string; name: string }) => c.costType === 'ResourceGroup' && c.name === 'RG-WEB',
      );
      expect(web.tags).toEqual({ GAR_ID: 'GAR-rg-Web', env: '<varies>' });
      expect(res.headers.get('x-total-count')).toBe('12');
    });

    it('filters by cost type', async () => {
      const svc = await get(`CostDetails/analysis/${run}/type/service`);
      expect(svc.body).toHaveLength(9);
      expect(svc.body.every((c: { costType: string }) => c.costType === 'Service')).toBe(true);
      expect((await get(`CostDetails/analysis/${run}/type/ResourceGroup`)).body).toHaveLength(3);
      expect((await get(`CostDetails/analysis/${run}/type/Nope`)).body).toEqual([]);
    });

    it('gives the top count lines; count outside 1–1000 is 400', async () => {
      const top = await get(`CostDetails/analysis/${run}/top/2`);
      expect(top.body.map((c: { cost: number }) => c.cost)).toEqual([93.3702, 63.3702]);
      expect((await get(`CostDetails/analysis/${run}/top/1000`)).body).toHaveLength(12);
      for (const bad of ['0', '1001', '-3', 'ten', '2.5']) {
        expect(isProblem(await get(`CostDetails/analysis/${run}/top/${bad}`), 400)).toBe(true);
      }
    });

    it('sums by group and by service in SQL, totalCost descending', async () => {
      const groups = await get(`CostDetails/analysis/${run}/summary/resourcegroups`);
      expect(groups.body).toEqual([
        { resourceGroup: 'RG-SHARED_1', totalCost: 93.3702, itemCount: 1, currency: 'USD' },
        { resourceGroup: 'RG-DATA', totalCost: 63.3702, itemCount: 1, currency: 'USD' },
        { resourceGroup: 'RG-WEB', totalCost: 33.3702, itemCount: 1, currency: 'USD' },
      ]);
      const services = await get(`CostDetails/analysis/${run}/summary/services`);
      expect(services.body).toEqual([
        { service: 'Bandwidth', totalCost: 66.3702, itemCount: 3, currency: 'USD' },
        { service: 'Virtual Machines', totalCost: 63.3702, itemCount: 3, currency: 'USD' },
        { service: 'Storage', totalCost: 60.3702, itemCount: 3, currency: 'USD' },
      ]);
    });
  });
});
