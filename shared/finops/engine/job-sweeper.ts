/**
 * Recovery of analysis jobs that nobody is going to finish: one sweep, run on every instance on a
 * short interval and by a timer trigger every minute. Every change is a conditional update of one
 * row (status, heartbeat and last send as read), so two instances sweeping at once never both act on
 * a job, and a job its host touches meanwhile is left alone.
 *
 * 1. Abandoned: a `running` job whose heartbeat stopped for staleMs (a few heartbeat periods) lost
 *    its host. A queued job goes back to pending with a new message to send (its old message may be
 *    invisible for many minutes yet); after `maxAttempts` starts, or for a sync job (its caller went
 *    with the host), it fails with the reason.
 * 2. Outbox: a queued job whose message was never sent (a crash between the row and the send, or a
 *    failed send) is sent now.
 * 3. Lost: queued jobs sent long ago that no host touched since (a worker touches the row when it
 *    takes the message and while it waits at the gate) have their message in the queue, or lost. The
 *    queue's length tells how many at most can still be there: the rest are re-sent, oldest first.
 *    A duplicate is harmless (a message for a job already taken or finished is dropped).
 */
import type { AnalysisJob } from '../../db/generated/client.js';
import type { Logger } from '../../observability/logger.js';
import type { JobQueue } from '../../queue/analysis-queue.js';
import { shortReason } from './errors.js';
import type { JobStore } from './jobs.js';

/** Sends of one job's message (first send, sends that failed, re-sends of lost ones) before it fails. */
export const MAX_MESSAGE_SENDS = 10;

export interface SweepDeps {
  jobs: JobStore;
  queue: Pick<JobQueue, 'send' | 'approximateCount'>;
  log: Logger;
  /** Starts of one job (the queue's maxDequeueCount) before an abandoned one is failed, not restarted. */
  maxAttempts: number;
}

export interface SweepResult {
  restarted: number;
  failed: number;
  sent: number;
}

export function jobMessage(job: AnalysisJob): Record<string, unknown> {
  return {
    jobId: job.id,
    subscriptionId: job.subscriptionId,
    monthSelection: job.monthSelection,
    source: job.source,
  };
}

/**
 * Sends the job's message if this caller wins the right to (see JobStore.takeSend). A failed send
 * puts it back in the outbox; never throws.
 */
export async function sendJobMessage(
  deps: Pick<SweepDeps, 'jobs' | 'queue' | 'log'>,
  job: AnalysisJob,
): Promise<boolean> {
  const at = await deps.jobs.takeSend(job.id, job.messageSentAt);
  if (!at) return false;
  try {
    await deps.queue.send(jobMessage(job));
    return true;
  } catch (err) {
    deps.log.warn({ jobId: job.id, reason: shortReason(err) }, 'analysis queue send failed; will retry');
    await deps.jobs.unsend(job.id, at).catch(() => undefined);
    return false;
  }
}

export async function sweepJobs(deps: SweepDeps, now = deps.jobs.now().getTime()): Promise<SweepResult> {
  const { jobs, log } = deps;
  const result: SweepResult = { restarted: 0, failed: 0, sent: 0 };
  const silentFor = `${Math.round(jobs.staleMs / 1000)} s`;

  for (const job of await jobs.abandoned(now)) {
    if (job.status === 'pending') {
      if (
        await jobs.failUnchanged(
          job,
          'Error: the host that took this analysis stopped before starting it.',
          `Host stopped (no heartbeat for ${silentFor}).`,
        )
      )
        result.failed++;
      continue;
    }
    if (job.source === 'sync' || job.attempts >= deps.maxAttempts) {
      const reason =
        job.source === 'sync'
          ? `Host stopped (no heartbeat for ${silentFor}).`
          : `Host stopped (no heartbeat for ${silentFor}); gave up after ${job.attempts} attempts.`;
      if (
        await jobs.failUnchanged(
          job,
          'Error: the host running this analysis stopped before it finished.',
          reason,
        )
      )
        result.failed++;
      continue;
    }
    if (
      await jobs.restart(
        job,
        'The host running this analysis stopped; restarting it.',
        `Host stopped (no heartbeat for ${silentFor}).`,
      )
    ) {
      result.restarted++;
      log.warn({ jobId: job.id, attempts: job.attempts }, 'abandoned analysis job restarted');
    }
  }

  for (const job of await jobs.unsent()) {
    if (job.messageSends >= MAX_MESSAGE_SENDS) {
      if (
        await jobs.failUnchanged(
          job,
          'Error: the analysis queue is unavailable.',
          `Its queue message could not be sent (${job.messageSends} attempts).`,
        )
      )
        result.failed++;
      continue;
    }
    if (await sendJobMessage(deps, job)) result.sent++;
  }

  const silent = await jobs.silentQueued(now);
  if (silent.length > 0) {
    const inQueue = await deps.queue.approximateCount();
    const lost = silent.slice(0, Math.max(0, silent.length - inQueue));
    for (const job of lost) {
      if (job.messageSends >= MAX_MESSAGE_SENDS) {
        if (
          await jobs.failUnchanged(
            job,
            'Error: the analysis queue lost this job.',
            `Its queue message was lost ${job.messageSends} times.`,
          )
        )
          result.failed++;
        continue;
      }
      if (await sendJobMessage(deps, job)) {
        result.sent++;
        log.warn({ jobId: job.id, sends: job.messageSends + 1 }, 'lost analysis queue message re-sent');
      }
    }
  }
  return result;
}
