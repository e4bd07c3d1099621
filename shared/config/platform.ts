import { z } from 'zod';
import { databaseSettingsShape } from './database.js';
import { bool, int, optionalString, stringWithDefault, url } from './fields.js';
import type { Settings } from './source.js';

/** Settings both services share: environment, storage, queue, CORS, error tracking, logging. */
export const platformSettingsSchema = z.object({
  WEBAPP_ENVIRONMENT: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() ? v.trim() : 'Production'),
    z.enum(['Development', 'Production'], { error: 'must be Development or Production' }),
  ),
  /** postgres:// URL for a PostgreSQL server; unset selects the embedded PGlite under DATA_DIR. */
  ConnectionStrings__SqlConnectionString: optionalString(),
  DATA_DIR: stringWithDefault('./data'),
  PORT: int(7071, 0, 65535),
  /**
   * The local host (`npm start`) keeps this many newest analysis runs per subscription and deletes
   * older ones, at startup and every six hours; 0 keeps every run. Azure deployments are not affected.
   */
  LocalHost__KeepRunsPerSubscription: int(5, 0, 10_000),
  /** Address the local host listens on; loopback unless a container or VM must reach it. */
  HOST: stringWithDefault('127.0.0.1'),
  CORS_ALLOWED_ORIGINS: stringWithDefault('*'),
  /** Storage account of the queue (Azure Functions' own setting); the local host sets Azurite's. */
  AzureWebJobsStorage: optionalString(),
  /**
   * Identity-based storage, as the Functions host reads it in Azure (no keys): the queue and blob
   * endpoints, or the account name they are derived from. Used when AzureWebJobsStorage is unset.
   */
  AzureWebJobsStorage__queueServiceUri: url(),
  AzureWebJobsStorage__blobServiceUri: url(),
  AzureWebJobsStorage__accountName: optionalString(),
  AnalysisQueue__Name: stringWithDefault('analysis-jobs'),
  ErrorTracker__Enabled: bool(false),
  ErrorTracker__Dsn: optionalString(),
  ErrorTracker__Environment: optionalString(),
  ErrorTracker__SendDefaultPii: bool(false),
  Logging__LogLevel__Default: stringWithDefault('Information'),
  RUNTIME_SYSTEM_GLOBALIZATION_INVARIANT: bool(false),
  basePath: optionalString(),
  /**
   * How many heavy requests (unpaged lists streamed from the database) one user may have in flight
   * on one instance; more answer 429 with Retry-After.
   */
  Http__MaxHeavyRequestsPerUser: int(2, 1, 100),
  /** Answers at least this long are compressed when the client accepts br or gzip; 0 compresses all. */
  Http__CompressionMinBytes: int(1024, 0, 10_485_760),
  /**
   * Memory one instance may spend keeping answers it will send again (pages of runs, which never
   * change once written, and compressed copies of answers), in MiB; 0 keeps none.
   */
  Http__KeptAnswersMiB: int(120, 0, 16_384),
  /** Public origin (and path prefix) of the app for absolute Location headers; unset: relative. */
  PUBLIC_BASE_URL: url(),
  ...databaseSettingsShape,
});

export type PlatformSettings = z.infer<typeof platformSettingsSchema>;

const errorTrackerSchema = platformSettingsSchema.pick({
  ErrorTracker__Enabled: true,
  ErrorTracker__Dsn: true,
  ErrorTracker__Environment: true,
  ErrorTracker__SendDefaultPii: true,
  WEBAPP_ENVIRONMENT: true,
});
export type ErrorTrackerSettings = z.infer<typeof errorTrackerSchema>;

/**
 * The error tracker's settings read on their own, each by its field of the schema, so that a
 * startup failing on another setting is still reported (or not) as these say. A value that does
 * not parse takes its default: off, for ErrorTracker__Enabled.
 */
export function errorTrackerSettings(settings: Settings): ErrorTrackerSettings {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(errorTrackerSchema.shape)) {
    const r = field.safeParse(settings[name]);
    out[name] = r.success ? r.data : field.parse(undefined);
  }
  return out as ErrorTrackerSettings;
}
