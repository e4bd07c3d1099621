import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { SUB_A, startAnalysisHost, USER, waitFor, waitForJob } from './support.js';

describe('a host stopped in the middle of an analysis', () => {
  let sim: AzureSimulator;
  let dataDir: string;
  const hosts: TestHost[] = [];

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 20 });
    dataDir = mkdtempSync(path.join(tmpdir(), 'finwatch-kill-'));
  });
  afterAll(async () => {
    for (const h of hosts) await h.close().catch(() => undefined);
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves the job to be restarted by the next host, never stuck running and never a half run', {
    timeout: 60_000,
  }, async () => {
    const shared = { DATA_DIR: dataDir, AnalysisQueue__Name: `kill-${Date.now()}` };
    const worker = { pollMs: 50, leaseMs: 2_000, settings: { visibilityTimeoutMs: 1_000 } };
    // PGlite on a shared folder: the PostgreSQL variant (a SIGKILLed child host) is its own test.
    const a = await startAnalysisHost(sim, { settings: shared, queueWorker: worker, database: 'pglite' });
    hosts.push(a);
    sim.faults.slow(1_500, 'cost');
    const res = await apiClient(a.url).post('/finops/api/Analysis/start-async', { token: USER, json: SUB_A });
    const jobId = res.body.jobId as string;
    await waitFor(
      'the job to query costs',
      () => a.services.prisma.analysisJob.findUniqueOrThrow({ where: { id: jobId } }),
      (j) => j.status === 'running' && (j.phase ?? '').startsWith('cost'),
    );

    // Stop host A mid-job: its analysis is abandoned, its heartbeat stops, the row stays `running`.
    await a.services.finops.close();
    await a.close();
    hosts.pop();
    sim.faults.reset();

    const b = await startAnalysisHost(sim, { settings: shared, queueWorker: worker, database: 'pglite' });
    hosts.push(b);
    const api = apiClient(b.url);
    const stuck = (await api.get(`/finops/api/Analysis/jobs/${jobId}`, { token: USER })).body;
    // Still `running`, or already put back to `pending` by B's sweeper when B took longer to start
    // than four heartbeats; never finished and never failed.
    expect(['running', 'pending']).toContain(stuck.status);
    expect(stuck.analysisRunId).toBeNull();

    // The sweeper (or the redelivered message) finds the heartbeat stale and restarts the job.
    const done = await waitForJob(api, jobId, ['completed', 'failed'], 30_000);
    expect(done).toMatchObject({ status: 'completed', success: true, attempts: 2 });
    const runs = await b.services.prisma.analysisRun.findMany({ where: { subscriptionId: SUB_A } });
    expect(runs.map((r) => r.id)).toEqual([done.analysisRunId]);
    expect(
      await b.services.prisma.resourceAnalysis.count({ where: { analysisRunId: done.analysisRunId } }),
    ).toBe(20);
  });

  it('marks a stopped synchronous job failed once its heartbeat is stale (no message can redeliver it)', async () => {
    const b = hosts[hosts.length - 1]!;
    const prisma = b.services.prisma;
    const old = new Date(Date.now() - 60_000);
    const job = await prisma.analysisJob.create({
      data: { subscriptionId: SUB_A, source: 'sync', status: 'running', startedAt: old, heartbeatAt: old },
    });
    const failed = await waitFor(
      'the sweeper',
      () => prisma.analysisJob.findUniqueOrThrow({ where: { id: job.id } }),
      (j) => j.status === 'failed',
      15_000,
      200,
    );
    expect(failed).toMatchObject({ success: false });
    expect(failed.errorDetails).toMatch(/^Host stopped \(no heartbeat for \d+ s\)\.$/);
  });
});
