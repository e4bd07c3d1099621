import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { costDetailsCsv, exportLines } from '../finops-intel/export-fixture.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { createUser, ensureAuth, simulatorSettings, type TestUser } from './support.js';

/**
 * Azure and most clients write subscription ids in lower case, the Azure portal and some scripts in
 * upper case: a subscription is the same whichever way a client spells it. Each route that takes a
 * subscription id is called with the upper-case spelling and with the lower-case one, after the
 * data was written under the upper-case spelling.
 */
const UPPER = 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE';
const LOWER = UPPER.toLowerCase();
const IMPORTED = 'ABCDEF01-2345-4678-89AB-CDEF01234567';

describe('a subscription id is the same subscription in either case', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: TestUser;
  let runId = 0;
  const get = (path: string) => api.get(`/finops/api/${path}`, { token: admin.token });

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 20, costPageSize: 500 });
    host = await startTestHost({ queueWorker: false, settings: simulatorSettings(sim.url) });
    api = apiClient(host.url);
    admin = await createUser(host.services.prisma, true);
    await ensureAuth(host, admin);
    const res = await api.post('/finops/api/Analysis/start', { token: admin.token, json: UPPER });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    runId = res.body.analysisRunId;
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('answers the run started with the upper-case id to both spellings', async () => {
    for (const id of [UPPER, LOWER]) {
      const runs = await get(`AnalysisRuns/subscription/${id}`);
      expect(runs.status).toBe(200);
      expect(runs.body.map((r: { id: number }) => r.id)).toEqual([runId]);
      expect(runs.body[0].subscriptionId).toBe(LOWER);
    }
  });

  it('answers the same history to both spellings', async () => {
    const upper = await get(`HistoricalCosts/subscription/${UPPER}`);
    const lower = await get(`HistoricalCosts/subscription/${LOWER}`);
    expect(upper.status).toBe(200);
    expect(upper.body.length).toBeGreaterThan(0);
    expect(lower.body).toEqual(upper.body);
    expect(lower.headers.get('x-total-count')).toBe(String(upper.body.length));
    const paged = await get(`HistoricalCosts/subscription/${LOWER}?pageSize=3`);
    expect(paged.body).toEqual(upper.body.slice(0, 3));
  });

  it('answers the same forecast, dashboard and waste changes to both spellings', async () => {
    for (const path of [
      'Forecast/{id}',
      'Dashboard/summary?subscriptionId={id}',
      'Waste/subscriptions/{id}/changes',
    ]) {
      const upper = await get(path.replace('{id}', UPPER));
      const lower = await get(path.replace('{id}', LOWER));
      expect(upper.status, path).toBe(200);
      expect(lower.body, path).toEqual(upper.body);
    }
    const summary = await get(`Dashboard/summary?subscriptionId=${UPPER}`);
    expect(summary.body.latestRun.subscriptionId).toBe(LOWER);
    expect(summary.body.resourcesAnalyzed).toBeGreaterThan(0);
  });

  it('finds a Subscriptions row written with one spelling by the other', async () => {
    const put = await api.post('/finops/api/Subscriptions', {
      token: admin.token,
      json: { subscriptionId: UPPER, description: 'upper', budget: 100, infraSupportCost: 10 },
    });
    expect(put.status).toBe(200);
    expect(put.body.subscriptionId).toBe(LOWER);
    for (const id of [UPPER, LOWER]) {
      const row = await get(`Subscriptions/by-subscription-id/${id}`);
      expect(row.status).toBe(200);
      expect(row.body.description).toBe('upper');
    }
  });

  it('lists waste decisions written with one spelling under the other', async () => {
    const made = await api.post(`/finops/api/Waste/subscriptions/${UPPER}/exclusions`, {
      token: admin.token,
      json: { resourceGroup: 'rg-case', reason: 'kept on purpose' },
    });
    expect(made.status).toBe(201);
    expect(made.body.subscriptionId).toBe(LOWER);
    const lower = await get(`Waste/subscriptions/${LOWER}/exclusions`);
    expect(lower.body.map((e: { id: number }) => e.id)).toEqual([made.body.id]);
    const gone = await api.delete(`/finops/api/Waste/subscriptions/${LOWER}/exclusions/${made.body.id}`, {
      token: admin.token,
    });
    expect(gone.status).toBe(200);
    expect((await get(`Waste/subscriptions/${UPPER}/suppressions`)).body).toEqual([]);
  });

  it('stores an import under the lower-case id and answers it to both spellings', async () => {
    const csv = costDetailsCsv(
      exportLines(IMPORTED, '2026-06-01', 20, [
        { resourceGroup: 'rg-web', service: 'Storage', resource: 'st-1', level: 40 },
      ]),
    );
    const res = await fetch(`${host.url}/finops/api/CostImports?subscriptionId=${IMPORTED}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'text/csv' },
      body: csv,
    });
    expect(res.status).toBe(200);
    for (const id of [IMPORTED, IMPORTED.toLowerCase()]) {
      const runs = await get(`AnalysisRuns/subscription/${id}`);
      expect(runs.body).toHaveLength(1);
      expect(runs.body[0].subscriptionId).toBe(IMPORTED.toLowerCase());
      const anomalies = await get(`Anomalies?subscriptionId=${id}`);
      expect(anomalies.status).toBe(200);
    }
  });

  it('queues a job under the lower-case id', async () => {
    const res = await api.post('/finops/api/Analysis/start-async', {
      token: admin.token,
      json: { subscriptionId: UPPER },
    });
    expect(res.status).toBe(202);
    expect(res.body.subscriptionId).toBe(LOWER);
    const job = await get(`Analysis/jobs/${res.body.jobId}`);
    expect(job.body.subscriptionId).toBe(LOWER);
  });
});
