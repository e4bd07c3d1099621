import azf from '@azure/functions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { type Api, SUB_A, SUB_B, SUB_C, startAnalysisHost, USER, waitFor, waitForJob } from './support.js';

const SUB_D = '0b5c6a1e-1111-4a2b-8c3d-000000000004';

function overlaps(jobs: Array<{ startedAt: string; completedAt: string }>): boolean {
  const spans = jobs
    .map((j) => [Date.parse(j.startedAt), Date.parse(j.completedAt)] as const)
    .sort((a, b) => a[0] - b[0]);
  return spans.some((s, i) => i > 0 && s[0] < spans[i - 1]![1]);
}

describe('queued analyses', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: Api;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 20, costPageSize: 2000 });
    host = await startAnalysisHost(sim, {
      extra: { Cloud__SubscriptionIds: `${SUB_A},${SUB_B}` },
      // A failed message is visible again at once, so five attempts take no time.
      queueWorker: { pollMs: 50, settings: { visibilityTimeoutMs: 0 } },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });
  beforeEach(() => {
    sim.faults.reset();
    sim.stats.reset();
  });

  it('moves a job pending → running → completed, with phase and progress', async () => {
    sim.faults.slow(150, 'cost');
    const res = await api.post('/finops/api/Analysis/start-async?monthSelection=current', {
      token: USER,
      json: SUB_A,
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.any(String), subscriptionId: SUB_A, status: 'pending' });
    // Relative: PUBLIC_BASE_URL is unset, and the Host header is never trusted.
    expect(res.headers.get('location')).toBe(`/finops/api/Analysis/jobs/${res.body.jobId}`);

    const seen = new Set<string>();
    const running = await waitFor(
      'a running job',
      () => api.get(`/finops/api/Analysis/jobs/${res.body.jobId}`, { token: USER }),
      (r) => {
        seen.add(r.body.status);
        return r.body.status === 'running' && r.body.phase !== 'starting';
      },
      20_000,
      30,
    );
    expect(running.body).toMatchObject({
      status: 'running',
      success: null,
      analysisRunId: null,
      completedAt: null,
    });
    expect(running.body.startedAt).toMatch(/\+00:00$/);
    // A running job's progress is a number short of done.
    expect(running.body.progress).toBeTypeOf('number');
    expect(running.body.progress).toBeLessThan(100);
    const done = await waitForJob(api, res.body.jobId, ['completed', 'failed']);
    expect(done).toMatchObject({
      jobId: res.body.jobId,
      subscriptionId: SUB_A,
      status: 'completed',
      success: true,
      subscriptionName: sim.subscription(SUB_A).displayName,
      resourcesAnalyzed: 20,
      message: 'Analysis completed successfully',
      errorDetails: null,
      progress: 100,
      phase: 'completed',
    });
    expect(done.analysisRunId).toBeGreaterThan(0);
    expect(done.totalMonthlyCost).toBeGreaterThan(0);
    expect(done.createdAt).toMatch(/\+00:00$/);
    expect(done.completedAt).toMatch(/\+00:00$/);
    expect([...seen]).toContain('running');
  });

  it('ends failed with a short reason when the subscription cannot be read', async () => {
    sim.faults.fail({ status: 404, endpoint: 'subscription', count: 1 });
    const res = await api.post('/finops/api/Analysis/start-async', { token: USER, json: SUB_B });
    const job = await waitForJob(api, res.body.jobId, ['completed', 'failed']);
    expect(job).toMatchObject({
      status: 'failed',
      success: false,
      analysisRunId: 0,
      subscriptionName: 'Unknown',
    });
    expect(job.message).toMatch(/^Error: /);
    expect(job.errorDetails).toMatch(/404|Simulated/);
    expect(`${job.message}${job.errorDetails}`).not.toMatch(/\n\s+at /);
    expect(job.attempts).toBe(1); // a 404 is not retried
    expect(await host.services.prisma.analysisRun.count({ where: { subscriptionId: SUB_B } })).toBe(0);
  });

  it('retries a transient failure through the queue and then completes', async () => {
    sim.faults.fail({ status: 500, endpoint: 'subscription', count: 2 });
    const res = await api.post('/finops/api/Analysis/start-async', { token: USER, json: SUB_C });
    const job = await waitForJob(api, res.body.jobId, ['completed', 'failed']);
    expect(job).toMatchObject({ status: 'completed', success: true, attempts: 3 });
  });

  it('fails the job with its reason on the fifth failure and poisons the message', async () => {
    sim.faults.fail({ status: 500, endpoint: 'subscription', count: 50 });
    const res = await api.post('/finops/api/Analysis/start-async', { token: USER, json: SUB_D });
    const job = await waitForJob(api, res.body.jobId, ['completed', 'failed']);
    expect(job).toMatchObject({ status: 'failed', success: false, attempts: 5 });
    expect(job.errorDetails).toMatch(/gave up after 5 attempts/);
    const poison = host.services.queue.poisonClient();
    const peeked = await waitFor(
      'the poison message',
      () => poison.peekMessages({ numberOfMessages: 32 }),
      (p) => p.peekedMessageItems.some((m) => m.messageText.includes(res.body.jobId)),
    );
    expect(peeked.peekedMessageItems.length).toBeGreaterThan(0);
    expect(await host.services.prisma.analysisRun.count({ where: { subscriptionId: SUB_D } })).toBe(0);
  });

  it('runs three analyses started at once one after another (sync waits at the gate too)', async () => {
    sim.faults.slow(100, 'cost');
    const a = await api.post('/finops/api/Analysis/start-async', { token: USER, json: SUB_A });
    const b = await api.post('/finops/api/Analysis/start-async', { token: USER, json: SUB_B });
    // The worker takes a; b waits in the queue; the sync request waits at the gate as a pending job.
    await waitForJob(api, a.body.jobId, ['running', 'completed']);
    const syncPromise = api.post('/finops/api/Analysis/start', { token: USER, json: SUB_C });
    const pendingSync = await waitFor(
      'the sync job row',
      () =>
        host.services.prisma.analysisJob.findFirst({
          where: { source: 'sync', subscriptionId: SUB_C, analysisRunId: null },
        }),
      (j) => j !== null,
    );
    expect(pendingSync!.status).toBe('pending');
    const sync = await syncPromise;
    expect(sync.body.success).toBe(true);
    const jobs = [
      await waitForJob(api, a.body.jobId, ['completed']),
      await waitForJob(api, b.body.jobId, ['completed']),
      (await api.get(`/finops/api/Analysis/jobs/${sync.body.jobId}`, { token: USER })).body,
    ];
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
    expect(overlaps(jobs)).toBe(false);
    expect(sim.stats.maxConcurrentCostQueries).toBe(1);
  });

  it('enqueues one weekly job per configured and onboarded subscription', async () => {
    await host.services.prisma.subscription.create({
      data: { subscriptionId: SUB_C, description: 'onboarded' },
    });
    await host.services.prisma.subscription.create({ data: { subscriptionId: SUB_A.toUpperCase() } });
    const before = new Date();
    await host.services.finops.handleWeeklyTimer(
      {
        isPastDue: false,
        schedule: { adjustForDST: false },
        scheduleStatus: { last: '', next: '', lastUpdated: '' },
      },
      new azf.InvocationContext({ functionName: 'weekly-analysis', invocationId: 'weekly-test' }),
    );
    const jobs = await host.services.prisma.analysisJob.findMany({
      where: { source: 'weekly', createdAt: { gte: before } },
    });
    expect(jobs.map((j) => j.subscriptionId.toLowerCase()).sort()).toEqual([SUB_A, SUB_B, SUB_C].sort());
    for (const j of jobs) {
      const done = await waitForJob(api, j.id, ['completed', 'failed'], 30_000);
      expect(done.status).toBe('completed');
    }
  });
});
