import { loadConfig } from '../../shared/config/index.js';
import { PostgresMetricsStore } from '../../shared/metrics/store/postgres/store.js';
import { openMigratedDatabase, TEST_DATABASES } from '../support/databases.js';
import { storeContractSuite } from './store-suite.js';

const settings = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics;

for (const [label, kind] of TEST_DATABASES) {
  storeContractSuite(`PostgreSQL store on ${label}`, async () => {
    const db = await openMigratedDatabase(kind);
    // On a PostgreSQL server the store uses the database's pg pool, as the app does.
    const store = new PostgresMetricsStore(db.prisma, settings, { pool: db.pool });
    return {
      store,
      async close() {
        await store.close();
        await db.close();
      },
    };
  });
}
