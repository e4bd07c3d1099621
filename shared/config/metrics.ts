import { z } from 'zod';
import { bool, int } from './fields.js';

/** Settings of the metrics service (/metrics/api): ingest and storage. */
export const metricsSettingsSchema = z.object({
  /**
   * Accept ingest posts without an ingest key (the original agent sends none). Off by default:
   * with it on, anyone who reaches the app can write metrics for any cluster.
   */
  Metrics__AllowAnonymousIngest: bool(false),
  /** Largest decompressed JSON body of POST ingest/batch, in bytes (8 MiB). */
  Metrics__MaxBatchBytes: int(8 * 1024 * 1024, 64 * 1024, 256 * 1024 * 1024),
  /** Days raw samples (pods, nodes, PVCs) are kept: whole day partitions are dropped after this. */
  Metrics__RetentionRawDays: int(14, 1, 3660),
  /** Days the 5-minute rollups are kept. */
  Metrics__Retention5mDays: int(90, 1, 3660),
  /** Days the hourly rollups are kept. */
  Metrics__RetentionHourlyDays: int(400, 1, 3660),
  /** Days pod logs and events are kept after they were last updated. */
  Metrics__RetentionLogsDays: int(14, 1, 3660),
  /** Most rows a pod, node or PVC list answers; a longer answer is cut and says so in X-Truncated. */
  Metrics__MaxRows: int(50_000, 100, 1_000_000),
});

export type MetricsSettings = z.infer<typeof metricsSettingsSchema>;
