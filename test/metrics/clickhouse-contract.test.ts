import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { loadConfig } from '../../shared/config/index.js';
import { ClickHouseMetricsStore } from '../../shared/metrics/store/clickhouse/store.js';
import { retentionOf } from '../../shared/metrics/store/open-store.js';
import { CHDB_AVAILABLE, type ChdbHttpBridge, startChdbHttpBridge } from '../support/chdb-http-bridge.js';
import { storeContractSuite } from './store-suite.js';

// The contract suite every engine runs, on ClickHouse: chDB behind the HTTP bridge, through the
// official client, with the retention defaults of the configuration.
const settings = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics;
let bridge: ChdbHttpBridge;

describe.skipIf(!CHDB_AVAILABLE)('ClickHouse engine', () => {
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
      retention: retentionOf(settings),
    });
    return { store, close: () => store.close() };
  });
});
