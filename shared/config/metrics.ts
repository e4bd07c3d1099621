import { z } from 'zod';
import { bool, int } from './fields.js';
import { clickHouseSettingsShape } from './metrics-clickhouse.js';

const AZURE_PRICES = 'https://prices.azure.com';

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
  /**
   * Most points a pod, node or PVC list answers per series (a container, node or PVC): longer
   * windows answer averages over wider steps (X-Resolution). The web client draws each series as a
   * line over the window; 100 points (a day in 15-minute steps) fill its charts, and a list's size
   * and cost grow with them.
   */
  Metrics__MaxPointsPerSeries: int(100, 10, 10_000),
  /**
   * Seconds a pod, node or PVC list answer is sent again to whoever asks the same question
   * (dashboards poll); past that, for as long again, it is still sent while one rebuild runs. So an
   * answer misses at most the samples of the last twice this many seconds. 0: every answer is built.
   */
  Metrics__ReadCacheSeconds: int(15, 0, 300),
  /** Memory (MiB) one instance may spend keeping those answers (compressed); 0 keeps none. */
  Metrics__ReadCacheMiB: int(16, 0, 4096),
  /**
   * Minutes without a node record after which a cluster (all of it) or one node of a cluster that
   * still reports raises a silence alert; 0 turns silence alerts off.
   */
  Metrics__SilenceAfterMinutes: int(5, 0, 7 * 1440),
  /** Days node status and silence alerts are kept (the original kept them forever). */
  Metrics__RetentionAlertsDays: int(400, 1, 3660),
  /**
   * Base URL of the Azure Retail Prices API (`/api/retail/prices` is appended): the local Azure
   * simulator under `npm start`; `off` turns price lookups off (no cluster prices are written).
   */
  Metrics__AzurePricesBaseUrl: z.preprocess(
    (v) => {
      const s = typeof v === 'string' ? v.trim() : '';
      if (!s) return AZURE_PRICES;
      return s.toLowerCase() === 'off' ? '' : s;
    },
    z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be an http(s) URL or off' })]),
  ) as z.ZodType<string>,
  /** Minutes an Azure Retail Prices answer is kept (shared by every instance) before it is asked again. */
  Metrics__AzurePricesCacheMinutes: int(1440, 1, 7 * 1440),
  /** POST /metrics/api/azure-prices requests per client address a minute (it is anonymous). */
  Metrics__AzurePricesPerClientPerMinute: int(30, 1, 10_000),
  ...clickHouseSettingsShape,
});

export type MetricsSettings = z.infer<typeof metricsSettingsSchema>;
