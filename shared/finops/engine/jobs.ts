/**
 * Analysis jobs as database rows (they survive restarts and are shared by every instance), and their
 * wire form: the original's job DTO plus phase, progress and startedAt.
 */
import type { AnalysisJob, PrismaClient } from '../../db/generated/client.js';
import { analysisFailedEvent, enqueueEvents } from '../../notify/events.js';
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

export interface JobResult {
  subscriptionName: string;
  analysisRunId: number;
  totalMonthlyCost: number;
  resourcesAnalyzed: number;
  message: string;
}

export class JobStore {
  constructor(
    private readonly prisma: PrismaClient,
    /** A running job whose heartbeat is older than this is abandoned (its host stopped). */
    readonly staleMs: number,
  ) {}

  create(subscriptionId: string, monthSelection: MonthSelection, source: JobSource): Promise<AnalysisJob> {
    return this.prisma.analysisJob.create({
      data: { subscriptionId, monthSelection, source, status: 'pending' },
    });
  }

  get(id: string): Promise<AnalysisJob | null> {
    return this.prisma.analysisJob.findUnique({ where: { id } });
  }

  isStale(job: AnalysisJob, now = Date.now()): boolean {
    const beat = job.heartbeatAt ?? job.startedAt;
    return !beat || now - beat.getTime() > this.staleMs;
  }

  /**
   * Takes the job for this host: pending → running, or running with a stale heartbeat → running
   * again (a restart). Atomic, so two hosts given the same message never both run it.
   */
  async claim(job: AnalysisJob): Promise<boolean> {
    const now = new Date();
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
        heartbeatAt: new Date(),
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
        completedAt: new Date(),
        heartbeatAt: new Date(),
        subscriptionName: r.subscriptionName,
        analysisRunId: r.analysisRunId,
        totalMonthlyCost: r.totalMonthlyCost,
        resourcesAnalyzed: r.resourcesAnalyzed,
        message: r.message,
        errorDetails: null,
      },
    });
  }

  async fail(id: string, message: string, reason: string, subscriptionName?: string): Promise<void> {
    // The failure and its notification in one transaction (issue 13): neither without the other.
    await this.prisma.$transaction(async (tx) => {
      const job = await tx.analysisJob.update({
        where: { id },
        data: {
          status: 'failed',
          success: false,
          completedAt: new Date(),
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

  /**
   * Jobs whose host stopped: a sync job (no queue message to redeliver it) whose heartbeat is stale
   * becomes failed; a queued job is left to its message's redelivery unless it has been silent for
   * `abandonMs` (its message is gone), then it becomes failed too.
   */
  async sweep(abandonMs: number): Promise<number> {
    const now = Date.now();
    const failed = {
      status: 'failed',
      success: false,
      completedAt: new Date(),
      analysisRunId: 0,
      message: 'Error: the host running this analysis stopped before it finished.',
      errorDetails: 'Host stopped (heartbeat lost).',
    };
    const a = await this.prisma.analysisJob.updateMany({
      where: { status: 'running', source: 'sync', heartbeatAt: { lt: new Date(now - this.staleMs) } },
      data: failed,
    });
    const b = await this.prisma.analysisJob.updateMany({
      where: { status: 'running', heartbeatAt: { lt: new Date(now - abandonMs) } },
      data: failed,
    });
    return a.count + b.count;
  }
}
