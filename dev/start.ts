// npm start: the whole platform on this machine with embedded defaults. PGlite under DATA_DIR,
// Azurite for the queue, and the Azure simulator when no Cloud__* credentials are set.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDataDir } from '../shared/app/data-dir.js';
import { ConfigError, loadConfig, readSettings } from '../shared/config/index.js';
import { createLogger } from '../shared/observability/logger.js';
import { startAzuriteStorage } from './azurite.js';
import { ensureConsoleBuilt } from './console-build.js';
import { startLocalHost } from './host.js';
import { keepNewestRuns, RUN_RETENTION_EVERY_MS } from './run-retention.js';

const settings = readSettings();
settings.WEBAPP_ENVIRONMENT ??= 'Development';
const log = createLogger(settings.Logging__LogLevel__Default, { host: 'local' });
const stops: Array<() => Promise<void>> = [];

async function main() {
  // Validate before starting anything, so a bad setting is one clear line.
  let config = loadConfig(settings);
  await ensureConsoleBuilt(log);
  const inMemory = config.platform.DATA_DIR.startsWith('memory://');
  if (!inMemory) checkDataDir(config.platform.DATA_DIR);

  if (!settings.AzureWebJobsStorage) {
    const azurite = await startAzuriteStorage(
      inMemory ? {} : { location: path.join(path.resolve(config.platform.DATA_DIR), 'azurite') },
    );
    stops.push(azurite.stop);
    settings.AzureWebJobsStorage = azurite.connectionString;
    log.info({ port: azurite.port }, 'Azurite (queue and blob) started');
  }

  const hasCloud = settings.Cloud__TenantId && settings.Cloud__ClientId && settings.Cloud__ClientSecret;
  if (!hasCloud && config.finops.AzureSimulator__Enabled) {
    const { startAzureSimulator } = await import('./azure-sim/index.js');
    // The waste catalogue shows every rule firing (and not firing) in the demo data.
    const sim = await startAzureSimulator({ wasteCatalogue: true, aks: true });
    stops.push(() => sim.close());
    settings.Cloud__TenantId = '00000000-0000-0000-0000-000000000001';
    settings.Cloud__ClientId = 'finwatch-local';
    settings.Cloud__ClientSecret = 'simulator';
    settings.Cloud__ArmEndpoint = sim.url;
    settings.Cloud__AuthorityHost = sim.url;
    // The simulator speaks HTTPS (MSAL insists) with a self-signed certificate for loopback.
    settings.Cloud__CaFile = fileURLToPath(new URL('./azure-sim/tls/sim-cert.pem', import.meta.url));
    // Cluster prices from the simulator's Retail Prices API too, unless a base URL is set.
    settings.Metrics__AzurePricesBaseUrl ||= sim.url;
    settings.Cloud__SubscriptionIds ||=
      '11111111-1111-4111-8111-111111111111,22222222-2222-4222-8222-222222222222';
    log.warn(
      { simulator: sim.url },
      'No Azure credentials (Cloud__TenantId/ClientId/ClientSecret) are set: analyses run against the local Azure simulator with synthetic data',
    );
  }
  config = loadConfig(settings);

  const host = await startLocalHost({
    config,
    port: config.platform.PORT,
    host: config.platform.HOST,
    servicesOptions: { log },
  });
  stops.unshift(host.close);
  const keep = config.platform.LocalHost__KeepRunsPerSubscription;
  const retain = async () => {
    try {
      const deleted = await keepNewestRuns(host.services.prisma, keep);
      if (deleted)
        log.info(
          { deleted, keepPerSubscription: keep },
          'old analysis runs deleted (LocalHost__KeepRunsPerSubscription)',
        );
      // Deleting runs changes the tables' sizes: PGlite's planner needs fresh statistics (no autovacuum).
      if (deleted) await host.services.db.analyze();
    } catch (e) {
      log.warn({ err: e }, 'run retention failed; retried later');
    }
  };
  if (keep > 0) {
    void retain();
    const timer = setInterval(() => void retain(), RUN_RETENTION_EVERY_MS);
    timer.unref();
    stops.unshift(async () => clearInterval(timer));
  }
  log.info(
    {
      url: host.url,
      database: host.services.db.kind,
      environment: config.platform.WEBAPP_ENVIRONMENT,
    },
    `finwatch is listening: the console at ${host.url}/console, the APIs at ${host.url}/auth/api and ${host.url}/finops/api`,
  );
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down: finishing in-flight requests');
  for (const stop of stops) {
    try {
      await stop();
    } catch (e) {
      log.error({ err: e }, 'shutdown step failed');
    }
  }
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

main().catch(async (error) => {
  if (error instanceof ConfigError) {
    console.error(`finwatch cannot start: ${error.message}`);
  } else {
    log.fatal({ err: error }, 'finwatch failed to start');
  }
  for (const stop of stops) await stop().catch(() => {});
  process.exit(1);
});
