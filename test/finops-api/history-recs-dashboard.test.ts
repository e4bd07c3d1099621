import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { createUser, ensureAuth, insertFixtureRun, type TestUser } from './support.js';

const SUB = '55555555-eeee-4eee-8eee-000000000005';
const OTHER = '66666666-ffff-4fff-8fff-000000000006';

describe('finops HistoricalCosts, Recommendations and Dashboard routes (fixture runs inserted with Prisma)', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  let run = 0;
  let older = 0;
  let other = 0;
  const get = (path: string) => api.get(`/finops/api/${path}`, { token: user.token });

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false);
    await ensureAuth(host, user);
  });
  afterAll(async () => {
    await host?.close();
  });

  describe('with no runs stored', () => {
    it('answers the dashboard summary with the original message', async () => {
      const res = await get('Dashboard/summary');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'No analysis runs found. Start a new analysis to see data.',
        totalRuns: 0,
      });
    });

    it.each([
      'Dashboard/resource-distribution',
      'Dashboard/optimization-opportunities',
      'AnalysisRuns/latest',
    ])('%s is a 404 problem', async (path) => {
      expect(isProblem(await get(path), 404)).toBe(true);
    });

    it('answers cost-trends with no data points', async () => {
      expect((await get('Dashboard/cost-trends')).body).toEqual({
        period: 'Last 6 months',
        dataPoints: 0,
        trends: [],
      });
    });
  });

  describe('with runs', () => {
    beforeAll(async () => {
      const p = host.services.prisma;
      const now = new Date();
      const recent = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 2, 6));
      older = (
        await insertFixtureRun(p, {
          subscriptionId: SUB,
          subscriptionName: 'Echo',
          runDate: new Date('2026-04-10T00:00:00Z'),
          days: 3,
        })
      ).id;
      run = (
        await insertFixtureRun(p, {
          subscriptionId: SUB,
          subscriptionName: 'Echo',
          runDate: new Date('2026-05-04T00:00:00Z'),
          days: 10,
          recommendations: 3,
        })
      ).id;
      other = (
        await insertFixtureRun(p, {
          subscriptionId: OTHER,
          subscriptionName: 'Foxtrot',
          runDate: recent,
          days: 1,
          resources: 6,
          recommendations: 0,
        })
      ).id;
      await api.post('/finops/api/Subscriptions', {
        token: user.token,
        json: { subscriptionId: SUB, infraSupportCost: 250 },
      });
    });

    describe('HistoricalCosts', () => {
      it("lists a run's rows by costDate with offset-free dates, tags and the infra overlay", async () => {
        const res = await get(`HistoricalCosts/analysis/${run}`);
        expect(res.status).toBe(200);
        expect(res.body).toHaveLength(10 * 13);
        expect(res.headers.get('x-total-count')).toBe('130');
        const dates = res.body.map((h: { costDate: string }) => h.costDate);
        expect(dates).toEqual([...dates].sort());
        expect(dates[0]).toBe('2026-04-24T00:00:00');
        const types = new Set(res.body.map((h: { costType: string }) => h.costType));
        expect(types).toEqual(new Set(['Total', 'ResourceGroup', 'Service']));
        const total = res.body.find((h: { costType: string }) => h.costType === 'Total');
        expect(total).toMatchObject({
          resourceGroup: null,
          name: null,
          cost: 27.9,
          currency: 'USD',
          tags: null,
          analysisRun: null,
          infraSupportCost: 250,
        });
        const rg = res.body.find(
          (h: { costType: string; resourceGroup: string }) =>
            h.costType === 'ResourceGroup' && h.resourceGroup === 'RG-WEB',
        );
        expect(rg.tags).toEqual({ GAR_ID: 'GAR-rg-Web', env: '<varies>' });
        const paged = await get(`HistoricalCosts/analysis/${run}?page=2&pageSize=100`);
        expect(paged.body).toHaveLength(30);
        expect(paged.headers.get('x-total-count')).toBe('130');
      });

      it("lists a subscription's rows across runs, filtered by startDate and endDate inclusive", async () => {
        const all = await get(`HistoricalCosts/subscription/${SUB}`);
        expect(all.body).toHaveLength(13 * 13);
        expect(new Set(all.body.map((h: { analysisRunId: number }) => h.analysisRunId))).toEqual(
          new Set([older, run]),
        );
        const some = await get(`HistoricalCosts/subscription/${SUB}?startDate=2026-05-01&endDate=2026-05-02`);
        expect(some.body).toHaveLength(2 * 13);
        expect(new Set(some.body.map((h: { costDate: string }) => h.costDate.slice(0, 10)))).toEqual(
          new Set(['2026-05-01', '2026-05-02']),
        );
        expect(isProblem(await get(`HistoricalCosts/subscription/${SUB}?startDate=yesterday`), 400)).toBe(
          true,
        );
        expect(isProblem(await get(`HistoricalCosts/subscription/${SUB}?endDate=2026-02-30`), 400)).toBe(
          true,
        );
        const otherRows = await get(`HistoricalCosts/subscription/${OTHER}`);
        expect(otherRows.body[0].infraSupportCost).toBe(400);
      });

      it('gives daily totals ascending', async () => {
        const res = await get(`HistoricalCosts/analysis/${run}/daily-totals`);
        expect(res.body).toHaveLength(10);
        expect(res.body[0]).toEqual({
          date: '2026-04-24T00:00:00',
          cost: 27.9,
          currency: 'USD',
          infraSupportCost: 250,
        });
        expect(res.body[9]).toEqual({
          date: '2026-05-03T00:00:00',
          cost: 27.09,
          currency: 'USD',
          infraSupportCost: 250,
        });
      });

      it('gives costs by resource group (upper-case, filter case-insensitive) and by service', async () => {
        const all = await get(`HistoricalCosts/analysis/${run}/by-resourcegroup`);
        expect(all.body).toHaveLength(30);
        expect(all.body.slice(0, 3).map((r: { resourceGroup: string }) => r.resourceGroup)).toEqual([
          'RG-DATA',
          'RG-SHARED_1',
          'RG-WEB',
        ]);
        const one = await get(`HistoricalCosts/analysis/${run}/by-resourcegroup?resourceGroup=rg-web`);
        expect(one.body).toHaveLength(10);
        expect(one.body[0]).toEqual({
          date: '2026-04-24T00:00:00',
          resourceGroup: 'RG-WEB',
          cost: 6.3,
          currency: 'USD',
        });
        const svc = await get(`HistoricalCosts/analysis/${run}/by-service?serviceName=storage`);
        expect(svc.body).toHaveLength(30);
        expect(svc.body[0]).toEqual({
          date: '2026-04-24T00:00:00',
          service: 'Storage',
          resourceGroup: 'RG-DATA',
          cost: 2.1,
          currency: 'USD',
        });
        const names = (await get(`HistoricalCosts/analysis/${run}/by-service`)).body
          .slice(0, 9)
          .map((r: { service: string }) => r.service);
        expect(names).toEqual([...names].sort());
      });

      it('computes the trend in SQL with the original fields and the monthly overlay', async () => {
        const res = await get(`HistoricalCosts/analysis/${run}/trend`);
        expect(res.body).toEqual({
          startDate: '2026-04-24T00:00:00',
          endDate: '2026-05-03T00:00:00',
          firstCost: 27.9,
          lastCost: 27.09,
          averageCost: 27.495,
          maxCost: 27.9,
          minCost: 27.09,
          trend: 'Decreasing',
          changePercent: -2.9,
          dataPoints: 10,
          currency: 'USD',
          infraSupportCost: 250,
          months: [
            {
              month: '2026-04',
              cost: 193.41,
              infraSupportCost: 250,
              totalWithInfraSupport: 443.41,
              currency: 'USD',
            },
            {
              month: '2026-05',
              cost: 81.54,
              infraSupportCost: 250,
              totalWithInfraSupport: 331.54,
              currency: 'USD',
            },
          ],
        });
        expect((await get(`HistoricalCosts/analysis/${other}/trend`)).body).toEqual({
          message: 'Not enough data for trend analysis',
          dataPoints: 1,
        });
        expect(isProblem(await get('HistoricalCosts/analysis/zz/trend'), 400)).toBe(true);
      });
    });

    describe('Recommendations', () => {
      it("lists a run's recommendations newest first", async () => {
        const res = await get(`Recommendations/analysis/${run}`);
        expect(res.body).toHaveLength(3);
        expect(res.body.map((r: { recordedAt: string }) => r.recordedAt)).toEqual([
          '2026-05-04T00:00:02',
          '2026-05-04T00:00:01',
          '2026-05-04T00:00:00',
        ]);
        expect(res.body[0]).toMatchObject({
          analysisRunId: run,
          model: 'gpt-test',
          analysisRun: null,
          timestamp: 1_700_000_002.5,
        });
      });

      it('gives the latest of a run, or a 404 problem', async () => {
        expect((await get(`Recommendations/analysis/${run}/latest`)).body.recordedAt).toBe(
          '2026-05-04T00:00:02',
        );
        expect(isProblem(await get(`Recommendations/analysis/${other}/latest`), 404)).toBe(true);
      });

      it('formats escaped line breaks without stray carriage returns (W19) and falls back to the first lines', async () => {
        const first = (await get(`Recommendations/analysis/${run}`)).body.at(-1);
        const res = await get(`Recommendations/${first.id}/formatted`);
        expect(res.body).toEqual({
          id: first.id,
          analysisRunId: run,
          formattedText: '# Recommendations 0\n- delete disk\n- resize VM\nline four',
          summary: '# Recommendations 0 - delete disk - resize VM',
          model: 'gpt-test',
          recordedAt: '2026-05-04T00:00:00',
        });
        expect(res.body.formattedText).not.toContain('\r');
        expect(isProblem(await get('Recommendations/999999/formatted'), 404)).toBe(true);
        expect(isProblem(await get('Recommendations/x/formatted'), 400)).toBe(true);
      });

      it('lists every recommendation paged, newest first', async () => {
        const res = await get('Recommendations?pageSize=2');
        expect(res.body).toHaveLength(2);
        expect(res.headers.get('x-total-count')).toBe('5');
        expect(res.headers.get('x-page-size')).toBe('2');
        expect(res.body.every((r: { analysisRun: unknown }) => r.analysisRun === null)).toBe(true);
        expect((await get('Recommendations')).headers.get('x-page-size')).toBe('10');
        expect(isProblem(await get('Recommendations?page=0'), 400)).toBe(true);
      });
    });

    describe('Dashboard', () => {
      it('summarises the newest run across subscriptions, or of one subscription', async () => {
        const res = await get('Dashboard/summary');
        expect(res.body).toMatchObject({
          latestRun: { id: other, subscriptionName: 'Foxtrot', totalResourcesAnalyzed: 6 },
          totalAnalysisRuns: 3,
          resourcesAnalyzed: 6,
          resourcesWithIssues: 2,
          hasAiRecommendations: false,
        });
        expect(res.body.topCostsByResourceGroup).toEqual([
          { name: 'RG-SHARED_1', cost: 93.3702 },
          { name: 'RG-DATA', cost: 63.3702 },
          { name: 'RG-WEB', cost: 33.3702 },
        ]);
        expect(res.body.topCostsByService).toHaveLength(5);
        const scoped = await get(`Dashboard/summary?subscriptionId=${SUB}`);
        expect(scoped.body).toMatchObject({
          latestRun: { id: run },
          totalAnalysisRuns: 2,
          resourcesWithIssues: 8,
          hasAiRecommendations: true,
        });
      });

      it('gives cost trends of the last months ascending with the infra overlay', async () => {
        const res = await get('Dashboard/cost-trends?months=1');
        expect(res.body.period).toBe('Last 1 months');
        expect(res.body.trends.map((t: { subscriptionId: string }) => t.subscriptionId)).toEqual([OTHER]);
        expect(res.body.trends[0].infraSupportCost).toBe(400);
        const wide = await get('Dashboard/cost-trends?months=120');
        expect(wide.body.dataPoints).toBe(3);
        expect(wide.body.trends.map((t: { runDate: string }) => t.runDate)).toEqual(
          [...wide.body.trends.map((t: { runDate: string }) => t.runDate)].sort(),
        );
        expect(wide.body.trends[0]).toMatchObject({ runDate: '2026-04-10T00:00:00', infraSupportCost: 250 });
        for (const bad of ['0', '-1', 'x', '121'])
          expect(isProblem(await get(`Dashboard/cost-trends?months=${bad}`), 400)).toBe(true);
      });

      it('gives the resource distribution with percentages', async () => {
        const res = await get(`Dashboard/resource-distribution?subscriptionId=${SUB}`);
        expect(res.body).toMatchObject({
          analysisRunId: run,
          runDate: '2026-05-04T00:00:00',
          totalResources: 24,
        });
        expect(res.body.distribution).toHaveLength(4);
        expect(res.body.distribution[0]).toMatchObject({ count: 6, percentage: 25 });
      });

      it('gives optimization opportunities grouped by type', async () => {
        const res = await get(`Dashboard/optimization-opportunities?subscriptionId=${SUB}`);
        expect(res.body).toMatchObject({ analysisRunId: run, totalOpportunities: 8, issuesTruncated: false });
        expect(res.body.byResourceType).toHaveLength(4);
        for (const t of res.body.byResourceType) {
          expect(t.count).toBe(2);
          expect(t.issues).toHaveLength(2);
          for (const i of t.issues) expect(i.flags.length).toBeGreaterThan(0);
        }
      });
    });
  });
});
