import { Agent } from './agent.js';
import { type AgentConfig, ConfigError, loadConfig } from './config.js';
import { HealthState, startHealthServer } from './health.js';
import { sleep } from './limiter.js';
import { createLogger } from './logger.js';
import { startErrorTracking } from './sentry.js';

/** Kubernetes sends SIGKILL 30 s after SIGTERM by default; the agent promises to be gone within 10 s. */
const SHUTDOWN_BUDGET_MS = 8_000;

async function main(): Promise<void> {
  let config: AgentConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      createLogger('info').fatal({ variable: error.variable }, error.message);
      process.exit(1);
    }
    throw error;
  }

  // The sink is attached after Sentry starts; errors before that only go to stdout.
  let report: ((message: string, error: unknown) => void) | undefined;
  const log = createLogger(config.logLevel, undefined, (message, error) => report?.(message, error));
  const tracking = await startErrorTracking(config);
  report = tracking?.report;
  for (const warning of config.warnings) log.warn({ variable: warning.variable }, warning.msg);

  let agent: Agent;
  try {
    agent = await Agent.create(config, log);
  } catch (error) {
    log.fatal({ err: error }, 'cannot load the Kubernetes configuration');
    await tracking?.close();
    process.exit(1);
  }

  const health = new HealthState(Math.max(10 * config.intervalSeconds * 1000, 600_000));
  const healthServer = await startHealthServer(health, config.healthPort);
  const controller = new AbortController();
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));

  log.info(
    {
      cluster: config.clusterName,
      metricsApiUrl: config.metricsApiUrl,
      namespaces: config.namespaces,
      intervalSeconds: config.intervalSeconds,
      collectLogs: config.collectLogs,
      healthPort: config.healthPort,
    },
    'finwatch agent starting',
  );
  await agent.probeIngest();
  const loop = agent.run(controller.signal, health);

  const shutdown = async (signal: string): Promise<void> => {
    if (controller.signal.aborted) return;
    log.info({ signal }, 'stopping: no new work, finishing in-flight posts');
    health.stopping = true;
    controller.abort();
    const finished = await Promise.race([
      loop.then(() => agent.close()).then(() => true),
      sleep(SHUTDOWN_BUDGET_MS).then(() => false),
    ]);
    if (!finished) log.warn('in-flight posts did not finish in time; exiting anyway');
    healthServer.close();
    await tracking?.close();
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

await main();
