import type { AppConfig } from '../config/index.js';
import { serviceUnavailable } from '../http/problem.js';
import type { ErrorReporter } from '../observability/errors.js';
import type { Logger } from '../observability/logger.js';
import type { AppServices } from './services.js';

export interface StartupOptions {
  /** Reads and validates the settings; throws a ConfigError naming the bad setting. */
  loadConfig(): AppConfig;
  createServices(config: AppConfig): Promise<AppServices>;
  log: Logger;
  /** The error reporter for a configuration (Sentry when it sets a DSN). */
  errorReporter(config: AppConfig | undefined): ErrorReporter;
  /** Retry-After of the 503 while the services cannot be created. */
  retryAfterSeconds: number;
}

export interface Startup {
  /** The validated configuration, once it has loaded. */
  config(): AppConfig | undefined;
  /** The error reporter of the configuration (or of the raw settings before it loads). */
  errors(): ErrorReporter;
  /**
   * The services, created on first use and reused. A failed creation is logged with its cause
   * and answered as a 503 HttpError; the next call tries again (nothing caches the failure), and
   * calls during a creation share it, so a burst of requests opens one database, not a hundred.
   */
  services(): Promise<AppServices>;
}

export function createStartup(options: StartupOptions): Startup {
  let config: AppConfig | undefined;
  let reporter: ErrorReporter | undefined;
  let ready: AppServices | undefined;
  let creating: Promise<AppServices> | undefined;

  const errors = () => {
    reporter ??= options.errorReporter(config);
    return reporter;
  };

  function tryConfig(): AppConfig | undefined {
    if (config) return config;
    try {
      config = options.loadConfig();
      // The reporter of the raw settings is replaced by the validated configuration's.
      reporter = undefined;
      return config;
    } catch (error) {
      fail(error, 'settings');
      return undefined;
    }
  }

  function fail(error: unknown, stage: 'settings' | 'services'): void {
    const cause = error instanceof Error ? error.message : String(error);
    options.log.error(
      { err: error, stage },
      `finwatch could not start (${stage}): ${cause}. Requests answer 503 until it can.`,
    );
    errors().capture(error, { stage });
  }

  const unavailable = () =>
    serviceUnavailable(
      'The service is starting or cannot reach what it depends on; the cause has been logged. Retry later.',
      options.retryAfterSeconds,
    );

  // Settings are checked at load, so a bad one is in the log before the first request.
  tryConfig();

  return {
    config: () => config,
    errors,
    services() {
      if (ready) return Promise.resolve(ready);
      if (creating) return creating;
      const current = tryConfig();
      if (!current) return Promise.reject(unavailable());
      creating = options.createServices(current).then(
        (services) => {
          ready = services;
          creating = undefined;
          return services;
        },
        (error: unknown) => {
          creating = undefined;
          fail(error, 'services');
          throw unavailable();
        },
      );
      return creating;
    },
  };
}
