/**
 * The analysis engine of one host: jobs (rows), the gate, the queue side, the weekly fan-out and
 * cleanup. Every analysis — sync, async or weekly — runs through `runJob`, inside the gate.
 */

import { readFileSync } from 'node:fs';
import type { InvocationContext } from '@azure/functions';
import type { CoreServices } from '../../app/services.js';
import { sleep } from '../../app/sleep.js';
import { GUID } from '../../config/fields.js';
import type { AnalysisJob } from '../../db/generated/client.js';
import { databaseTimeouts } from '../../db/timeouts.js';
import { type AzureAccess, createAzureAccess } from '../azure/index.js';
import type { KubernetesUsageSource } from '../kubernetes/usage-source.js';
import {
  AnalysisAborted,
  isPermanent,
  JobBusyElsewhere,
  PermanentAnalysisError,
  shortReason,
} from './errors.js';
import { AnalysisGate } from './gate.js';
import { type SweepResult, sendJobMessage, sweepJobs } from './job-sweeper.js';
import { type JobSource, JobStore } from './jobs.js';
import { type AnalysisDeps, runAnalysis } from './orchestrator.js';
import type { MonthSelection } from './period.js';

/** host.json maxDequeueCount: the attempt after which a failing message goes to the poison queue. */
export const MAX_DEQUEUE_COUNT = 5;

export interface QueueMessage {
  jobId?: string;
  subscriptionId: string;
  monthSelection: MonthSelection;
  source?: JobSource;
}

export interface SyncSummary {
  success: boolean;
  subscriptionId: string;
  subscriptionName: string;
  analysisRunId: number;
  resourcesAnalyzed: number;
  totalMonthlyCost: number;
  message: string;
  errorDetails: string | null;
  jobId: string;
}

export interface CleanupResult {
  success: true;
  message: string;
  analysisRunsDeleted: number;
  analysisRunsKept: number;
  deletedRuns: string[];
}

export interface SettingsDto {
  costQueryType: 'ActualCost' | 'AmortizedCost';
  costQueryTypeLabel: 'Actual' | 'Amortized';
  costQueryTypeDescription: string;
}

export interface EngineOptions {
  /** Use this Azure access instead of building one from the Cloud__* settings (bench, tests). */
  azure?: AzureAccess;
  /** The agent's side of the Kubernetes cost (namespace anomalies after each analysis). */
  kubernetesUsage?: () => KubernetesUsageSource;
}

/** Parses a queue message (object or JSON text); undefined when it is not one of ours. */
export function parseQueueMessage(message: unknown): QueueMessage | undefined {
  let m = message;
  if (typeof m === 'string') {
    try {
      m = JSON.parse(m);
    } catch {
      return undefined;
    }
  }
  if (!m || typeof m !== 'object') return undefined;
  const o = m as Record<string, unknown>;
  const subscriptionId = typeof o.subscriptionId === 'string' ? o.subscriptionId.trim() : '';
  if (!GUID.test(subscriptionId)) return undefined;
  const monthSelection = o.monthSelection === 'previous' ? 'previous' : 'current';
  const jobId = typeof o.jobId === 'string' ? o.jobId : undefined;
  const source = o.source === 'weekly' ? 'weekly' : 'async';
  return { subscriptionId, monthSelection, source, ...(jobId ? { jobId } : {}) };
}

const pad = (n: number) => String(n).padStart(2, '0');
function sqlTime(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export class AnalysisEngine {
  readonly jobs: JobStore;
  readonly gate: AnalysisGate;
  private readonly abort = new AbortController();
  private readonly running = new Set<Promise<unknown>>();
  private readonly heartbeatMs: number;
  private sweeper: NodeJS.Timeout | undefined;
  private azure: AzureAccess | undefined;

  constructor(
    private readonly core: CoreServices,
    opts: EngineOptions = {},
  ) {
    const f = core.config.finops;
    this.heartbeatMs = f.AnalysisJobs__HeartbeatSeconds * 1000;
    this.jobs = new JobStore(core.prisma, this.heartbeatMs * 4);
    this.gate = new AnalysisGate({
      postgresUrl:
        core.db.kind === 'postgres' ? core.config.platform.ConnectionStrings__SqlConnectionString : undefined,
      timeouts: databaseTimeouts(core.config.platform),
      log: core.log,
    });
    this.azure = opts.azure;
    this.kubernetesUsage = opts.kubernetesUsage;
  }

  private readonly kubernetesUsage: (() => KubernetesUsageSource) | undefined;

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

  private azureAccess(): AzureAccess {
    if (this.azure) return this.azure;
    const f = this.core.config.finops;
    if (!f.Cloud__TenantId || !f.Cloud__ClientId || !f.Cloud__ClientSecret) {
      throw new PermanentAnalysisError(
        'Azure access is not configured: set Cloud__TenantId, Cloud__ClientId and Cloud__ClientSecret.',
      );
    }
    const log = this.core.log;
    this.azure = createAzureAccess({
      tenantId: f.Cloud__TenantId,
      clientId: f.Cloud__ClientId,
      clientSecret: f.Cloud__ClientSecret,
      ...(f.Cloud__ArmEndpoint ? { armEndpoint: f.Cloud__ArmEndpoint } : {}),
      ...(f.Cloud__AuthorityHost ? { authorityHost: f.Cloud__AuthorityHost } : {}),
      ...(f.Cloud__CaFile ? { ca: readFileSync(f.Cloud__CaFile, 'utf8') } : {}),
      costQueryType: f.Cloud__CostQueryType,
      paceScale: f.CostQuery__PaceScale,
      costPacing: f.CostQuery__Pacing,
      requestTimeoutMs: f.Cloud__RequestTimeoutSeconds * 1000,
      logger: {
        info: (meta, msg) => log.info(meta, msg),
        warn: (meta, msg) => log.warn(meta, msg),
        debug: (meta, msg) => log.debug(meta, msg),
      },
    });
    return this.azure;
  }

  private deps(): AnalysisDeps {
    const f = this.core.config.finops;
    return {
      azure: this.azureAccess(),
      prisma: this.core.prisma,
      log: this.core.log,
      costQueryType: f.Cloud__CostQueryType,
      intel: { sensitivity: f.Anomalies__Sensitivity, minImpact: f.Anomalies__MinImpact },
      ...(this.kubernetesUsage
        ? {
            kubernetes: {
              usage: this.kubernetesUsage,
              sharedNamespaces: f.KubernetesCost__SharedNamespaces.filter((n) => n.toLowerCase() !== 'none'),
              shareMode: f.KubernetesCost__ShareMode,
            },
          }
        : {}),
      ageThresholds: {
        unattachedDiskMinAgeDays: f.Waste__UnattachedDiskMinAgeDays,
        deallocatedVmMinAgeDays: f.Waste__DeallocatedVmMinAgeDays,
      },
      postgresUrl:
        this.core.db.kind === 'postgres'
          ? this.core.config.platform.ConnectionStrings__SqlConnectionString
          : undefined,
      postgresTimeouts: databaseTimeouts(this.core.config.platform),
      ...(f.AI__ApiUrl
        ? {
            ai: {
              url: f.AI__ApiUrl,
              apiKey: f.AI__ApiKey,
              headerName: f.AI__ApiKeyHeaderName,
              timeoutMs: f.AI__TimeoutSeconds * 1000,
              paceScale: f.CostQuery__PaceScale,
            },
          }
        : {}),
    };
  }

  settings(): SettingsDto {
    const amortized = this.core.config.finops.Cloud__CostQueryType === 'AmortizedCost';
    return amortized
      ? {
          costQueryType: 'AmortizedCost',
          costQueryTypeLabel: 'Amortized',
          costQueryTypeDescription:
            'Amortized cost: reservation and savings-plan purchases are spread over their commitment term.',
        }
      : {
          costQueryType: 'ActualCost',
          costQueryTypeLabel: 'Actual',
          costQueryTypeDescription:
            'Actual cost: charges as they are billed, purchases on the day they are made.',
        };
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
    const finished = this.track(this.runJob(job, MAX_DEQUEUE_COUNT).catch(() => undefined)).then(
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
    if (!inTime) return { kind: 'accepted', job: done };
    const success = done.status === 'completed' && done.success === true;
    return {
      kind: 'summary',
      summary: {
        success,
        subscriptionId,
        subscriptionName: done.subscriptionName ?? 'Unknown',
        analysisRunId: done.analysisRunId ?? 0,
        resourcesAnalyzed: done.resourcesAnalyzed ?? 0,
        totalMonthlyCost: done.totalMonthlyCost === null ? 0 : Number(done.totalMonthlyCost),
        message:
          done.message ??
          (success ? 'Analysis completed successfully' : 'Error: the analysis did not finish.'),
        errorDetails: success ? null : done.errorDetails,
        jobId: job.id,
      },
    };
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
    await this.track(this.runQueued(job, dequeueCount));
  }

  private async runQueued(job: AnalysisJob, dequeueCount: number): Promise<void> {
    if (job.status === 'completed' || job.status === 'failed') return;
    if (job.status === 'running' && !this.jobs.isStale(job)) {
      // Redelivered while another instance still works on it: wait for it to finish or go silent.
      const current = await this.waitWhileRunningElsewhere(job.id);
      if (!current || current.status === 'completed' || current.status === 'failed') return;
      if (current.status === 'running' && !this.jobs.isStale(current)) {
        if (dequeueCount >= MAX_DEQUEUE_COUNT) return; // it is alive elsewhere; do not poison it
        throw new JobBusyElsewhere(job.id);
      }
    }
    await this.runJob(job, dequeueCount);
  }

  private async waitWhileRunningElsewhere(id: string): Promise<AnalysisJob | null> {
    const deadline = Date.now() + this.jobs.staleMs + this.heartbeatMs;
    for (;;) {
      const job = await this.jobs.get(id);
      if (job?.status !== 'running') return job;
      if (this.jobs.isStale(job) || Date.now() > deadline) return job;
      await this.sleep(Math.min(this.heartbeatMs, 1000));
    }
  }

  private sleep(ms: number): Promise<void> {
    return sleep(ms, this.abort.signal);
  }

  /**
   * Runs one job inside the gate (it stays pending while it waits). Failures: a permanent one, a
   * sync job's, or the last allowed attempt's → failed with a short reason; otherwise back to
   * pending and the error is rethrown so that the queue retries the message.
   */
  private async runJob(job: AnalysisJob, dequeueCount: number): Promise<void> {
    const signal = this.abort.signal;
    let subscriptionName: string | undefined;
    // While it waits at the gate the job stays pending: touching it tells the sweeper a live host
    // holds it (its message is taken, not lost).
    const touch = () => void this.jobs.touch(job.id).catch(() => undefined);
    touch();
    const waiting = setInterval(touch, this.heartbeatMs);
    waiting.unref();
    try {
      await this.gate.run(async () => {
        clearInterval(waiting);
        const fresh = await this.jobs.get(job.id);
        if (!fresh || fresh.status === 'completed' || fresh.status === 'failed') return;
        if (!(await this.jobs.claim(fresh))) throw new JobBusyElsewhere(job.id);
        let lastWrite = 0;
        let lastPhase = '';
        const beat = setInterval(() => {
          if (!signal.aborted) void this.jobs.beat(job.id).catch(() => undefined);
        }, this.heartbeatMs);
        beat.unref();
        try {
          const result = await runAnalysis(
            this.deps(),
            { subscriptionId: job.subscriptionId, monthSelection: job.monthSelection as MonthSelection },
            async (phase, progress) => {
              if (signal.aborted) throw new AnalysisAborted();
              const now = Date.now();
              if (phase !== lastPhase || now - lastWrite >= 1000) {
                lastPhase = phase;
                lastWrite = now;
                await this.jobs.beat(job.id, phase, progress);
              }
            },
            signal,
          );
          subscriptionName = result.subscriptionName;
          await this.jobs.complete(job.id, {
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
      }, signal);
    } catch (err) {
      clearInterval(waiting);
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
      this.core.log.warn(
        { jobId: job.id, subscriptionId: job.subscriptionId, reason, permanent, attempt: dequeueCount },
        'analysis failed',
      );
      if (permanent || last) {
        await this.jobs.fail(
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
      await this.jobs.retryLater(job.id, `Attempt ${dequeueCount} failed; retrying.`, reason);
      throw err;
    }
  }

  /** The weekly timer: one queued job per subscription (configured ids and onboarded ones). */
  async enqueueWeekly(): Promise<AnalysisJob[]> {
    const configured = this.core.config.finops.Cloud__SubscriptionIds;
    const onboarded = await this.core.prisma.subscription.findMany({ select: { subscriptionId: true } });
    const seen = new Set<string>();
    const ids: string[] = [];
    // Configured ids are lower-cased by the configuration schema; a Subscriptions row is written in
    // lower case by the API, and a row put there by hand is lowered here, so no job is doubled.
    for (const id of [...configured, ...onboarded.map((s) => s.subscriptionId.trim().toLowerCase())]) {
      if (!GUID.test(id) || seen.has(id)) continue;
      seen.add(id);
      ids.push(id);
    }
    const jobs: AnalysisJob[] = [];
    for (const id of ids) jobs.push(await this.startAsync(id, 'current', 'weekly'));
    this.core.log.info({ subscriptions: ids.length }, 'weekly analyses enqueued');
    return jobs;
  }

  /** POST /Analysis/cleanup: keeps the newest run of each subscription, deletes the others (cascade). */
  async cleanup(): Promise<CleanupResult> {
    const runs = await this.core.prisma.analysisRun.findMany({
      select: { id: true, subscriptionId: true, subscriptionName: true, runDate: true },
      orderBy: [{ runDate: 'desc' }, { id: 'desc' }],
    });
    const kept = new Set<string>();
    const doomed: typeof runs = [];
    for (const r of runs) {
      const key = r.subscriptionId.toLowerCase();
      if (kept.has(key)) doomed.push(r);
      else kept.add(key);
    }
    // One run (and its cascade of up to hundreds of thousands of rows) per statement: many runs in one
    // DELETE could outlast the statement timeout and then never succeed. A failure part-way leaves
    // only whole runs deleted, and the next cleanup finishes the job.
    for (const r of doomed) await this.core.prisma.analysisRun.deleteMany({ where: { id: r.id } });
    return {
      success: true,
      message: doomed.length
        ? `Deleted ${doomed.length} old analysis run(s); kept the latest run of ${kept.size} subscription(s).`
        : 'Nothing to clean up: only the latest run of each subscription is stored.',
      analysisRunsDeleted: doomed.length,
      analysisRunsKept: kept.size,
      deletedRuns: doomed.map(
        (r) =>
          `Run #${r.id} - Subscription: ${r.subscriptionName} (${r.subscriptionId}) - Date: ${sqlTime(r.runDate)}`,
      ),
    };
  }

  /** Stops like a crash would: running analyses are abandoned (their heartbeat stops). */
  async close(): Promise<void> {
    this.abort.abort();
    if (this.sweeper) clearInterval(this.sweeper);
    const all = Promise.allSettled([...this.running]);
    await Promise.race([all, new Promise((r) => setTimeout(r, 10_000).unref())]);
  }
}
