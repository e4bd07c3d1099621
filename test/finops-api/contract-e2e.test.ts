import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { Problem } from '../../shared/finops/contract/schemas.js';
import { readRoutes } from '../../shared/finops/routes/read.js';
import { buildOpenApiDocument } from '../../shared/http/openapi.js';
import { fullPath, type RouteDefinition } from '../../shared/http/route.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { createUser, ensureAuth, simulatorSettings, type TestUser } from './support.js';

const SUB_X = '7a1c0de0-2222-4b3c-9d4e-000000000071';
const SUB_Y = '7a1c0de0-2222-4b3c-9d4e-000000000072';

/**
 * Contract test on data from real analyses (POST /Analysis/start against the Azure simulator):
 * every read route is called and its answer parsed with the zod schema its OpenAPI entry
 * declares (shared/finops/contract), which encodes the contract file's field names and types.
 */
describe('finops read API contract on analyses run against the Azure simulator', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  let admin: TestUser;
  const runs: { x1: number; x2: number; y1: number } = { x1: 0, x2: 0, y1: 0 };
  let recId = 0;
  let someType = '';
  let someGroup = '';
  const seen = new Set<string>();

  const analyse = async (sub: string) => {
    const res = await api.post('/finops/api/Analysis/start', { token: user.token, json: sub });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    return res.body.analysisRunId as number;
  };

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 40, costPageSize: 500 });
    host = await startTestHost({ queueWorker: false, settings: simulatorSettings(sim.url) });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false);
    admin = await createUser(host.services.prisma, true);
    await ensureAuth(host, user);
    await ensureAuth(host, admin);
    runs.x1 = await analyse(SUB_X);
    runs.y1 = await analyse(SUB_Y);
    runs.x2 = await analyse(SUB_X);
    await api.post('/finops/api/Subscriptions', {
      token: user.token,
      json: { subscriptionId: SUB_X, description: 'X team', budget: 1000, infraSupportCost: 300 },
    });
    const p = host.services.prisma;
    recId = (await p.aiRecommendation.findFirstOrThrow({ where: { analysisRunId: runs.x2 } })).id;
    const r = await p.resourceAnalysis.findFirstOrThrow({ where: { analysisRunId: runs.x2 } });
    someType = r.resourceType;
    someGroup = r.resourceGroup;
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  /** Calls a route's path and checks the 200 body against the route's declared schema. */
  async function check(name: string, path: string, status = 200) {
    const route = readRoutes.find((r) => r.name === name) as RouteDefinition;
    expect(route, name).toBeDefined();
    const res = await api.get(`/finops/api/${path}`, { token: user.token });
    expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(status);
    const schema = route.openapi?.responses?.[status]?.schema as ZodType | undefined;
    expect(schema, `${name} declares a ${status} schema`).toBeDefined();
    const parsed = schema!.safeParse(res.body);
    expect(parsed.success, `${path}: ${parsed.error?.message}`).toBe(true);
    seen.add(name);
    return res;
  }

  it('answers every GET route with the contract shape', async () => {
    const run = runs.x2;
    const a = `analysis/${run}`;
    const calls: Array<[string, string]> = [
      ['finops-subscriptions-list', 'Subscriptions'],
      ['finops-subscriptions-by-subscription-id', `Subscriptions/by-subscription-id/${SUB_X}`],
      ['finops-subscription-summaries', 'Subscription'],
      ['finops-analysisruns-list', 'AnalysisRuns'],
      ['finops-analysisruns-latest', 'AnalysisRuns/latest'],
      ['finops-analysisruns-latest-per-subscription', 'AnalysisRuns/latest-per-subscription'],
      ['finops-analysisruns-by-subscription', `AnalysisRuns/subscription/${SUB_X}`],
      ['finops-analysisruns-get', `AnalysisRuns/${run}`],
      ['finops-resources-by-run', `Resources/${a}`],
      ['finops-resources-by-type', `Resources/${a}/type/${encodeURIComponent(someType)}`],
      ['finops-resources-by-group', `Resources/${a}/resourcegroup/${encodeURIComponent(someGroup)}`],
      ['finops-resources-flags', `Resources/${a}/flags`],
      ['finops-resources-flags', `Resources/${a}/flags?flagContains=a`],
      ['finops-resources-summary-types', `Resources/${a}/summary/types`],
      ['finops-resources-summary-groups', `Resources/${a}/summary/resourcegroups`],
      [
        'finops-resources-search',
        `Resources/${a}/search?searchTerm=${encodeURIComponent(someGroup.slice(0, 4))}`,
      ],
      ['finops-costdetails-by-run', `CostDetails/${a}`],
      ['finops-costdetails-by-type', `CostDetails/${a}/type/Service`],
      ['finops-costdetails-top', `CostDetails/${a}/top/5`],
      ['finops-costdetails-summary-groups', `CostDetails/${a}/summary/resourcegroups`],
      ['finops-costdetails-summary-services', `CostDetails/${a}/summary/services`],
      ['finops-historical-by-run', `HistoricalCosts/${a}`],
      ['finops-historical-by-subscription', `HistoricalCosts/subscription/${SUB_X}`],
      ['finops-historical-daily-totals', `HistoricalCosts/${a}/daily-totals`],
      ['finops-historical-by-group', `HistoricalCosts/${a}/by-resourcegroup`],
      ['finops-historical-by-service', `HistoricalCosts/${a}/by-service`],
      ['finops-historical-trend', `HistoricalCosts/${a}/trend`],
      ['finops-recommendations-list', 'Recommendations'],
      ['finops-recommendations-by-run', `Recommendations/${a}`],
      ['finops-recommendations-latest', `Recommendations/${a}/latest`],
      ['finops-recommendations-formatted', `Recommendations/${recId}/formatted`],
      ['finops-dashboard-summary', 'Dashboard/summary'],
      ['finops-dashboard-cost-trends', 'Dashboard/cost-trends?months=6'],
      ['finops-dashboard-resource-distribution', 'Dashboard/resource-distribution'],
      ['finops-dashboard-optimization-opportunities', 'Dashboard/optimization-opportunities'],
    ];
    const subRow = await api.get(`/finops/api/Subscriptions/by-subscription-id/${SUB_X}`, {
      token: user.token,
    });
    calls.push(['finops-subscriptions-get', `Subscriptions/${subRow.body.id}`]);
    for (const [name, path] of calls) {
      const res = await check(name, path);
      if (Array.isArray(res.body) && !path.startsWith('Subscription')) {
        expect(res.body.length, `${path} has rows from the analysis`).toBeGreaterThan(0);
      }
    }
  });

  it('fills the analysed data consistently: one casing of groups, exact SQL sums, offset-free dates', async () => {
    const a = `/finops/api/CostDetails/analysis/${runs.x2}`;
    const [lines, byService, hist, resources] = await Promise.all([
      api.get(a, { token: user.token }),
      api.get(`${a}/summary/services`, { token: user.token }),
      api.get(`/finops/api/HistoricalCosts/analysis/${runs.x2}/by-resourcegroup`, { token: user.token }),
      api.get(`/finops/api/Resources/analysis/${runs.x2}/summary/resourcegroups`, { token: user.token }),
    ]);
    const services = lines.body.filter((c: { costType: string }) => c.costType === 'Service');
    const cents = (n: number) => Math.round(n * 10_000);
    const sumOf = (name: string) =>
      services
        .filter((c: { name: string }) => c.name === name)
        .reduce((s: number, c: { cost: number }) => s + cents(c.cost), 0);
    for (const s of byService.body) expect(cents(s.totalCost)).toBe(sumOf(s.service));
    const upper = (v: string | null) => v === null || v === v.toUpperCase();
    expect(lines.body.every((c: { resourceGroup: string | null }) => upper(c.resourceGroup))).toBe(true);
    expect(hist.body.every((h: { resourceGroup: string | null }) => upper(h.resourceGroup))).toBe(true);
    expect(resources.body.every((r: { resourceGroup: string }) => upper(r.resourceGroup))).toBe(true);
    expect(hist.body[0].date).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00$/);
    const latest = await api.get('/finops/api/AnalysisRuns/latest-per-subscription', { token: user.token });
    expect(latest.body.map((r: { id: number }) => r.id).sort()).toEqual([runs.x2, runs.y1].sort());
    const x = latest.body.find((r: { subscriptionId: string }) => r.subscriptionId === SUB_X);
    expect(x).toMatchObject({ description: 'X team', budget: 1000, infraSupportCost: 300 });
    const trend = await api.get(`/finops/api/HistoricalCosts/analysis/${runs.x2}/trend`, {
      token: user.token,
    });
    expect(trend.body.infraSupportCost).toBe(300);
    expect(trend.body.months.length).toBeGreaterThan(0);
  });

  it('answers errors as problem+json: 401 without a token, 400 for bad ids, 404 where the contract says', async () => {
    for (const route of readRoutes) {
      const path = route.path.replace(/\{(\w+)\}/g, (_m, p: string) => (p === 'count' ? '5' : '1'));
      const res = await api.call(
        route.method,
        `/finops/api/${path}`,
        route.method === 'GET' || route.method === 'DELETE' ? {} : { json: {} },
      );
      expect(isProblem(res, 401), `${route.method} ${path}`).toBe(true);
      expect(Problem.safeParse(res.body).success).toBe(true);
    }
    for (const path of [
      'AnalysisRuns/abc',
      'Resources/analysis/x',
      'CostDetails/analysis/1/top/0',
      'Recommendations/1e3/formatted',
    ]) {
      const res = await api.get(`/finops/api/${path}`, { token: user.token });
      expect(isProblem(res, 400), path).toBe(true);
      expect(Problem.safeParse(res.body).success).toBe(true);
    }
    for (const path of [
      'AnalysisRuns/999999',
      'Subscriptions/999999',
      'Recommendations/999999/formatted',
      'Recommendations/analysis/999999/latest',
    ]) {
      const res = await api.get(`/finops/api/${path}`, { token: user.token });
      expect(isProblem(res, 404), path).toBe(true);
    }
  });

  it('documents every read route in the OpenAPI document with its response schema', () => {
    const doc = buildOpenApiDocument('finops', readRoutes) as unknown as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const route of readRoutes) {
      const op = doc.paths[`/${fullPath(route)}`]?.[route.method.toLowerCase()] as
        | { responses?: object }
        | undefined;
      expect(op?.responses, `${route.method} ${route.path}`).toBeDefined();
      const declared = route.openapi?.responses ?? {};
      expect(
        Object.keys(declared).some((s) => s === '200' || s === '204'),
        route.name,
      ).toBe(true);
    }
  });

  it('covers every GET route of the read table', () => {
    const gets = readRoutes.filter((r) => r.method === 'GET').map((r) => r.name);
    expect(gets.filter((n) => !seen.has(n))).toEqual([]);
  });

  it('keeps exactly the latest run per subscription, with its rows, after cleanup', async () => {
    const p = host.services.prisma;
    const keptRows = await p.resourceAnalysis.count({ where: { analysisRunId: runs.x2 } });
    const res = await api.post('/finops/api/Analysis/cleanup', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, analysisRunsDeleted: 1 });
    const list = await api.get('/finops/api/AnalysisRuns', { token: user.token });
    expect(list.body.map((r: { id: number }) => r.id).sort()).toEqual([runs.x2, runs.y1].sort());
    expect(list.headers.get('x-total-count')).toBe('2');
    expect((await api.get(`/finops/api/Resources/analysis/${runs.x1}`, { token: user.token })).body).toEqual(
      [],
    );
    expect(
      (await api.get(`/finops/api/HistoricalCosts/analysis/${runs.x1}`, { token: user.token })).body,
    ).toEqual([]);
    expect(
      (
        await api.get(`/finops/api/Resources/analysis/${runs.x2}?pageSize=1`, { token: user.token })
      ).headers.get('x-total-count'),
    ).toBe(String(keptRows));
    expect(
      (await api.get(`/finops/api/HistoricalCosts/analysis/${runs.x2}/daily-totals`, { token: user.token }))
        .body.length,
    ).toBeGreaterThan(0);
  });

  it('deletes a run and a subscription row as an administrator', async () => {
    expect((await api.delete(`/finops/api/AnalysisRuns/${runs.y1}`, { token: admin.token })).status).toBe(
      204,
    );
    expect(isProblem(await api.get(`/finops/api/AnalysisRuns/${runs.y1}`, { token: user.token }), 404)).toBe(
      true,
    );
    const row = await api.get(`/finops/api/Subscriptions/by-subscription-id/${SUB_X}`, { token: user.token });
    expect(
      (await api.delete(`/finops/api/Subscriptions/${row.body.id}`, { token: admin.token })).status,
    ).toBe(204);
  });
});
