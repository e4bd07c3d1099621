import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { AnalysisJob } from '../../shared/db/generated/client.js';
import type { AnalysisGate } from '../../shared/finops/engine/gate.js';
import { JobRunner } from '../../shared/finops/engine/job-runner.js';
import type { JobStore } from '../../shared/finops/engine/jobs.js';
import { createLogger } from '../../shared/observability/logger.js';

/**
 * A queue redelivers a job's message while another instance still runs it: the runner waits,
 * polling the job, until that instance finishes. Every wait is on the host's signal, which lives
 * as long as the host; a wait that left its abort listener behind would gather one per poll.
 */
describe('a redelivered job that runs elsewhere', () => {
  it('waits for it on the host signal and leaves no abort listener behind, however often it comes', async () => {
    const host = new AbortController();
    const job = { id: 'job-1', status: 'running', subscriptionId: 'sub' } as AnalysisJob;
    let polls = 0;
    // Running elsewhere for two polls, then finished there.
    const jobs = {
      staleMs: 60_000,
      isStale: () => false,
      get: async () => {
        polls++;
        return polls % 3 === 0 ? { ...job, status: 'completed' } : job;
      },
    } as unknown as JobStore;
    const runner = new JobRunner({
      jobs,
      gate: {} as AnalysisGate,
      log: createLogger('None'),
      heartbeatMs: 1,
      now: () => new Date(),
      signal: host.signal,
      analyse: () => Promise.reject(new Error('a job finished elsewhere is not analysed again')),
    });
    for (let delivery = 0; delivery < 30; delivery++) await runner.runQueued(job, 2);
    // Each delivery polled three times and waited twice on the host signal.
    expect(polls).toBe(90);
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
  });
});
