import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { TEST_PG_URL } from '../support/databases.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { SUB_A, SUB_B, SUB_C, startTwoAnalysisHosts, USER, waitFor, waitForJob } from './support.js';

// Two hosts (two "instances" of the app) on one PostgreSQL database and one queue: the advisory
// lock of the gate must keep their analyses one at a time.
describe.runIf(TEST_PG_URL)('two hosts sharing one PostgreSQL database', () => {
  let sim: AzureSimulator;
  let a: TestHost;
  let b: TestHost;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 20 });
    [a, b] = await startTwoAnalysisHosts(sim);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await sim?.close();
  });

  it('runs analyses started on both hosts one after another', { timeout: 90_000 }, async () => {
    sim.faults.slow(150, 'cost');
    const apiA = apiClient(a.url);
    const apiB = apiClient(b.url);
    const ids: string[] = [];
    for (const [api, sub] of [
      [apiA, SUB_A],
      [apiB, SUB_B],
      [apiA, SUB_C],
    ] as const) {
      const res = await api.post('/finops/api/Analysis/start-async', { token: USER, json: sub });
      expect(res.status).toBe(202);
      ids.push(res.body.jobId);
    }
    // Both workers take a message; one of the two jobs waits at the gate, pending.
    const prisma = a.services.prisma;
    await waitFor(
      'one job running while another one is held pending at the gate',
      async () => {
        const jobs = await prisma.analysisJob.findMany({ where: { id: { in: ids } } });
        return jobs.map((j) => j.status);
      },
      (s) => s.filter((x) => x === 'running').length === 1 && s.includes('pending'),
    );
    const sync = await apiB.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(sync.body.success).toBe(true);
    const jobs = [];
    for (const id of ids) jobs.push(await waitForJob(apiB, id, ['completed', 'failed'], 60_000));
    jobs.push((await apiA.get(`/finops/api/Analysis/jobs/${sync.body.jobId}`, { token: USER })).body);
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const spans = jobs
      .map((j) => [Date.parse(j.startedAt), Date.parse(j.completedAt)] as const)
      .sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    expect(sim.stats.maxConcurrentCostQueries).toBe(1);
    // Never two running at once, as both hosts saw it.
    expect(await prisma.analysisJob.count({ where: { status: 'running' } })).toBe(0);
  });
});
