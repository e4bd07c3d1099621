import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { TEST_PG_URL } from '../support/databases.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { killChildHostMidJob, SUB_B, startAnalysisHost, waitForJob } from './support.js';

// A real crash: the host process is SIGKILLed in the middle of an analysis. Its PostgreSQL session
// dies with it (freeing the gate's advisory lock); the message comes back and another host restarts
// the job from its stale heartbeat.
describe.runIf(TEST_PG_URL)('a host process killed in the middle of an analysis (PostgreSQL)', () => {
  let sim: AzureSimulator;
  let survivor: TestHost;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 20 });
    survivor = await startAnalysisHost(sim, { database: 'postgres', queueWorker: false });
  });
  afterAll(async () => {
    await survivor?.close();
    await sim?.close();
  });

  it('ends with the job retried to completion, not stuck running, and exactly one run', {
    timeout: 90_000,
  }, async () => {
    const { jobId } = await killChildHostMidJob(sim, survivor);
    const prisma = survivor.services.prisma;
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
