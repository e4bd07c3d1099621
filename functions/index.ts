// Azure Functions entry point (v4 programming model). Settings are checked at load; the services
// (database, queue, modules) are created on the first invocation and reused. Until they can be
// created, requests answer 503 with Retry-After and the cause is in the log (see shared/app/startup).
import azf from '@azure/functions';
import { createServices } from '../shared/app/create-services.js';
import { routes } from '../shared/app/routes.js';
import { createStartup } from '../shared/app/startup.js';
import { loadConfig, readSettings } from '../shared/config/index.js';
import { errorTrackerSettings } from '../shared/config/platform.js';
import { createErrorReporter } from '../shared/observability/errors.js';
import { createLogger } from '../shared/observability/logger.js';
import { registerFunctions } from './register.js';

/** How long a client should wait before retrying while the services cannot be created. */
const STARTUP_RETRY_AFTER_SECONDS = 10;

const settings = readSettings();
// The log level and error tracker come from the raw settings, so a startup that fails on another
// setting is still logged (and reported to Sentry when a DSN is set).
const log = createLogger(settings.Logging__LogLevel__Default);
const startup = createStartup({
  loadConfig: () => loadConfig(readSettings()),
  createServices: (config) => createServices(config, { log }),
  log,
  errorReporter: (config) => createErrorReporter(config?.platform ?? errorTrackerSettings(settings)),
  retryAfterSeconds: STARTUP_RETRY_AFTER_SECONDS,
});

// Streamed answers (unpaged lists) must reach the client as they are produced; without this the
// worker buffers the whole body before handing it to the host.
azf.app.setup({ enableHttpStream: true });
registerFunctions(azf.app, startup, routes, log);
