import type { AgentConfig } from './config.js';
import type { ErrorSink } from './logger.js';

export interface ErrorTracking {
  report: ErrorSink;
  close(): Promise<void>;
}

/** Loaded only when SENTRY_DSN is set: the SDK is heavy and there is no default DSN. */
export async function startErrorTracking(config: AgentConfig): Promise<ErrorTracking | undefined> {
  if (!config.sentryDsn) return undefined;
  const Sentry = await import('@sentry/node');
  Sentry.init({
    dsn: config.sentryDsn,
    environment: config.environment,
    release: 'finwatch-agent@1.0.0',
    tracesSampleRate: 0,
    initialScope: { tags: { cluster: config.clusterName } },
  });
  return {
    report: (message, error) => {
      if (error instanceof Error) Sentry.captureException(error, { extra: { message } });
      else Sentry.captureMessage(message, 'error');
    },
    close: async () => {
      await Sentry.close(2_000);
    },
  };
}
