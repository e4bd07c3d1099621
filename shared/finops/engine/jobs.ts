/**
 * Analysis jobs as database rows (they survive restarts and are shared by every instance), and their
 * wire form: the original's job DTO plus phase, progress and startedAt.
 */
import type { AnalysisJob, Prisma, PrismaClient } from '../../db/generated/client.js';
import { analysisFailedEvent, enqueueEvents } from '../../notify/events.js';
import { type Clock, systemClock } from './clock.js';
import type { MonthSelection } from './period.js';

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed';
export type JobSource = 'sync' | 'async' | 'weekly';

export interface JobDto {
  jobId: string;
  subscriptionId: string;
  status: JobStatus;
  createdAt: string;
  completedAt: string | null;
  success: boolean | null;
  subscriptionName: string | null;
  analysisRunId: number | null;
  totalMonthlyCost: number | null;
  resourcesAnalyzed: number | null;
  message: string | null;
  errorDetails: string | null;
  phase: string | null;
  progress: number;
  startedAt: string | null;
  monthSelection: string;
  source: string;
  attempts: number;
}

/** Job timestamps carry +00:00, as the original's DateTimeOffset values did. */
export function offsetTime(d: Date | null): string | null {
  return d ? d.toISOString().replace(/Z$/, '+00:00') : null;
}

export function toJobDto(job: AnalysisJob): JobDto {
  return {
    jobId: job.id,
    subscriptionId: job.subscriptionId,
    status: job.status as JobStatus,
    createdAt: offsetTime(job.createdAt)!,
    completedAt: offsetTime(job.completedAt),
    success: job.success,
    subscriptionName: job.subscriptionName,
    analysisRunId: job.analysisRunId,
    totalMonthlyCost: job.totalMonthlyCost === null ? null : Number(job.totalMonthlyCost),
    resourcesAnalyzed: job.resourcesAnalyzed,
    message: job.message,
    errorDetails: job.errorDetails,
    phase: job.phase,
    progress: job.progress,
    startedAt: offsetTime(job.startedAt),
    monthSelection: job.monthSelection,
    source: job.source,
    attempts: job.attempts,
  };
}

/** POST /Analysis/start's answer when the analysis finished in time (the original's shape). */
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

export function toSyncSummary(job: AnalysisJob): SyncSummary {
  const success = job.status === 'completed' && job.success === true;
  return {
    success,
    subscriptionId: job.subscriptionId,
    subscriptionName: job.subscriptionName ?? 'Unknown',
    analysisRunId: job.analysisRunId ?? 0,
    resourcesAnalyzed: job.resourcesAnalyzed ?? 0,
    totalMonthlyCost: job.totalMonthlyCost === null ? 0 : Number(job.totalMonthlyCost),
    message:
      job.message ?? (success ? 'Analysis completed successfully' : 'Error: the analysis did not finish.'),
    errorDetails: success ? null : job.errorDetails,
    jobId: job.id,
  };
}

export interface JobResult {
  subscriptionName: string | null;
  analysisRunId: number;
  totalMonthlyCost: number | null;
  resourcesAnalyzed: number;
  message: string;
  /** What the job status route adds to the job (an import's summary). */
  result?: Prisma.InputJsonObject;
}

export class JobStore {
  constructor(
    private readonly prisma: PrismaClient,
    /** A running job whose heartbeat is older than this is abandoned (its host stopped). */
    readonly staleMs: number,
    /** The engine's clock: every time a job row records is read from it. */
    readonly now: Clock = systemClock,
  ) {}

  /**
   * A pending job. A queued one starts in the outbox (no message sent yet) unless `fromMessage`: a
   * job created by the message that carries it needs no other.
   */
  create(
    subscriptionId: string,
    monthSelection: MonthSelection,
    source: JobSource,
    fromMessage = false,
  ): Promise<AnalysisJob> {
    return this.prisma.analysisJob.create({
      data: {
        subscriptionId,
        monthSelection,
        source,
        status: 'pending',
        ...(fromMessage ? { messageSentAt: this.now(), messageSends: 1 } : {}),
      },
    });
  }

  get(id: string): Promise<AnalysisJob | null> {
    return this.prisma.analysisJob.findUnique({ where: { id } });
  }

  isStale(job: AnalysisJob, now = this.now().getTime()): boolean {
    const beat = job.heartbeatAt ?? job.startedAt;
    return !beat || now - beat.getTime() > this.staleMs;
  }

  /**
   * Takes the job for this host: pending → running, or running with a stale heartbeat → running
   * again (a restart). Atomic, so two hosts given the same message never both run it.
   */
  async claim(job: AnalysisJob): Promise<boolean> {
    const now = this.now();
    const staleBefore = new Date(now.getTime() - this.staleMs);
    const r = await this.prisma.analysisJob.updateMany({
      where: {
        id: job.id,
        OR: [
          { status: 'pending' },
          { status: 'running', heartbeatAt: { lt: staleBefore } },
          { status: 'running', heartbeatAt: null },
        ],
      },
      data: {
        status: 'running',
        phase: 'starting',
        progress: 0,
        attempts: { increment: 1 },
        startedAt: now,
        heartbeatAt: now,
        message: null,
        errorDetails: null,
        success: null,
        completedAt: null,
      },
    });
    return r.count === 1;
  }

  async beat(id: string, phase?: string, progress?: number): Promise<void> {
    await this.prisma.analysisJob.updateMany({
      where: { id, status: 'running' },
      data: {
        heartbeatAt: this.now(),
        ...(phase !== undefined ? { phase } : {}),
        ...(progress !== undefined ? { progress: Math.max(0, Math.min(100, Math.round(progress))) } : {}),
      },
    });
  }

  async complete(id: string, r: JobResult): Promise<void> {
    await this.prisma.analysisJob.update({
      where: { id },
      data: {
        status: 'completed',
        phase: 'completed',
        progress: 100,
        success: true,
        completedAt: this.now(),
        heartbeatAt: this.now(),
        subscriptionName: r.subscriptionName,
        analysisRunId: r.analysisRunId,
        totalMonthlyCost: r.totalMonthlyCost,
        resourcesAnalyzed: r.resourcesAnalyzed,
        message: r.message,
        errorDetails: null,
        ...(r.result ? { result: r.result } : {}),
      },
    });
  }

  async fail(id: string, message: string, reason: string, subscriptionName?: string): Promise<void> {
    // The failure and its notification in one transaction: neither without the other.
    await this.prisma.$transaction(async (tx) => {
      const job = await tx.analysisJob.update({
        where: { id },
        data: {
          status: 'failed',
          success: false,
          completedAt: this.now(),
          analysisRunId: 0,
          subscriptionName: subscriptionName ?? 'Unknown',
          message,
          errorDetails: reason,
        },
      });
      await enqueueEvents(tx, [analysisFailedEvent({ id, subscriptionId: job.subscriptionId, message })]);
    });
  }

  /** After a failed attempt that the queue will retry: back to pending, with why. */
  async retryLater(id: string, message: string, reason: string): Promise<void> {
    await this.prisma.analysisJob.updateMany({
      where: { id, status: 'running' },
      data: { status: 'pending', phase: 'waiting for retry', message, errorDetails: reason },
    });
  }

  /** A job waiting at the gate on a live host: keeps it from looking abandoned. */
  async touch(id: string): Promise<void> {
    await this.prisma.analysisJob.updateMany({
      where: { id, status: 'pending' },
      data: { heartbeatAt: this.now() },
    });
  }

  /**
   * The outbox: takes the right to send the job's queue message, if the job is still pending and its
   * last send is still `since` (null: never sent). Exactly one caller wins and must send; the returned
   * time identifies this send for `unsend`.
   */
  async takeSend(id: string, since: Date | null): Promise<Date | undefined> {
    const at = this.now();
    const r = await this.prisma.analysisJob.updateMany({
      where: { id, status: 'pending', messageSentAt: since },
      data: { messageSentAt: at, messageSends: { increment: 1 } },
    });
    return r.count === 1 ? at : undefined;
  }

  /** The send failed: the job is back in the outbox for the next sweep. */
  async unsend(id: string, at: Date): Promise<void> {
    await this.prisma.analysisJob.updateMany({
      where: { id, messageSentAt: at },
      data: { messageSentAt: null },
    });
  }

  /** Queued jobs whose message is still to be sent (a crash or a failed send after the row). */
  unsent(): Promise<AnalysisJob[]> {
    return this.prisma.analysisJob.findMany({
      where: { status: 'pending', source: { not: 'sync' }, messageSentAt: null },
      orderBy: { createdAt: 'asc' },
    });
  }

  /**
   * Queued jobs sent more than staleMs ago that no host has touched for as long: their message is in
   * the queue still (a backlog) or lost; the sweeper tells which by the queue's length.
   */
  silentQueued(now = this.now().getTime()): Promise<AnalysisJob[]> {
    const before = new Date(now - this.staleMs);
    return this.prisma.analysisJob.findMany({
      where: {
        status: 'pending',
        source: { not: 'sync' },
        messageSentAt: { lt: before },
        OR: [{ heartbeatAt: null }, { heartbeatAt: { lt: before } }],
      },
      orderBy: { messageSentAt: 'asc' },
    });
  }

  /** Running jobs whose heartbeat stopped, and sync jobs whose host stopped while they waited. */
  abandoned(now = this.now().getTime()): Promise<AnalysisJob[]> {
    const before = new Date(now - this.staleMs);
    return this.prisma.analysisJob.findMany({
      where: {
        OR: [
          { status: 'running', OR: [{ heartbeatAt: null }, { heartbeatAt: { lt: before } }] },
          {
            status: 'pending',
            source: 'sync',
            createdAt: { lt: before },
            OR: [{ heartbeatAt: null }, { heartbeatAt: { lt: before } }],
          },
        ],
      },
    });
  }

  /**
   * An abandoned job back to pending with a new message to send (the outbox), unless a host touched
   * it since it was read. False when another sweeper or its own host got there first.
   */
  async restart(job: AnalysisJob, message: string, reason: string): Promise<boolean> {
    const r = await this.prisma.analysisJob.updateMany({
      where: { id: job.id, status: job.status, heartbeatAt: job.heartbeatAt },
      data: {
        status: 'pending',
        phase: 'waiting for restart',
        message,
        errorDetails: reason,
        messageSentAt: null,
      },
    });
    return r.count === 1;
  }

  /** Fails a job as read, unless it changed since (a host touched it, another sweeper took it). */
  async failUnchanged(job: AnalysisJob, message: string, reason: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const r = await tx.analysisJob.updateMany({
        where: {
          id: job.id,
          status: job.status,
          heartbeatAt: job.heartbeatAt,
          messageSentAt: job.messageSentAt,
        },
        data: {
          status: 'failed',
          success: false,
          completedAt: this.now(),
          analysisRunId: 0,
          subscriptionName: job.subscriptionName ?? 'Unknown',
          message,
          errorDetails: reason,
        },
      });
      if (r.count !== 1) return false;
      await enqueueEvents(tx, [
        analysisFailedEvent({ id: job.id, subscriptionId: job.subscriptionId, message }),
      ]);
      return true;
    });
  }
}
