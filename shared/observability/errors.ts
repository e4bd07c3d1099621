import * as Sentry from '@sentry/node';
import type { ErrorTrackerSettings } from '../config/platform.js';

export interface ErrorReporter {
  enabled: boolean;
  capture(error: unknown, context?: Record<string, unknown>): void;
  flush(): Promise<void>;
}

let initialised = false;

/**
 * Error tracking through @sentry/node when it is enabled and a DSN is set (ErrorTracker__*). Sentry is process-wide,
 * so it is initialised once however many hosts a process starts (tests start several).
 */
export function createErrorReporter(settings: ErrorTrackerSettings): ErrorReporter {
  const dsn = settings.ErrorTracker__Dsn;
  // Both: a DSN left in place while tracking is switched off sends nothing.
  const enabled = !!dsn && settings.ErrorTracker__Enabled;
  if (enabled && !initialised) {
    Sentry.init({
      dsn,
      environment: settings.ErrorTracker__Environment ?? settings.WEBAPP_ENVIRONMENT,
      // ErrorTracker__SendDefaultPii=false (the default) keeps user data, headers and bodies out.
      dataCollection: settings.ErrorTracker__SendDefaultPii
        ? undefined
        : { userInfo: false, cookies: false, httpHeaders: false, httpBodies: [] },
      tracesSampleRate: 0,
    });
    initialised = true;
  }
  return {
    enabled,
    capture(error, context) {
      if (!enabled) return;
      Sentry.captureException(error, context ? { extra: context } : undefined);
    },
    async flush() {
      if (enabled) await Sentry.flush(2000);
    },
  };
}
