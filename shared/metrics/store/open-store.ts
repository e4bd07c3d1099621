import type { MetricsSettings } from '../../config/metrics.js';
import type { Logger } from '../../observability/logger.js';
import { ClickHouseMetricsStore } from './clickhouse/store.js';
import type { MetricsStore } from './contract.js';

/** The retention settings, as every engine takes them. */
export function retentionOf(settings: MetricsSettings) {
  return {
    rawDays: settings.Metrics__RetentionRawDays,
    fiveMinuteDays: settings.Metrics__Retention5mDays,
    hourlyDays: settings.Metrics__RetentionHourlyDays,
    logsDays: settings.Metrics__RetentionLogsDays,
  };
}

/**
 * The ClickHouse store when Metrics__ClickHouseUrl is set (schema created or brought up to date
 * first), else undefined: the metrics module then uses the PostgreSQL store. A ClickHouse that
 * cannot be reached or refuses the credentials stops startup with the reason, as the database does.
 */
export async function openClickHouseStoreIfConfigured(
  settings: MetricsSettings,
  log: Logger,
): Promise<MetricsStore | undefined> {
  const url = settings.Metrics__ClickHouseUrl;
  if (!url) return undefined;
  const where = `${new URL(url).host}, database ${settings.Metrics__ClickHouseDatabase}`;
  try {
    const store = await ClickHouseMetricsStore.open({
      url,
      username: settings.Metrics__ClickHouseUser,
      password: settings.Metrics__ClickHousePassword,
      database: settings.Metrics__ClickHouseDatabase,
      retention: retentionOf(settings),
      requestTimeoutMs: settings.Metrics__ClickHouseRequestTimeoutSeconds * 1000,
    });
    log.info({ clickhouse: where }, 'metrics store: ClickHouse');
    return store;
  } catch (err) {
    throw new Error(
      `The metrics store could not open ClickHouse (${where}; Metrics__ClickHouseUrl): ${(err as Error).message}`,
      { cause: err },
    );
  }
}
