/**
 * A local host in its own process, for the hard-kill test: settings come as JSON in
 * FINWATCH_CHILD_SETTINGS; prints its URL on stdout. Auth resolves the test tokens (support.ts).
 */
import { startLocalHost } from '../../dev/host.js';
import { loadConfig } from '../../shared/config/index.js';
import { createLogger } from '../../shared/observability/logger.js';
import { stubAuth } from './support.js';

const settings = JSON.parse(process.env.FINWATCH_CHILD_SETTINGS ?? '{}') as Record<string, string>;
const config = loadConfig(settings);
const host = await startLocalHost({
  config,
  weeklyTimer: false,
  // FINWATCH_CHILD_LEASE_MS: how long a taken message stays invisible (the Functions host's is minutes).
  queueWorker: {
    pollMs: 50,
    leaseMs: Number(process.env.FINWATCH_CHILD_LEASE_MS ?? 2_000),
    settings: { visibilityTimeoutMs: 1_000 },
  },
  servicesOptions: { log: createLogger(settings.Logging__LogLevel__Default ?? 'None'), skipMigrations: true },
});
stubAuth(host.services);
process.stdout.write(`${host.url}\n`);
