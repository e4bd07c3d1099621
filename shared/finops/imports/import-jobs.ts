/**
 * Cost imports as queued jobs: the same job rows, queue, job routes and crash recovery as analyses
 * (source `import`), for bodies over the synchronous bound, blob imports and export runs found by
 * the schedule. The input is spooled to the app's storage before the job exists (ImportSpool), so
 * whichever instance takes the message can read it. Imports do not wait at the analysis gate: they
 * make no Azure cost query, so there is no quota to pace; the queue's batch size still runs one job
 * at a time per instance.
 */
import { randomUUID } from 'node:crypto';
import type { InvocationContext } from '@azure/functions';
import type { CoreServices } from '../../app/services.js';
import type { AnalysisJob, Prisma } from '../../db/generated/client.js';
import { AnalysisAborted, JobBusyElsewhere, shortReason } from '../engine/errors.js';
import { sendJobMessage } from '../engine/job-sweeper.js';
import type { JobStore } from '../engine/jobs.js';
import { MAX_DEQUEUE_COUNT, messageObject } from '../engine/queue-message.js';
import { blobFiles, withoutQuery } from './blob.js';
import { ImportError } from './columns.js';
import { runExportJob } from './exports.js';
import { ExportAccumulator, finishExport, readExport } from './parse.js';
import { counted, type ImportProgress, readFiles } from './progress.js';
import type { ImportSpool, SpooledRequest } from './spool.js';
import { type ImportSummary, importDeps, storeImport } from './store.js';

/** AnalysisJobs.source of an import job; its queue messages carry it too. */
export const IMPORT_SOURCE = 'import';

/** True for a queue message of an import job (the analysis engine takes the others). */
export function isImportMessage(message: unknown): boolean {
  return messageObject(message)?.source === IMPORT_SOURCE;
}

export class SpoolUnavailable extends Error {
  constructor() {
    super(
      'Imports over the synchronous size need blob storage: AzureWebJobsStorage has no blob service configured.',
    );
  }
}

export class ImportJobs {
  private readonly abort = new AbortController();
  private readonly heartbeatMs: number;

  constructor(
    private readonly core: CoreServices,
    private readonly jobs: JobStore,
    private readonly spool: ImportSpool | undefined,
  ) {
    this.heartbeatMs = core.config.finops.AnalysisJobs__HeartbeatSeconds * 1000;
  }

  private spoolOrThrow(): ImportSpool {
    if (!this.spool) throw new SpoolUnavailable();
    return this.spool;
  }

  /**
   * The job of an uploaded body: body and request spooled first, then the row (its outbox entry),
   * then the message. The answer (202) follows only once the body is committed to storage.
   */
  async acceptBody(
    subscriptionId: string,
    body: Parameters<ImportSpool['writeBody']>[1],
    request: Omit<Extract<SpooledRequest, { kind: 'body' }>, 'kind' | 'subscriptionId'>,
  ): Promise<AnalysisJob> {
    const spool = this.spoolOrThrow();
    const id = randomUUID();
    await spool.writeBody(id, body);
    await spool.writeRequest(id, { kind: 'body', subscriptionId, ...request });
    return this.createOrUnspool(spool, id, subscriptionId);
  }

  /** The job of a blob import: its URL (a SAS, if any, stays in the spool) and prefix. */
  async acceptBlob(request: Extract<SpooledRequest, { kind: 'blob' }>): Promise<AnalysisJob> {
    const spool = this.spoolOrThrow();
    const id = randomUUID();
    await spool.writeRequest(id, request);
    return this.createOrUnspool(spool, id, request.subscriptionId);
  }

  /** No row, no job: what was spooled for it goes again (the caller gets a 503 and may retry). */
  private async createOrUnspool(
    spool: ImportSpool,
    id: string,
    subscriptionId: string,
  ): Promise<AnalysisJob> {
    try {
      return await this.createAndSend(id, subscriptionId);
    } catch (err) {
      await spool.remove(id).catch(() => undefined);
      throw err;
    }
  }

  /** Creates the pending row of a job whose input is already in place, and sends its message. */
  async createAndSend(id: string, subscriptionId: string): Promise<AnalysisJob> {
    const job = await this.core.prisma.analysisJob.create({
      data: { id, subscriptionId, source: IMPORT_SOURCE, status: 'pending' },
    });
    await this.send(job);
    return job;
  }

  send(job: AnalysisJob): Promise<boolean> {
    return sendJobMessage({ jobs: this.jobs, queue: this.core.queue, log: this.core.log }, job);
  }

  /** The queue trigger for an import job's message. Throws to have the queue retry it. */
  async handleMessage(message: unknown, context: InvocationContext): Promise<void> {
    let m = message;
    if (typeof m === 'string') m = JSON.parse(m);
    const jobId = String((m as Record<string, unknown>).jobId ?? '');
    const dequeueCount = Number(context.triggerMetadata?.dequeueCount ?? 1) || 1;
    const job = jobId ? await this.jobs.get(jobId) : null;
    if (!job) {
      this.core.log.warn({ jobId }, 'import job no longer exists; message dropped');
      return;
    }
    await this.run(job, dequeueCount);
  }

  private async run(job: AnalysisJob, dequeueCount: number): Promise<void> {
    if (job.status === 'completed' || job.status === 'failed') return;
    const last = dequeueCount >= MAX_DEQUEUE_COUNT;
    if (!(await this.jobs.claim(job))) {
      // Running with a fresh heartbeat on another instance: not ours. Retry later, never poison it.
      if (last) return;
      throw new JobBusyElsewhere(job.id);
    }
    const signal = this.abort.signal;
    const beat = setInterval(() => {
      if (!signal.aborted) void this.jobs.beat(job.id).catch(() => undefined);
    }, this.heartbeatMs);
    beat.unref();
    let lastWrite = 0;
    let lastPhase = '';
    const progress: ImportProgress = async (phase, fraction) => {
      if (signal.aborted) throw new AnalysisAborted();
      const now = Date.now();
      if (phase === lastPhase && now - lastWrite < 1000) return;
      lastPhase = phase;
      lastWrite = now;
      // Reading is most of the work: 5–80 %; saving and anomaly detection the rest.
      const pct = phase === 'reading' ? 5 + 75 * Math.min(1, fraction ?? 0) : phase === 'saving' ? 85 : 2;
      await this.jobs.beat(job.id, phase, pct);
    };
    try {
      const summaries = await this.execute(job, progress);
      await this.complete(job.id, summaries);
      await this.spool?.remove(job.id).catch(() => undefined);
    } catch (err) {
      if (signal.aborted || err instanceof AnalysisAborted) throw new AnalysisAborted();
      const permanent = err instanceof ImportError || err instanceof SpoolUnavailable;
      const reason = shortReason(err, 1000);
      this.core.log.warn({ jobId: job.id, reason, permanent, attempt: dequeueCount }, 'cost import failed');
      if (permanent || last) {
        await this.jobs.fail(
          job.id,
          `Error: ${reason}`,
          permanent ? reason : `${reason} (gave up after ${dequeueCount} attempts)`,
          'Cost import',
        );
        await this.spool?.remove(job.id).catch(() => undefined);
        if (permanent) return;
        throw err;
      }
      await this.jobs.retryLater(job.id, `Attempt ${dequeueCount} failed; retrying.`, reason);
      throw err;
    } finally {
      clearInterval(beat);
    }
  }

  /** Reads and stores what the job names; the summaries of the runs it stored. */
  private async execute(job: AnalysisJob, progress: ImportProgress): Promise<ImportSummary[]> {
    const exportRun = await this.core.prisma.costExportRun.findFirst({ where: { jobId: job.id } });
    if (exportRun) return runExportJob(this.core, exportRun.manifest, progress);
    const request = await this.spoolOrThrow().readRequest(job.id);
    if (!request) throw new ImportError(422, 'The spooled import is gone; send the export again.');
    const metric = request.metric;
    const acc = new ExportAccumulator(request.subscriptionId, metric);
    await progress('reading', 0);
    let location: string | undefined;
    if (request.kind === 'body') {
      const { size, stream } = await this.spoolOrThrow().openBody(job.id);
      let read = 0;
      await readExport(
        acc,
        counted(stream as AsyncIterable<Buffer>, (n) => {
          read += n;
          return progress('reading', size ? read / size : 0);
        }),
      );
    } else {
      await readFiles(acc, await blobFiles(request.url, request.prefix), progress);
      location = `${withoutQuery(request.url)}${request.prefix !== undefined ? `/${request.prefix}` : ''}`;
    }
    const parsed = finishExport(acc);
    await progress('saving');
    const summary = await storeImport(importDeps(this.core), request.subscriptionId, parsed, {
      source: request.kind === 'body' ? 'http' : 'blob',
      metric,
      ...(location ? { location } : {}),
      ...(request.createdBy ? { createdBy: request.createdBy } : {}),
    });
    return [request.kind === 'blob' ? { ...summary, files: acc.files } : summary];
  }

  private async complete(id: string, summaries: ImportSummary[]): Promise<void> {
    const runs = await this.core.prisma.analysisRun.findMany({
      where: { id: { in: summaries.map((s) => s.analysisRunId) } },
      select: { id: true, subscriptionName: true, totalMonthlyCost: true },
    });
    const first = summaries[0];
    const run = runs.find((r) => r.id === first?.analysisRunId);
    const rows = summaries.reduce((n, s) => n + s.rows, 0);
    const anomalies = summaries.reduce((n, s) => n + s.newAnomalies, 0);
    const span = first ? ` (${first.from} to ${first.to})` : '';
    await this.jobs.complete(id, {
      subscriptionName: summaries.length === 1 ? (run?.subscriptionName ?? null) : 'Cost import',
      analysisRunId: first?.analysisRunId ?? 0,
      totalMonthlyCost: summaries.length === 1 && run ? Number(run.totalMonthlyCost) : null,
      resourcesAnalyzed: 0,
      message: `Imported ${rows} rows${span} into ${summaries.length} run(s); ${anomalies} new anomalies.`,
      result: (summaries.length === 1
        ? { import: summaries[0] }
        : { imports: summaries }) as unknown as Prisma.InputJsonObject,
    });
  }

  /** Stops like a crash: a running import is left to the stale-heartbeat recovery. */
  close(): void {
    this.abort.abort();
  }
}
