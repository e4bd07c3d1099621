import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { simSettings, waitFor } from '../finops-engine/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';

const SUBSCRIPTION = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const BOOTSTRAP = 'e2e-bootstrap-secret-0123456789';

/**
 * The whole platform as a user meets it, with nothing stubbed: sign up, log in, queue an analysis
 * of a (simulated) Azure subscription, watch the job, and read what the dashboards show.
 */
describe('platform end to end', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let token: string;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 30, costPageSize: 1000 });
    host = await startTestHost({
      settings: { ...simSettings(sim), ADMIN_EMAILS: 'ops@example.com', ADMIN_BOOTSTRAP_SECRET: BOOTSTRAP },
      queueWorker: { pollMs: 50 },
      // The user's first start: initdb and every migration, not the run's migrated copy.
      freshDatabase: true,
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('signs a new user up and logs them in', async () => {
    // The first administrator: a listed email with the one-time bootstrap secret.
    const created = await api.post('/auth/api/User/create', {
      headers: { 'X-Admin-Bootstrap': BOOTSTRAP },
      json: {
        username: 'ops',
        userEmail: 'Ops@Example.com',
        password: 'correct-horse-9',
        repeatPassword: 'correct-horse-9',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: 'ops', email: 'ops@example.com', isAdmin: true });

    const login = await api.post('/auth/api/Auth/login', {
      json: { username: 'ops@example.com', password: 'correct-horse-9' },
    });
    expect(login.status).toBe(200);
    token = login.body.token;
    expect(typeof token).toBe('string');

    const me = await api.get('/auth/api/User/GetUserDetailsByToken', { token });
    expect(me.body).toMatchObject({ email: 'ops@example.com', isAdmin: true });
  });

  it('registers the subscription and runs a queued analysis through to completion', async () => {
    const sub = await api.post('/finops/api/Subscriptions', {
      token,
      json: { subscriptionId: SUBSCRIPTION, description: 'Production', budget: 1000 },
    });
    expect(sub.status).toBe(200);

    const started = await api.post('/finops/api/Analysis/start-async?monthSelection=current', {
      token,
      raw: JSON.stringify(SUBSCRIPTION),
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ subscriptionId: SUBSCRIPTION, status: 'pending' });
    expect(started.headers.get('location')).toContain(`/finops/api/Analysis/jobs/${started.body.jobId}`);

    const seen = new Set<string>();
    const job = await waitFor(
      'the analysis job to finish',
      async () => {
        const res = await api.get(`/finops/api/Analysis/jobs/${started.body.jobId}`, { token });
        seen.add(res.body.status);
        return res.body;
      },
      (j) => j.status === 'completed' || j.status === 'failed',
      60_000,
    );
    expect(job).toMatchObject({ status: 'completed', success: true, progress: 100 });
    expect(job.analysisRunId).toBeGreaterThan(0);
    expect(job.resourcesAnalyzed).toBe(30);
    expect(seen.has('completed')).toBe(true);
  });

  it('shows the analysis on the dashboards the web client reads', async () => {
    const latest = await api.get('/finops/api/AnalysisRuns/latest-per-subscription', { token });
    expect(latest.status).toBe(200);
    expect(latest.body).toHaveLength(1);
    const run = latest.body[0];
    expect(run).toMatchObject({
      subscriptionId: SUBSCRIPTION,
      description: 'Production',
      budget: 1000,
      infraSupportCost: 400,
    });
    expect(run.subscriptionName).toBe(sim.subscription(SUBSCRIPTION).displayName);
    expect(run.totalMonthlyCost).toBeGreaterThan(0);

    const costs = await api.get(`/finops/api/CostDetails/analysis/${run.id}`, { token });
    expect(costs.status).toBe(200);
    const groupTotal = costs.body
      .filter((c: { costType: string }) => c.costType === 'ResourceGroup')
      .reduce((sum: number, c: { cost: number }) => sum + c.cost, 0);
    expect(groupTotal).toBeCloseTo(run.totalMonthlyCost, 2);

    const history = await api.get(`/finops/api/HistoricalCosts/analysis/${run.id}/daily-totals`, { token });
    expect(history.status).toBe(200);
    expect(history.body.length).toBeGreaterThan(28);
    expect(history.body[0].date).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00$/);

    const summary = await api.get('/finops/api/Dashboard/summary', { token });
    expect(summary.status).toBe(200);
    expect(summary.body.latestRun).toMatchObject({ id: run.id, subscriptionName: run.subscriptionName });
    expect(summary.body.resourcesAnalyzed).toBe(30);
    expect(summary.body.resourcesWithIssues).toBeGreaterThan(0);

    const recs = await api.get(`/finops/api/Recommendations/analysis/${run.id}`, { token });
    expect(recs.status).toBe(200);
    expect(recs.body.length).toBeGreaterThan(0);
    expect(recs.body[0].recommendationText).toContain('Budget');
  });

  it('refuses the same reads without a token, as the web client expects (401 means log in again)', async () => {
    const res = await api.get('/finops/api/AnalysisRuns/latest-per-subscription');
    expect(res.status).toBe(401);
  });
});
