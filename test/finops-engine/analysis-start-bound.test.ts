// POST /Analysis/start inside Azure's HTTP limit: Azure ends any HTTP response after 230 s
// (learn.microsoft.com, "Azure Functions hosting options" / "Function app timeout duration": the
// load balancer's 230-second idle timeout). Past AnalysisStart__MaxWaitSeconds the route answers
// as start-async does and the analysis goes on as a tracked job. The simulator's
// slow and 429 switches stand in for a long analysis, an 8 s bound for 200 s (loose enough
// that an unthrottled analysis ends within it on a loaded machine).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { type Api, SUB_A, SUB_B, startAnalysisHost, USER, waitForJob } from './support.js';

describe('POST /Analysis/start with a bound on the wait', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: Api;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 10, costPageSize: 500 });
    host = await startAnalysisHost(sim, {
      queueWorker: false,
      extra: { AnalysisStart__MaxWaitSeconds: '8' },
    });
    api = apiClient(host.url);
  });
  afterEach(() => sim.faults.reset());
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('answers 200 with the summary when the analysis ends within the bound', async () => {
    const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, subscriptionId: SUB_A, resourcesAnalyzed: 10 });
  });

  it('answers 202 with the job and its Location, like start-async, when the cost API is slow; the job completes', async () => {
    sim.faults.slow(10_000, 'cost');
    const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['jobId', 'status', 'subscriptionId']);
    expect(res.body).toMatchObject({ subscriptionId: SUB_A, status: 'running' });
    expect(res.headers.get('location')).toBe(`/finops/api/Analysis/jobs/${res.body.jobId}`);
    // The answer came before the analysis ended; it goes on, now at full speed.
    sim.faults.reset();
    const job = await waitForJob(api, res.body.jobId, ['completed', 'failed'], 60_000);
    expect(job).toMatchObject({ status: 'completed', success: true, source: 'sync', resourcesAnalyzed: 10 });
  }, 90_000);

  it('counts the wait behind a running analysis: the second start answers 202 while still pending', async () => {
    sim.faults.slow(10_000, 'cost');
    const [first, second] = await Promise.all([
      api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A }),
      // Sent a moment later, so the first most likely holds the gate.
      new Promise((r) => setTimeout(r, 200)).then(() =>
        api.post('/finops/api/Analysis/start', { token: USER, json: SUB_B }),
      ),
    ]);
    expect([first.status, second.status]).toEqual([202, 202]);
    // One holds the gate (running), the other waits behind it (pending); both answered in time.
    expect([first.body.status, second.body.status].sort()).toEqual(['pending', 'running']);
    sim.faults.reset();
    for (const res of [first, second]) {
      const job = await waitForJob(api, res.body.jobId, ['completed', 'failed'], 60_000);
      expect(job).toMatchObject({ status: 'completed', success: true });
    }
  }, 120_000);
});

describe('POST /Analysis/start with a bound on the wait, while the cost API throttles', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: Api;

  beforeAll(async () => {
    // One cost page per query: the paced waits between pages stay out of the bound.
    sim = await startAzureSimulator({ resourcesPerSubscription: 10, costPageSize: 5000 });
    // Back-off waits are real here (scaled to a twentieth): a 300 s Retry-After waits 15 s.
    host = await startAnalysisHost(sim, {
      queueWorker: false,
      extra: { AnalysisStart__MaxWaitSeconds: '8', CostQuery__PaceScale: '0.05' },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('answers 200 when nothing throttles', async () => {
    const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(res.status).toBe(200);
  }, 60_000);

  it('answers 202 while throttled (429 with Retry-After) and the job completes after the back-off', async () => {
    sim.faults.throttle({ endpoint: 'cost', count: 1, headers: { 'retry-after': 300 } });
    const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_B });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ subscriptionId: SUB_B, status: 'running' });
    const job = await waitForJob(api, res.body.jobId, ['completed', 'failed'], 60_000);
    expect(job).toMatchObject({ status: 'completed', success: true, source: 'sync' });
  }, 90_000);
});
