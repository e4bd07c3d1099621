import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../shared/config/index.js';
import { ClickHouseMetricsStore } from '../../shared/metrics/store/clickhouse/store.js';
import { type ChdbHttpBridge, startChdbHttpBridge } from '../support/chdb-http-bridge.js';
import { storeContractSuite } from './store-suite.js';

// The contract suite every engine runs, on ClickHouse: chDB behind the HTTP bridge, through the
// official client, with the retention defaults of the configuration.
const settings = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics;
let bridge: ChdbHttpBridge;
beforeAll(async () => {
  bridge = await startChdbHttpBridge();
});
afterAll(async () => {
  await bridge?.close();
});

storeContractSuite('ClickHouse store on chDB', async () => {
  const store = await ClickHouseMetricsStore.open({
    url: bridge.url,
    database: `contract_${randomUUID().replaceAll('-', '').slice(0, 12)}`,
    retention: {
      rawDays: settings.Metrics__RetentionRawDays,
      fiveMinuteDays: settings.Metrics__Retention5mDays,
      hourlyDays: settings.Metrics__RetentionHourlyDays,
      logsDays: settings.Metrics__RetentionLogsDays,
    },
  });
  return { store, close: () => store.close() };
});
