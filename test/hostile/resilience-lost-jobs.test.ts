import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { SUB_A, SUB_C, startAnalysisHost, USER, waitFor, waitForJob } from '../finops-engine/support.js';
import type { TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

// One host on PGlite, heartbeat 1 s (a job is abandoned after 4 s; the sweeper looks every second).
describe('jobs whose queue message could not be sent or whose host stopped', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 5 });
    host = await startAnalysisHost(sim, { queueWorker: { pollMs: 50 } });
  });
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('accepts a job while the queue refuses its message, and sends it once the queue is back', {
    timeout: 40_000,
  }, async () => {
    const queue = host.services.queue;
    const send = queue.send;
    // Stand-in for a storage outage (the shared Azurite of the test run cannot be stopped): the
    // queue client refuses every send until it is restored.
    let refused = 0;
    queue.send = async () => {
      refused++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:10001'), { code: 'ECONNREFUSED' });
    };
    let jobId: string;
    try {
      const res = await apiClient(host.url).post('/finops/api/Analysis/start-async', {
        token: USER,
        json: SUB_A,
      });
      expect(isProblem(res, 500)).toBe(false);
      expect(res.status).toBe(202);
      jobId = res.body.jobId;
      // The refused send puts the job back in the outbox (messageSentAt null). A read can fall
      // between a send's claim and its refusal (the route's own or the sweeper's, each a write of
      // messageSentAt then one of null), so the state is awaited, not read once.
      const id = jobId;
      const row = await waitFor(
        'the refused send to leave the job in the outbox',
        () => host.services.prisma.analysisJob.findUniqueOrThrow({ where: { id } }),
        (r) => refused >= 1 && r.messageSentAt === null,
        10_000,
        20,
      );
      expect(row.status).toBe('pending');
      await waitFor(
        'the sweeper to try again',
        async () => refused,
        (n) => n >= 2,
        10_000,
      );
    } finally {
      queue.send = send;
    }
    const done = await waitForJob(apiClient(host.url), jobId, ['completed', 'failed'], 20_000);
    expect(done).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('fails a synchronous job whose host stopped while it waited at the gate, with the reason', async () => {
    const prisma = host.services.prisma;
    const old = new Date(Date.now() - 60_000);
    const job = await prisma.analysisJob.create({
      data: { subscriptionId: SUB_C, source: 'sync', status: 'pending', createdAt: old, heartbeatAt: old },
    });
    const failed = await waitFor(
      'the sweeper',
      () => prisma.analysisJob.findUniqueOrThrow({ where: { id: job.id } }),
      (j) => j.status !== 'pending',
      15_000,
      200,
    );
    expect(failed).toMatchObject({
      status: 'failed',
      success: false,
      message: 'Error: the host that took this analysis stopped before starting it.',
    });
    expect(failed.errorDetails).toMatch(/^Host stopped \(no heartbeat for 4 s\)\.$/);
  });

  it('restarts a queued job whose heartbeat stopped instead of leaving it running for an hour', {
    timeout: 40_000,
  }, async () => {
    const prisma = host.services.prisma;
    const old = new Date(Date.now() - 10_000);
    // Its message was taken by a host that died; the message stays invisible for its lease.
    const job = await prisma.analysisJob.create({
      data: {
        subscriptionId: SUB_C,
        source: 'async',
        status: 'running',
        phase: 'cost: history',
        attempts: 1,
        startedAt: old,
        heartbeatAt: old,
        messageSentAt: old,
        messageSends: 1,
      },
    });
    const done = await waitForJob(apiClient(host.url), job.id, ['completed', 'failed'], 20_000);
    expect(done).toMatchObject({ status: 'completed', success: true, attempts: 2 });
  });

  it('fails a queued job whose host stopped on each of its five starts', async () => {
    const prisma = host.services.prisma;
    const old = new Date(Date.now() - 10_000);
    const job = await prisma.analysisJob.create({
      data: {
        subscriptionId: SUB_C,
        source: 'async',
        status: 'running',
        attempts: 5,
        startedAt: old,
        heartbeatAt: old,
        messageSentAt: old,
        messageSends: 5,
      },
    });
    const failed = await waitFor(
      'the sweeper',
      () => prisma.analysisJob.findUniqueOrThrow({ where: { id: job.id } }),
      (j) => j.status !== 'running',
      15_000,
      200,
    );
    expect(failed).toMatchObject({ status: 'failed', success: false });
    expect(failed.errorDetails).toBe('Host stopped (no heartbeat for 4 s); gave up after 5 attempts.');
  });
});

describe('silent queued jobs, some of whose messages are still in the queue', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 5 });
    // No worker: whatever is in the queue stays there.
    host = await startAnalysisHost(sim, { queueWorker: false });
  });
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('re-sends only as many as the queue cannot hold, oldest first', async () => {
    const prisma = host.services.prisma;
    const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    // One of the three messages is still waiting in the queue; two were lost. The message goes
    // first and the rows in one statement, so the host's own sweeps see all of it at once.
    await host.services.queue.send({ jobId: ids[2], subscriptionId: SUB_A, monthSelection: 'current' });
    await prisma.analysisJob.createMany({
      data: ([30, 20, 10] as const).map((minutes, i) => ({
        id: ids[i]!,
        subscriptionId: SUB_A,
        source: 'async',
        status: 'pending',
        createdAt: minutesAgo(minutes),
        messageSentAt: minutesAgo(minutes),
        messageSends: 1,
      })),
    });
    await host.services.finops.engine.sweepJobs();
    const after = await prisma.analysisJob.findMany({
      where: { id: { in: ids } },
      orderBy: { createdAt: 'asc' },
    });
    expect(after.map((j) => j.messageSends)).toEqual([2, 2, 1]);
    expect(await host.services.queue.approximateCount()).toBe(3);
  });
});
