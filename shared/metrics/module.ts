import type { CoreServices } from '../app/services.js';
import { coalescingWriter } from './coalesce.js';
import { IngestKeys } from './ingest-keys.js';
import type { HousekeepingResult, MetricsStore, WriteBatch, WriteResult } from './store/contract.js';
import { PostgresMetricsStore } from './store/postgres/store.js';

/** Called after a batch is stored (not for a duplicate): node status alerts and the like hook in here. */
export type IngestListener = (batch: WriteBatch) => Promise<void>;

/** The metrics service's parts: the store, ingest keys, and what runs after an ingest. */
export interface MetricsModule {
  store: MetricsStore;
  keys: IngestKeys;
  /** Writes a batch and then tells the listeners; a listener's failure is logged, never the post's. */
  ingest(batch: WriteBatch): Promise<WriteResult>;
  onIngest(listener: IngestListener): void;
  /** Partitions ahead, retention (the housekeeping timer). */
  housekeeping(): Promise<HousekeepingResult>;
  close(): Promise<void>;
}

export function createMetricsModule(core: CoreServices, store?: MetricsStore): MetricsModule {
  const settings = core.config.metrics;
  const metricsStore = store ?? new PostgresMetricsStore(core.prisma, settings, { pool: core.db.pool });
  const listeners: IngestListener[] = [];
  const writeOne = coalescingWriter((batch) => metricsStore.write(batch));
  if (settings.Metrics__AllowAnonymousIngest && !core.config.isDevelopment) {
    core.log.warn(
      'Metrics__AllowAnonymousIngest is true: anyone who can reach /metrics/api can write metrics for any cluster. Create ingest keys (POST /metrics/api/IngestKeys) and turn it off.',
    );
  }
  return {
    store: metricsStore,
    keys: new IngestKeys(core.prisma),
    async ingest(batch) {
      // One-object posts are written together with the others arriving at the same time.
      const result =
        batch.batchId === undefined && batch.records.length === 1
          ? await writeOne(batch)
          : await metricsStore.write(batch);
      if (!result.duplicate) {
        for (const listener of listeners) {
          await listener(batch).catch((err) =>
            core.log.error({ err, clusterName: batch.clusterName }, 'metrics ingest listener failed'),
          );
        }
      }
      return result;
    },
    onIngest(listener) {
      listeners.push(listener);
    },
    async housekeeping() {
      const result = await metricsStore.housekeeping();
      if (result.created.length || result.dropped.length || result.packed?.length)
        core.log.info(result, 'metrics partitions');
      return result;
    },
    close: () => metricsStore.close(),
  };
}
