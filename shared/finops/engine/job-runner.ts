/**
 * Running one job row: it waits its turn at the gate (touched, so the sweeper knows a live host
 * holds it), is claimed, beats while the analysis runs, and ends completed, failed, or back in the
 * queue's hands. Which failures are retried and which end the job is decided here, in one place.
 */
import { sleep } from '../../app/sleep.js';
import type { AnalysisJob } from '../../db/generated/client.js';
import type { Logger } from '../../observability/logger.js';
import type { Clock } from './clock.js';
import { AnalysisAborted, isPermanent, JobBusyElsewhere, shortReason } from './errors.js';
import type { AnalysisGate } from './gate.js';
import type { JobStore } from './jobs.js';
import type { AnalysisInput, AnalysisResult, ProgressFn } from './orchestrator.js';
import type { MonthSelection } from './period.js';
import { MAX_DEQUEUE_COUNT } from './queue-message.js';

/** A job's progress is written at most this often within one phase (a new phase is written at once). */
const PROGRESS_WRITE_MS = 1000;

export interface JobRunnerDeps {
  jobs: JobStore;
  gate: AnalysisGate;
  log: Logger;
  heartbeatMs: number;
  now: Clock;
  /** Aborted when the host stops. */
  signal: AbortSignal;
  analyse(input: AnalysisInput, progress: ProgressFn, signal: AbortSignal): Promise<AnalysisResult>;
}

export class JobRunner {
  constructor(private readonly d: JobRunnerDeps) {}

  /** A job from a queue message: skipped when done, waited for while another instance runs it. */
  async runQueued(job: AnalysisJob, dequeueCount: number): Promise<void> {
    const { jobs } = this.d;
    if (job.status === 'completed' || job.status === 'failed') return;
    if (job.status === 'running' && !jobs.isStale(job)) {
      // Redelivered while another instance still works on it: wait for it to finish or go silent.
      const current = await this.waitWhileRunningElsewhere(job.id);
      if (!current || current.status === 'completed' || current.status === 'failed') return;
      if (current.status === 'running' && !jobs.isStale(current)) {
        if (dequeueCount >= MAX_DEQUEUE_COUNT) return; // it is alive elsewhere; do not poison it
        throw new JobBusyElsewhere(job.id);
      }
    }
    await this.run(job, dequeueCount);
  }

  private async waitWhileRunningElsewhere(id: string): Promise<AnalysisJob | null> {
    const { jobs, heartbeatMs, now, signal } = this.d;
    const deadline = now().getTime() + jobs.staleMs + heartbeatMs;
    for (;;) {
      const job = await jobs.get(id);
      if (job?.status !== 'running') return job;
      if (jobs.isStale(job) || now().getTime() > deadline) return job;
      await sleep(Math.min(heartbeatMs, 1000), signal);
    }
  }

  /**
   * Runs one job inside the gate (it stays pending while it waits). Failures: a permanent one, a
   * sync job's, or the last allowed attempt's → failed with a short reason; otherwise back to
   * pending and the error is rethrown so that the queue retries the message.
   */
  async run(job: AnalysisJob, dequeueCount: number): Promise<void> {
    const { jobs, gate, heartbeatMs, signal } = this.d;
    // The name the analysis found, for the failed row should the job fail after finding it.
    const found: { subscriptionName?: string } = {};
    // While it waits at the gate the job stays pending: touching it tells the sweeper a live host
    // holds it (its message is taken, not lost).
    const touch = () => void jobs.touch(job.id).catch(() => undefined);
    touch();
    const waiting = setInterval(touch, heartbeatMs);
    waiting.unref();
    try {
      await gate.run(async () => {
        clearInterval(waiting);
        const fresh = await jobs.get(job.id);
        if (!fresh || fresh.status === 'completed' || fresh.status === 'failed') return;
        if (!(await jobs.claim(fresh))) throw new JobBusyElsewhere(job.id);
        await this.analyseClaimed(job, found);
      }, signal);
    } catch (err) {
      clearInterval(waiting);
      await this.settleFailure(job, dequeueCount, err, found.subscriptionName);
    }
  }

  /** The analysis of a claimed job, its heartbeat and progress written; the job completed. */
  private async analyseClaimed(job: AnalysisJob, found: { subscriptionName?: string }): Promise<void> {
    const { jobs, heartbeatMs, now, signal } = this.d;
    let lastWrite = 0;
    let lastPhase = '';
    const beat = setInterval(() => {
      if (!signal.aborted) void jobs.beat(job.id).catch(() => undefined);
    }, heartbeatMs);
    beat.unref();
    try {
      const result = await this.d.analyse(
        { subscriptionId: job.subscriptionId, monthSelection: job.monthSelection as MonthSelection },
        async (phase, progress) => {
          if (signal.aborted) throw new AnalysisAborted();
          const at = now().getTime();
          if (phase !== lastPhase || at - lastWrite >= PROGRESS_WRITE_MS) {
            lastPhase = phase;
            lastWrite = at;
            await jobs.beat(job.id, phase, progress);
          }
        },
        signal,
      );
      found.subscriptionName = result.subscriptionName;
      await jobs.complete(job.id, {
        subscriptionName: result.subscriptionName,
        analysisRunId: result.analysisRunId,
        totalMonthlyCost: result.totalMonthlyCost,
        resourcesAnalyzed: result.resourcesAnalyzed,
        message: result.recommendationError
          ? `Analysis completed successfully (AI recommendations unavailable: ${result.recommendationError})`
          : 'Analysis completed successfully',
      });
    } finally {
      clearInterval(beat);
    }
  }

  /** What a failed attempt leaves: the row as a crash would, failed, or pending for the queue's retry. */
  private async settleFailure(
    job: AnalysisJob,
    dequeueCount: number,
    err: unknown,
    subscriptionName: string | undefined,
  ): Promise<void> {
    const { jobs, log, signal } = this.d;
    if (signal.aborted || err instanceof AnalysisAborted) {
      // The host is stopping: leave the row as a crash would; the redelivered message or the
      // sweeper takes it from there.
      throw err instanceof AnalysisAborted ? err : new AnalysisAborted();
    }
    if (err instanceof JobBusyElsewhere) {
      // Another instance holds this job: its row is not ours to change. Let the queue try later
      // (and drop the message on its last delivery rather than poison a live job).
      if (dequeueCount >= MAX_DEQUEUE_COUNT) return;
      throw err;
    }
    const reason = shortReason(err);
    const message = `Error: ${reason}`;
    const permanent = isPermanent(err);
    const last = dequeueCount >= MAX_DEQUEUE_COUNT;
    log.warn(
      { jobId: job.id, subscriptionId: job.subscriptionId, reason, permanent, attempt: dequeueCount },
      'analysis failed',
    );
    if (permanent || last) {
      await jobs.fail(
        job.id,
        message,
        last && !permanent && job.source !== 'sync'
          ? `${reason} (gave up after ${dequeueCount} attempts)`
          : reason,
        subscriptionName,
      );
      if (permanent) return; // no retry can help: the message is done
      throw err; // the queue moves the message to the poison queue
    }
    await jobs.retryLater(job.id, `Attempt ${dequeueCount} failed; retrying.`, reason);
    throw err;
  }
}
