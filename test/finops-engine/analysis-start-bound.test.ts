// POST /Analysis/start inside Azure's HTTP limit: Azure ends any HTTP response after 230 s
// (learn.microsoft.com, "Azure Functions hosting options" / "Function app timeout duration": the
// load balancer's 230-second idle timeout). Past AnalysisStart__MaxWaitSeconds the route answers
// as start-async does and the analysis goes on as a tracked job. The simulator's slow and 429
// switches stand in for a long analysis. Two hosts: one with an 8 s bound, loose enough that an
// unthrottled analysis ends within it on a loaded machine, and one with a 2 s bound that a cost API
// slowed to 4 s, or a back-off of 5 s, outlasts (so the 202 cases do not wait out a long bound).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { type Api, SUB_A, SUB_B, startAnalysisHost, USER, waitForJob } from './support.js';

// Back-off waits are real here, scaled to a twentieth: a 100 s Retry-After waits 5 s.
const PACE_SCALE = '0.05';
const SLOW_COST_MS = 4_000;

describe('POST /Analysis/start with a bound on the wait', () => {
  let sim: AzureSimulator;
  let roomy: TestHost;
  let tight: TestHost;
  let roomyApi: Api;
  let api: Api;

  beforeAll(async () => {
    // One cost page per query: the paced waits between pages stay out of the bound.
    sim = await startAzureSimulator({ resourcesPerSubscription: 10, costPageSize: 5000 });
    [roomy, tight] = await Promise.all([
      startAnalysisHost(sim, {
        queueWorker: false,
        extra: { AnalysisStart__MaxWaitSeconds: '8', CostQuery__PaceScale: PACE_SCALE },
      }),
      startAnalysisHost(sim, {
        queueWorker: false,
        extra: { AnalysisStart__MaxWaitSeconds: '2', CostQuery__PaceScale: PACE_SCALE },
      }),
    ]);
    roomyApi = apiClient(roomy.url);
    api = apiClient(tight.url);
  });
  afterEach(() => sim.faults.reset());
  afterAll(async () => {
    await Promise.all([roomy?.close(), tight?.close()]);
    await sim?.close();
  });

  it('answers 200 with the summary when the analysis ends within the bound', async () => {
    const res = await roomyApi.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, subscriptionId: SUB_A, resourcesAnalyzed: 10 });
  }, 60_000);

  it('answers 202 with the job and its Location, like start-async, when the cost API is slow; the job completes', async () => {
    sim.faults.slow(SLOW_COST_MS, 'cost');
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
    sim.faults.slow(SLOW_COST_MS, 'cost');
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

  it('answers 202 while throttled (429 with Retry-After) and the job completes after the back-off', async () => {
    sim.faults.throttle({ endpoint: 'cost', count: 1, headers: { 'retry-after': 100 } });
    const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_B });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ subscriptionId: SUB_B, status: 'running' });
    const job = await waitForJob(api, res.body.jobId, ['completed', 'failed'], 60_000);
    expect(job).toMatchObject({ status: 'completed', success: true, source: 'sync' });
  }, 90_000);
});
