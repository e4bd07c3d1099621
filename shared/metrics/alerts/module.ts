/**
 * What the metrics service does with node records besides storing them: node status alerts and
 * silence (decided from state in the database), and cluster prices (written when they change).
 * The ingest path calls `onNodeRecords` with the node records of each request, in both modes.
 */
import type { PrismaClient } from '../../db/client.js';
import type { Logger } from '../../observability/logger.js';
import { type NodePriceRecord, updateNodePrices } from '../prices/node-prices.js';
import { createPriceLookup, type PriceLookup } from '../prices/price-lookup.js';
import { type RetailPricesClient, retailPricesClient } from '../prices/retail-api.js';
import { condition } from './conditions.js';
import { applyNodeRecords } from './node-states.js';
import { deleteExpiredAlerts } from './queries.js';
import type { NewAlert } from './raise.js';
import { checkSilence } from './silence.js';

/** A node record as the ingest path has it: when it was collected and the posted object. */
export interface IngestNodeRecord {
  collectedAt: Date;
  data: {
    nodeName: string;
    isReady?: boolean | null;
    hasMemoryPressure?: boolean | null;
    hasDiskPressure?: boolean | null;
    hasPidPressure?: boolean | null;
    cloudProvider?: string | null;
    region?: string | null;
    instanceType?: string | null;
    operatingSystem?: string | null;
  };
}

export interface MetricsAlertingSettings {
  silenceAfterMinutes: number;
  /** Alerts older than this many days are deleted by the timer's pass. */
  alertRetentionDays: number;
  /** '' turns Azure price lookups off. */
  pricesBaseUrl: string;
  pricesCacheMinutes: number;
  /** An extra CA to trust for pricesBaseUrl (the local simulator's). */
  pricesCa?: string | undefined;
}

export interface MetricsAlerting {
  /**
   * Node status alerts for one request's node records (awaited: they are part of accepting the
   * request), then the price check in the background. Idempotent: the same records applied again
   * (a retried batch) change nothing.
   */
  onNodeRecords(clusterName: string, records: IngestNodeRecord[]): Promise<NewAlert[]>;
  /** Raises and records silence alerts as of `now`, and drops expired alerts; the timer calls it every minute. */
  checkSilence(now?: Date): Promise<NewAlert[]>;
  prices: PriceLookup;
  /** Resolves when the background price updates started so far have finished. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export function createMetricsAlerting(deps: {
  prisma: PrismaClient;
  log: Logger;
  settings: MetricsAlertingSettings;
  /** The server clock (tests move it). */
  now?: () => Date;
  /** Instead of a client for settings.pricesBaseUrl (tests). */
  pricesClient?: RetailPricesClient;
}): MetricsAlerting {
  const now = deps.now ?? (() => new Date());
  const s = deps.settings;
  const client =
    deps.pricesClient ?? (s.pricesBaseUrl ? retailPricesClient(s.pricesBaseUrl, s.pricesCa) : undefined);
  const prices = createPriceLookup({ prisma: deps.prisma, client, cacheMinutes: s.pricesCacheMinutes });
  const background = new Set<Promise<unknown>>();

  return {
    prices,
    async onNodeRecords(clusterName, records) {
      if (!records.length) return [];
      const at = now();
      const alerts = await applyNodeRecords(
        deps.prisma,
        clusterName,
        records.map((r) => ({
          nodeName: r.data.nodeName,
          collectedAt: r.collectedAt,
          isReady: condition(r.data.isReady),
          hasMemoryPressure: condition(r.data.hasMemoryPressure),
          hasDiskPressure: condition(r.data.hasDiskPressure),
          hasPidPressure: condition(r.data.hasPidPressure),
        })),
        at,
      );
      if (alerts.length)
        deps.log.info({ cluster: clusterName, alerts: alerts.length }, 'metrics alerts raised');
      if (client) {
        // Off the request: a lookup may wait on Azure, and a missed one is redone by the next post.
        const priced: NodePriceRecord[] = records.map((r) => ({ ...r.data, collectedAt: r.collectedAt }));
        const work = updateNodePrices(deps.prisma, prices, clusterName, priced, at)
          .catch((err) => deps.log.warn({ err, cluster: clusterName }, 'cluster price update failed'))
          .finally(() => background.delete(work));
        background.add(work);
      }
      return alerts;
    },
    async checkSilence(at = now()) {
      const alerts = await checkSilence(deps.prisma, s.silenceAfterMinutes, at);
      await deleteExpiredAlerts(deps.prisma, new Date(at.getTime() - s.alertRetentionDays * 86_400_000));
      if (alerts.length) deps.log.warn({ alerts: alerts.length }, 'metrics silence alerts raised');
      return alerts;
    },
    async settled() {
      while (background.size) await Promise.allSettled([...background]);
    },
    async close() {
      await this.settled();
      await prices.close();
    },
  };
}
