import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { createUser, ensureAuth, insertFixtureRun, type TestUser } from './support.js';

const SUB_A = '11111111-aaaa-4aaa-8aaa-000000000001';
const SUB_B = '22222222-bbbb-4bbb-8bbb-000000000002';

describe('finops Subscriptions, Subscription and AnalysisRuns routes', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  let admin: TestUser;
  const runs: Record<string, number> = {};

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false);
    admin = await createUser(host.services.prisma, true);
    await ensureAuth(host, user);
    const p = host.services.prisma;
    runs.a1 = (
      await insertFixtureRun(p, {
        subscriptionId: SUB_A,
        subscriptionName: 'Alpha old',
        runDate: new Date('2026-04-01T08:00:00Z'),
      })
    ).id;
    runs.a2 = (
      await insertFixtureRun(p, {
        subscriptionId: SUB_A,
        subscriptionName: 'Alpha',
        runDate: new Date('2026-05-04T12:11:31.120Z'),
      })
    ).id;
    // Same runDate as a2: latest-per-subscription must still give one row (W12), the higher id.
    runs.a3 = (
      await insertFixtureRun(p, {
        subscriptionId: SUB_A,
        subscriptionName: 'Alpha',
        runDate: new Date('2026-05-04T12:11:31.120Z'),
        resources: 5,
      })
    ).id;
    runs.b1 = (
      await insertFixtureRun(p, {
        subscriptionId: SUB_B,
        subscriptionName: 'Beta',
        runDate: new Date('2026-05-03T00:00:00Z'),
      })
    ).id;
  });
  afterAll(async () => {
    await host?.close();
  });

  describe('authentication', () => {
    it.each([
      ['GET', '/finops/api/Subscriptions'],
      ['POST', '/finops/api/Subscriptions'],
      ['GET', '/finops/api/Subscription'],
      ['GET', '/finops/api/AnalysisRuns'],
      ['GET', '/finops/api/AnalysisRuns/latest'],
      ['DELETE', '/finops/api/AnalysisRuns/1'],
    ])('%s %s without a token is 401 problem+json', async (method, path) => {
      const res = await api.call(method, path, method === 'POST' ? { json: {} } : {});
      expect(isProblem(res, 401)).toBe(true);
    });

    it('refuses a token signed with another key', async () => {
      const bad = `${user.token.slice(0, -4)}AAAA`;
      expect((await api.get('/finops/api/AnalysisRuns', { token: bad })).status).toBe(401);
    });

    it('keeps run and subscription deletion to administrators (403 for a user)', async () => {
      expect(
        isProblem(await api.delete(`/finops/api/AnalysisRuns/${runs.a1}`, { token: user.token }), 403),
      ).toBe(true);
      expect(isProblem(await api.delete('/finops/api/Subscriptions/1', { token: user.token }), 403)).toBe(
        true,
      );
    });
  });

  describe('Subscriptions CRUD', () => {
    let id = 0;
    it('creates with infraSupportCost 400 by default, trimmed and lower-cased id', async () => {
      const res = await api.post('/finops/api/Subscriptions', {
        token: user.token,
        json: { subscriptionId: `  ${SUB_A.toUpperCase()}  `, description: 'Team A' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        subscriptionId: SUB_A,
        description: 'Team A',
        budget: null,
        infraSupportCost: 400,
        updatedAt: null,
      });
      expect(res.body.createdAt).toMatch(/Z$/);
      id = res.body.id;
    });

    it('updates the same row on a second POST (no spurious 409, W11); budget omitted clears it', async () => {
      const withBudget = await api.post('/finops/api/Subscriptions', {
        token: user.token,
        json: { SubscriptionId: SUB_A, Description: 'Team A2', Budget: '1234.56', infraSupportCost: 250 },
      });
      expect(withBudget.status).toBe(200);
      expect(withBudget.body).toMatchObject({
        id,
        description: 'Team A2',
        budget: 1234.56,
        infraSupportCost: 250,
      });
      expect(withBudget.body.updatedAt).toMatch(/Z$/);
      const cleared = await api.post('/finops/api/Subscriptions', {
        token: user.token,
        json: { subscriptionId: ` ${SUB_A}`, description: null },
      });
      expect(cleared.status).toBe(200);
      // budget omitted → cleared; infraSupportCost not sent → kept; description null → "".
      expect(cleared.body).toMatchObject({ id, description: '', budget: null, infraSupportCost: 250 });
      expect((await api.get('/finops/api/Subscriptions', { token: user.token })).body).toHaveLength(1);
    });

    it('runs concurrent POSTs of one id without a conflict and keeps one row', async () => {
      const all = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          api.post('/finops/api/Subscriptions', {
            token: user.token,
            json: { subscriptionId: SUB_B, description: `b${i}`, budget: 10 },
          }),
        ),
      );
      expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(all.map((r) => r.body.id)).size).toBe(1);
    });

    it.each([
      [{}, 'subscriptionId'],
      [{ subscriptionId: '   ' }, 'subscriptionId'],
      [{ subscriptionId: 'not-a-guid' }, 'subscriptionId'],
      [{ subscriptionId: SUB_A, budget: -1 }, 'budget'],
      [{ subscriptionId: SUB_A, infraSupportCost: -0.01 }, 'infraSupportCost'],
      [{ subscriptionId: SUB_A, budget: 'abc' }, 'budget'],
    ])('refuses %j with 400 naming %s', async (json, field) => {
      const res = await api.post('/finops/api/Subscriptions', { token: user.token, json });
      expect(isProblem(res, 400)).toBe(true);
      expect(Object.keys(res.body.errors)).toContain(field);
    });

    it('answers a missing or blank subscriptionId with the original message', async () => {
      for (const json of [{}, { subscriptionId: ' ' }, { subscriptionId: null }]) {
        const res = await api.post('/finops/api/Subscriptions', { token: user.token, json });
        expect(isProblem(res, 400)).toBe(true);
        expect(res.body.message).toBe('SubscriptionId is required');
      }
    });

    it('refuses a malformed JSON body with 400', async () => {
      expect(
        isProblem(
          await api.post('/finops/api/Subscriptions', { token: user.token, raw: '{"subscriptionId":' }),
          400,
        ),
      ).toBe(true);
    });

    it('reads by id and by subscription id; unknown ids are 404 with the original message', async () => {
      expect(
        (await api.get(`/finops/api/Subscriptions/${id}`, { token: user.token })).body.subscriptionId,
      ).toBe(SUB_A);
      const byCloud = await api.get(`/finops/api/Subscriptions/by-subscription-id/${SUB_A.toUpperCase()}`, {
        token: user.token,
      });
      expect(byCloud.body.id).toBe(id);
      const missing = await api.get('/finops/api/Subscriptions/999999', { token: user.token });
      expect(isProblem(missing, 404)).toBe(true);
      expect(missing.body.message).toBe('Subscription not found');
      expect(
        isProblem(
          await api.get('/finops/api/Subscriptions/by-subscription-id/nope', { token: user.token }),
          404,
        ),
      ).toBe(true);
      expect(isProblem(await api.get('/finops/api/Subscriptions/abc', { token: user.token }), 400)).toBe(
        true,
      );
    });

    it('PUT changes only the fields sent: a description edit keeps the budget (W10)', async () => {
      await api.put(`/finops/api/Subscriptions/${id}`, { token: user.token, json: { budget: 500 } });
      const res = await api.put(`/finops/api/Subscriptions/${id}`, {
        token: user.token,
        json: { description: 'Edited' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ description: 'Edited', budget: 500, infraSupportCost: 250 });
      const cleared = await api.put(`/finops/api/Subscriptions/${id}`, {
        token: user.token,
        json: { budget: null },
      });
      expect(cleared.body).toMatchObject({ description: 'Edited', budget: null });
      expect(
        isProblem(
          await api.put(`/finops/api/Subscriptions/${id}`, { token: user.token, json: { budget: -5 } }),
          400,
        ),
      ).toBe(true);
      expect(
        isProblem(
          await api.put('/finops/api/Subscriptions/999999', {
            token: user.token,
            json: { description: 'x' },
          }),
          404,
        ),
      ).toBe(true);
      await api.put(`/finops/api/Subscriptions/${id}`, { token: user.token, json: { budget: 1500.25 } });
    });

    it('lists rows sorted by subscriptionId', async () => {
      const res = await api.get('/finops/api/Subscriptions', { token: user.token });
      expect(res.body.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([SUB_A, SUB_B]);
      expect(res.headers.get('x-total-count')).toBe('2');
    });

    it('DELETE by an administrator answers 204, then 404', async () => {
      const created = await api.post('/finops/api/Subscriptions', {
        token: user.token,
        json: { subscriptionId: '33333333-cccc-4ccc-8ccc-000000000003' },
      });
      expect(
        (await api.delete(`/finops/api/Subscriptions/${created.body.id}`, { token: admin.token })).status,
      ).toBe(204);
      expect(
        isProblem(
          await api.delete(`/finops/api/Subscriptions/${created.body.id}`, { token: admin.token }),
          404,
        ),
      ).toBe(true);
    });
  });

  describe('Subscription summaries', () => {
    it('lists each subscription of the runs once, named after its newest run, sorted by name', async () => {
      const res = await api.get('/finops/api/Subscription', { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { subscriptionId: SUB_A, subscriptionName: 'Alpha' },
        { subscriptionId: SUB_B, subscriptionName: 'Beta' },
      ]);
    });
  });

  describe('AnalysisRuns', () => {
    it('lists newest first with paging headers and empty child arrays', async () => {
      const res = await api.get('/finops/api/AnalysisRuns?page=1&pageSize=2', { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body.map((r: { id: number }) => r.id)).toEqual([runs.a3, runs.a2]);
      expect(res.headers.get('x-total-count')).toBe('4');
      expect(res.headers.get('x-page')).toBe('1');
      expect(res.headers.get('x-page-size')).toBe('2');
      expect(res.body[0]).toMatchObject({
        runDate: '2026-05-04T12:11:31.12',
        costDetails: [],
        resources: [],
        aiRecommendations: [],
        historicalCosts: [],
      });
      const page2 = await api.get('/finops/api/AnalysisRuns?page=2&pageSize=2', { token: user.token });
      expect(page2.body.map((r: { id: number }) => r.id)).toEqual([runs.b1, runs.a1]);
      expect(page2.headers.get('x-total-count')).toBe('4');
      // Past the last page: no rows, and the total still counts every run.
      const past = await api.get('/finops/api/AnalysisRuns?page=5&pageSize=2', { token: user.token });
      expect(past.body).toEqual([]);
      expect(past.headers.get('x-total-count')).toBe('4');
      const dflt = await api.get('/finops/api/AnalysisRuns', {
        token: user.token,
        headers: { origin: 'https://app.example.test' },
      });
      expect(dflt.headers.get('x-page-size')).toBe('10');
      // Readable by the web client across origins (the original did not expose them, W7).
      expect(dflt.headers.get('access-control-expose-headers')).toContain('X-Total-Count');
    });

    it.each([
      'page=0',
      'pageSize=0',
      'page=-1',
      'pageSize=abc',
      'pageSize=100000',
      'page=9999999999&pageSize=5000',
    ])('refuses %s with 400', async (q) => {
      expect(isProblem(await api.get(`/finops/api/AnalysisRuns?${q}`, { token: user.token }), 400)).toBe(
        true,
      );
    });

    it('gives a run with its children, each with analysisRun null (W1)', async () => {
      const res = await api.get(`/finops/api/AnalysisRuns/${runs.a2}`, { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body.resources).toHaveLength(24);
      expect(res.body.costDetails).toHaveLength(12);
      expect(res.body.aiRecommendations).toHaveLength(2);
      expect(res.body.historicalCosts).toEqual([]);
      for (const child of [...res.body.resources, ...res.body.costDetails, ...res.body.aiRecommendations]) {
        expect(child.analysisRun).toBeNull();
      }
      const costs = res.body.costDetails.map((c: { cost: number }) => c.cost);
      expect(costs).toEqual([...costs].sort((x, y) => y - x));
      expect(isProblem(await api.get('/finops/api/AnalysisRuns/999999', { token: user.token }), 404)).toBe(
        true,
      );
      expect(isProblem(await api.get('/finops/api/AnalysisRuns/abc', { token: user.token }), 400)).toBe(true);
    });

    it('gives the newest run across subscriptions as latest', async () => {
      const res = await api.get('/finops/api/AnalysisRuns/latest', { token: user.token });
      expect(res.body.id).toBe(runs.a3);
      expect(res.body.resources).toHaveLength(5);
    });

    it('gives one row per subscription in latest-per-subscription, joined with its metadata', async () => {
      const res = await api.get('/finops/api/AnalysisRuns/latest-per-subscription', { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body.map((r: { id: number }) => r.id)).toEqual([runs.a3, runs.b1]);
      expect(res.body[0]).toMatchObject({
        subscriptionId: SUB_A,
        description: 'Edited',
        budget: 1500.25,
        infraSupportCost: 250,
      });
      expect(res.body[1]).toMatchObject({ subscriptionId: SUB_B, budget: 10 });
      expect(res.body[0]).not.toHaveProperty('resources');
      expect(typeof res.body[0].totalMonthlyCost).toBe('number');
    });

    it('pages the runs of one subscription', async () => {
      const res = await api.get(`/finops/api/AnalysisRuns/subscription/${SUB_A}?pageSize=2`, {
        token: user.token,
      });
      expect(res.body.map((r: { id: number }) => r.id)).toEqual([runs.a3, runs.a2]);
      expect(res.headers.get('x-total-count')).toBe('3');
      const past = await api.get(`/finops/api/AnalysisRuns/subscription/${SUB_A}?page=3&pageSize=2`, {
        token: user.token,
      });
      expect(past.body).toEqual([]);
      expect(past.headers.get('x-total-count')).toBe('3');
      const none = await api.get('/finops/api/AnalysisRuns/subscription/unknown', { token: user.token });
      expect(none.body).toEqual([]);
      expect(none.headers.get('x-total-count')).toBe('0');
    });

    it('deletes a run with all its rows (admin), then 404', async () => {
      const p = host.services.prisma;
      const res = await api.delete(`/finops/api/AnalysisRuns/${runs.a1}`, { token: admin.token });
      expect(res.status).toBe(204);
      for (const n of await Promise.all([
        p.resourceAnalysis.count({ where: { analysisRunId: runs.a1 } }),
        p.costDetail.count({ where: { analysisRunId: runs.a1 } }),
        p.historicalCost.count({ where: { analysisRunId: runs.a1 } }),
        p.aiRecommendation.count({ where: { analysisRunId: runs.a1 } }),
      ]))
        expect(n).toBe(0);
      expect(
        isProblem(await api.delete(`/finops/api/AnalysisRuns/${runs.a1}`, { token: admin.token }), 404),
      ).toBe(true);
      expect(isProblem(await api.delete('/finops/api/AnalysisRuns/x1', { token: admin.token }), 400)).toBe(
        true,
      );
    });
  });
});
