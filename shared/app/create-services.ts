import { readFileSync } from 'node:fs';
import { createAuthModule } from '../auth/module.js';
import type { AppConfig } from '../config/index.js';
import { openDatabase, pgliteDataDir } from '../db/client.js';
import { databaseTimeouts } from '../db/timeouts.js';
import { ClickHouseUsageSource } from '../finops/kubernetes/clickhouse-usage.js';
import { MetricsStoreUsageSource } from '../finops/kubernetes/metrics-usage.js';
import { createFinopsModule } from '../finops/module.js';
import { createMetricsAlerting } from '../metrics/alerts/module.js';
import { createMetricsModule } from '../metrics/module.js';
import { ClickHouseMetricsStore } from '../metrics/store/clickhouse/store.js';
import { openClickHouseStoreIfConfigured } from '../metrics/store/open-store.js';
import { routeAzureSdkLogs } from '../observability/azure-sdk-logs.js';
import { createErrorReporter } from '../observability/errors.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createJobQueue } from '../queue/analysis-queue.js';
import type { AppServices, CoreServices } from './services.js';

export interface CreateServicesOptions {
  log?: Logger;
  /** Skip applying migrations (a second host on an already migrated database). */
  skipMigrations?: boolean;
  /** PGlite only: the data directory tarball the database starts as (see DatabaseOptions). */
  initialDataDir?: Blob;
  /**
   * The clock (milliseconds) the user lookup cache expires by: a test moves it to step over the
   * cache window instead of waiting it out. Default: the process's monotonic clock.
   */
  cacheClock?: () => number;
}

/** Opens the database (migrating it), the queue and the service modules. */
export async function createServices(
  config: AppConfig,
  options: CreateServicesOptions = {},
): Promise<AppServices> {
  const log = options.log ?? createLogger(config.platform.Logging__LogLevel__Default);
  routeAzureSdkLogs(
    config.auth['Logging__LogLevel__Vendor.IdentityModel.LoggingExtensions.IdentityLoggerAdapter'],
    log,
  );
  const errors = createErrorReporter(config.platform);
  const db = await openDatabase({
    connectionString: config.platform.ConnectionStrings__SqlConnectionString,
    dataDir: pgliteDataDir(config.platform.DATA_DIR),
    log: (m) => log.trace({ schemaEngine: m }),
    timeouts: databaseTimeouts(config.platform),
    initialDataDir: options.initialDataDir,
  });
  if (!options.skipMigrations) {
    const result = await db.migrate();
    if (result.applied.length) log.info({ applied: result.applied }, 'database migrations applied');
  }
  const queue = await createJobQueue(
    {
      connectionString: config.platform.AzureWebJobsStorage,
      queueServiceUri: config.platform.AzureWebJobsStorage__queueServiceUri,
      accountName: config.platform.AzureWebJobsStorage__accountName,
    },
    config.platform.AnalysisQueue__Name,
  );
  const core: CoreServices = { config, db, prisma: db.prisma, log, errors, queue };
  const auth = await createAuthModule(core, { cacheClock: options.cacheClock });
  const finops = await createFinopsModule(core);
  const metrics = createMetricsModule(core, await openClickHouseStoreIfConfigured(config.metrics, log));
  const metricsAlerts = createMetricsAlerting({
    prisma: db.prisma,
    log,
    settings: {
      silenceAfterMinutes: config.metrics.Metrics__SilenceAfterMinutes,
      alertRetentionDays: config.metrics.Metrics__RetentionAlertsDays,
      pricesBaseUrl: config.metrics.Metrics__AzurePricesBaseUrl,
      pricesCacheMinutes: config.metrics.Metrics__AzurePricesCacheMinutes,
      // The simulator's certificate under npm start, as for the other Azure endpoints.
      pricesCa: config.finops.Cloud__CaFile ? readFileSync(config.finops.Cloud__CaFile, 'utf8') : undefined,
    },
  });
  // Node records of every stored ingest (one-object posts and batches) go through the alert rules.
  // A failed pass changes no state (one transaction), so the node's next record raises the alert.
  metrics.onIngest(async (batch) => {
    const nodes = batch.records.flatMap((r) => (r.kind === 'node' ? [r] : []));
    if (nodes.length) await metricsAlerts.onNodeRecords(batch.clusterName, nodes);
  });
  // The Kubernetes cost reads the agent's side from the metrics store's hourly rollups.
  finops.kubernetesUsage =
    metrics.store instanceof ClickHouseMetricsStore
      ? new ClickHouseUsageSource(metrics.store)
      : new MetricsStoreUsageSource(core.prisma);
  return {
    ...core,
    auth,
    finops,
    metrics,
    metricsAlerts,
    async close() {
      await metricsAlerts.close();
      await metrics.close();
      await finops.close();
      await auth.close();
      await errors.flush();
      await db.close();
    },
  };
}
