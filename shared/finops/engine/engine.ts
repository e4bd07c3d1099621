/**
 * The analysis engine of one host, composed of its parts: the job rows (jobs.ts), the gate (gate.ts),
 * the runner of one job (job-runner.ts), the sweeper (job-sweeper.ts), what an analysis is given
 * (analysis-settings.ts), the weekly fan-out (weekly.ts) and cleanup (run-cleanup.ts). Every
 * analysis — sync, async or weekly — runs through the runner, inside the gate.
 */
import type { InvocationContext } from '@azure/functions';
import type { CoreServices } from '../../app/services.js';
import type { AnalysisJob } from '../../db/generated/client.js';
import { databaseTimeouts } from '../../db/timeouts.js';
import type { AzureAccess } from '../azure/index.js';
import type { KubernetesUsageSource } from '../kubernetes/usage-source.js';
import {
  analysisDeps,
  azureAccessFromSettings,
  costQuerySettings,
  postgresUrlOf,
  type SettingsDto,
} from './analysis-settings.js';
import { type Clock, systemClock } from './clock.js';
import { AnalysisGate } from './gate.js';
import { JobRunner } from './job-runner.js';
import { type SweepResult, sendJobMessage, sweepJobs } from './job-sweeper.js';
import { type JobSource, JobStore, type SyncSummary, toSyncSummary } from './jobs.js';
import { runAnalysis } from './orchestrator.js';
import type { MonthSelection } from './period.js';
import { MAX_DEQUEUE_COUNT, parseQueueMessage } from './queue-message.js';
import { type CleanupResult, cleanupRuns } from './run-cleanup.js';
import { weeklySubscriptionIds } from './weekly.js';

export interface EngineOptions {
  /** Use this Azure access instead of building one from the Cloud__* settings (bench, tests). */
  azure?: AzureAccess;
  /** The agent's side of the Kubernetes cost (namespace anomalies after each analysis). */
  kubernetesUsage?: () => KubernetesUsageSource;
  /** The clock of every job row and analysis (default: the system's). */
  now?: Clock;
}

export class AnalysisEngine {
  readonly jobs: JobStore;
  readonly gate: AnalysisGate;
  private readonly runner: JobRunner;
  private readonly abort = new AbortController();
  private readonly running = new Set<Promise<unknown>>();
  private readonly heartbeatMs: number;
  private sweeper: NodeJS.Timeout | undefined;
  private azure: AzureAccess | undefined;

  constructor(
    private readonly core: CoreServices,
    opts: EngineOptions = {},
  ) {
    const now = opts.now ?? systemClock;
    this.heartbeatMs = core.config.finops.AnalysisJobs__HeartbeatSeconds * 1000;
    this.jobs = new JobStore(core.prisma, this.heartbeatMs * 4, now);
    this.gate = new AnalysisGate({
      postgresUrl: postgresUrlOf(core),
      timeouts: databaseTimeouts(core.config.platform),
      log: core.log,
    });
    this.azure = opts.azure;
    this.runner = new JobRunner({
      jobs: this.jobs,
      gate: this.gate,
      log: core.log,
      heartbeatMs: this.heartbeatMs,
      now,
      signal: this.abort.signal,
      analyse: (input, progress, signal) =>
        runAnalysis(
          analysisDeps(core, this.azureAccess(), now, opts.kubernetesUsage),
          input,
          progress,
          signal,
        ),
    });
  }

  /**
   * Starts the job sweeper on this instance: now, then every heartbeat period, so an abandoned job
   * is found within a few heartbeats of its host's last one (the timer trigger sweeps too, for
   * instances that are not running).
   */
  start(): void {
    const sweep = () => {
      void this.sweepJobs().catch((err) => this.core.log.debug({ err }, 'job sweep failed'));
    };
    sweep();
    this.sweeper = setInterval(sweep, this.heartbeatMs);
    this.sweeper.unref();
  }

  /** One sweep: abandoned jobs restarted or failed, unsent and lost queue messages sent. */
  async sweepJobs(): Promise<SweepResult> {
    if (this.abort.signal.aborted) return { restarted: 0, failed: 0, sent: 0 };
    const r = await sweepJobs({
      jobs: this.jobs,
      queue: this.core.queue,
      log: this.core.log,
      maxAttempts: MAX_DEQUEUE_COUNT,
    });
    if (r.restarted || r.failed || r.sent) this.core.log.info({ ...r }, 'analysis job sweep');
    return r;
  }

  /** Built on first use, so that a host without Cloud__* settings starts and fails only its analyses. */
  private azureAccess(): AzureAccess {
    this.azure ??= azureAccessFromSettings(this.core.config.finops, this.core.log);
    return this.azure;
  }

  settings(): SettingsDto {
    return costQuerySettings(this.core.config.finops.Cloud__CostQueryType);
  }

  /**
   * POST /Analysis/start-async: a pending job row, which is also its outbox entry (no message sent
   * yet), then the message. If the send fails or this host dies before it, the sweeper sends it.
   */
  async startAsync(subscriptionId: string, monthSelection: MonthSelection, source: JobSource = 'async') {
    const job = await this.jobs.create(subscriptionId, monthSelection, source);
    await sendJobMessage({ jobs: this.jobs, queue: this.core.queue, log: this.core.log }, job);
    return job;
  }

  /**
   * POST /Analysis/start: runs now (after any analysis ahead of it) and answers the sync summary,
   * or, when that takes longer than `maxWaitMs`, the job, which goes on running and is tracked
   * like a queued one (GET Analysis/jobs/{id}).
   */
  async startSync(
    subscriptionId: string,
    monthSelection: MonthSelection,
    maxWaitMs = Number.POSITIVE_INFINITY,
  ): Promise<{ kind: 'summary'; summary: SyncSummary } | { kind: 'accepted'; job: AnalysisJob }> {
    const job = await this.jobs.create(subscriptionId, monthSelection, 'sync');
    const finished = this.track(this.runner.run(job, MAX_DEQUEUE_COUNT).catch(() => undefined)).then(
      () => true as const,
    );
    let timer: NodeJS.Timeout | undefined;
    const bound = Number.isFinite(maxWaitMs)
      ? new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), maxWaitMs);
        })
      : new Promise<false>(() => undefined);
    const inTime = await Promise.race([finished, bound]);
    clearTimeout(timer);
    const done = (await this.jobs.get(job.id))!;
    return inTime ? { kind: 'summary', summary: toSyncSummary(done) } : { kind: 'accepted', job: done };
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.running.add(p);
    void p.finally(() => this.running.delete(p)).catch(() => undefined);
    return p;
  }

  /** The queue trigger: one message, one job. Throws to have the queue retry the message. */
  async handleQueueMessage(message: unknown, context: InvocationContext): Promise<void> {
    const msg = parseQueueMessage(message);
    if (!msg) {
      this.core.log.error({ message }, 'analysis queue message is not a job; dropped');
      return;
    }
    const dequeueCount = Number(context.triggerMetadata?.dequeueCount ?? 1) || 1;
    let job = msg.jobId ? await this.jobs.get(msg.jobId) : null;
    if (!job) {
      if (msg.jobId) {
        this.core.log.warn({ jobId: msg.jobId }, 'queued analysis job no longer exists; message dropped');
        return;
      }
      job = await this.jobs.create(msg.subscriptionId, msg.monthSelection, msg.source ?? 'async', true);
    }
    await this.track(this.runner.runQueued(job, dequeueCount));
  }

  /** The weekly timer: one queued job per subscription (configured ids and onboarded ones). */
  async enqueueWeekly(): Promise<AnalysisJob[]> {
    const ids = await weeklySubscriptionIds(this.core.config.finops.Cloud__SubscriptionIds, this.core.prisma);
    const jobs: AnalysisJob[] = [];
    for (const id of ids) jobs.push(await this.startAsync(id, 'current', 'weekly'));
    this.core.log.info({ subscriptions: ids.length }, 'weekly analyses enqueued');
    return jobs;
  }

  /** POST /Analysis/cleanup: keeps the newest run of each subscription, deletes the others (cascade). */
  cleanup(): Promise<CleanupResult> {
    return cleanupRuns(this.core.prisma);
  }

  /** Stops like a crash would: running analyses are abandoned (their heartbeat stops). */
  async close(): Promise<void> {
    this.abort.abort();
    if (this.sweeper) clearInterval(this.sweeper);
    const all = Promise.allSettled([...this.running]);
    await Promise.race([all, new Promise((r) => setTimeout(r, 10_000).unref())]);
  }
}
