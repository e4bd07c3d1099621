import { startAzurite } from '../dev/azurite.js';
import { type LocalHost, startLocalHost } from '../dev/host.js';
import { loadConfig, type Settings } from '../shared/config/index.js';
import { createLogger } from '../shared/observability/logger.js';

/**
 * A silent local host for a benchmark: Development, in-memory PGlite, its own Azurite, no queue
 * worker and no timer. close() stops both.
 */
export async function startBenchHost(settings: Settings = {}): Promise<LocalHost> {
  const azurite = await startAzurite();
  const config = loadConfig({
    WEBAPP_ENVIRONMENT: 'Development',
    DATA_DIR: 'memory://',
    AzureWebJobsStorage: azurite.connectionString,
    WeeklyAnalysis__Enabled: 'false',
    ...settings,
  });
  const host = await startLocalHost({
    config,
    queueWorker: false,
    servicesOptions: { log: createLogger('None') },
  });
  return {
    ...host,
    async close() {
      await host.close();
      await azurite.stop();
    },
  };
}
