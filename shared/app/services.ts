import type { AuthModule } from '../auth/module.js';
import type { AppConfig } from '../config/index.js';
import type { Database, PrismaClient } from '../db/client.js';
import type { FinopsModule } from '../finops/module.js';
import type { MetricsModule } from '../metrics/module.js';
import type { ErrorReporter } from '../observability/errors.js';
import type { Logger } from '../observability/logger.js';
import type { JobQueue } from '../queue/analysis-queue.js';

/** What every part of the app is built from: created once per process (per host in tests). */
export interface CoreServices {
  config: AppConfig;
  db: Database;
  prisma: PrismaClient;
  log: Logger;
  errors: ErrorReporter;
  queue: JobQueue;
}

export interface AppServices extends CoreServices {
  auth: AuthModule;
  finops: FinopsModule;
  metrics: MetricsModule;
  close(): Promise<void>;
}
