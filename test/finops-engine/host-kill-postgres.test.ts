import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { TEST_PG_URL } from '../support/databases.js';
import { type TestHost, testSettings } from '../support/host.js';
import { apiClient } from '../support/http.js';
import {
  SUB_B,
  simSettings,
  startAnalysisHost,
  startChildHost,
  USER,
  waitFor,
  waitForJob,
} from './support.js';

// A real crash: the host process is SIGKILLed in the middle of an analysis. Its PostgreSQL session
// dies with it (freeing the gate's advisory lock); the message comes back and another host restarts
// the job from its stale heartbeat.
describe.runIf(TEST_PG_URL)('a host process killed in the middle of an analysis (PostgreSQL)', () => {
  let sim: AzureSimulator;
  let survivor: TestHost;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 20 });
    survivor = await startAnalysisHost(sim, { database: 'postgres', queueWorker: false });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await survivor?.close();
    await sim?.close();
  });

  it('ends with the job retried to completion, not stuck running, and exactly one run', {
    timeout: 90_000,
  }, async () => {
    const settings = {
      ...testSettings(simSettings(sim)),
      ConnectionStrings__SqlConnectionString: survivor.settings.ConnectionStrings__SqlConnectionString!,
      AnalysisQueue__Name: survivor.settings.AnalysisQueue__Name!,
    } as Record<string, string>;
    const started = await startChildHost(settings);
    child = started.child;
    sim.faults.slow(2_000, 'cost');
    const res = await apiClient(started.url).post('/finops/api/Analysis/start-async', {
      token: USER,
      json: SUB_B,
    });
    expect(res.status).toBe(202);
    const jobId = res.body.jobId as string;
    const prisma = survivor.services.prisma;
    await waitFor(
      'the job to query costs in the child host',
      () => prisma.analysisJob.findUniqueOrThrow({ where: { id: jobId } }),
      (j) => j.status === 'running' && (j.phase ?? '').startsWith('cost'),
      30_000,
    );
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    sim.faults.reset();
    // Not finished: still `running`, or already back to `pending` if the survivor's sweeper saw its
    // heartbeat go stale (four heartbeats) in the meantime.
    expect(['running', 'pending']).toContain(
      (await prisma.analysisJob.findUniqueOrThrow({ where: { id: jobId } })).status,
    );

    // Another host drains the same queue: the redelivered message restarts the stale job.
    const { startQueueWorker } = await import('../../dev/queue-worker.js');
    const worker = startQueueWorker(survivor.services, {
      pollMs: 50,
      settings: { visibilityTimeoutMs: 1_000 },
    });
    try {
      const done = await waitForJob(apiClient(survivor.url), jobId, ['completed', 'failed'], 45_000);
      expect(done).toMatchObject({ status: 'completed', success: true, attempts: 2 });
      const runs = await prisma.analysisRun.findMany({ where: { subscriptionId: SUB_B } });
      expect(runs.map((r) => r.id)).toEqual([done.analysisRunId]);
    } finally {
      await worker.stop();
    }
  });
});
