import type { InvocationContext, Timer } from '@azure/functions';
import type { CoreServices } from '../app/services.js';
import { AnalysisEngine, type EngineOptions } from './engine/engine.js';
import { type ExportScanResult, scanExportContainer } from './imports/exports.js';
import { ImportJobs, isImportMessage } from './imports/import-jobs.js';
import { ImportSpool } from './imports/spool.js';
import { type KubernetesUsageSource, NO_USAGE } from './kubernetes/usage-source.js';

/** The FinOps service's background side: the queue trigger and the weekly timer. */
export interface FinopsModule {
  /** Runs one queued analysis or import job (queue trigger, batch size 1). Throws to have it retried. */
  handleQueueMessage(message: unknown, context: InvocationContext): Promise<void>;
  /** Enqueues one job per configured (and onboarded) subscription (weekly timer). */
  handleWeeklyTimer(timer: Timer, context: InvocationContext): Promise<void>;
  /** Queues an import of each new export run in CostExports__ContainerUrl (export timer). */
  handleExportTimer(timer: Timer, context: InvocationContext): Promise<ExportScanResult>;
  /** The analysis engine: jobs, the gate, start routes, cleanup, settings. */
  engine: AnalysisEngine;
  /** Cost imports run as jobs (large bodies, blobs, export runs). */
  imports: ImportJobs;
  /**
   * The agent's side of the Kubernetes cost allocation (node-hours, container-hours, usage
   * samples): the metrics store's (set when the services are created); none on its own.
   */
  kubernetesUsage: KubernetesUsageSource;
  close(): Promise<void>;
}

export async function createFinopsModule(
  core: CoreServices,
  options: EngineOptions = {},
): Promise<FinopsModule> {
  // The usage source is read when an analysis runs, so one set later (the metrics store) is seen.
  const usage: { source: KubernetesUsageSource } = { source: NO_USAGE };
  const engine = new AnalysisEngine(core, { kubernetesUsage: () => usage.source, ...options });
  // Import jobs spool to the app's own storage account, the one the queue is in.
  const { platform } = core.config;
  const spool = await ImportSpool.open({
    connectionString: platform.AzureWebJobsStorage,
    blobServiceUri: platform.AzureWebJobsStorage__blobServiceUri,
    accountName: platform.AzureWebJobsStorage__accountName,
  });
  const imports = new ImportJobs(core, engine.jobs, spool);
  engine.start();
  return {
    engine,
    imports,
    get kubernetesUsage() {
      return usage.source;
    },
    set kubernetesUsage(source: KubernetesUsageSource) {
      usage.source = source;
    },
    handleQueueMessage: (message, context) =>
      isImportMessage(message)
        ? imports.handleMessage(message, context)
        : engine.handleQueueMessage(message, context),
    async handleWeeklyTimer(timer, context) {
      core.log.info(
        { invocationId: context.invocationId, isPastDue: timer.isPastDue },
        'weekly analysis timer',
      );
      await engine.enqueueWeekly();
    },
    handleExportTimer: () => scanExportContainer(core, (job) => imports.send(job)),
    async close() {
      imports.close();
      await engine.close();
    },
  };
}
