import { describe, expect, it } from 'vitest';
import { errorTrackerSettings } from '../../shared/config/platform.js';
import { createErrorReporter } from '../../shared/observability/errors.js';

// A DSN of the documented form; nothing is sent (no error is captured while enabled).
const DSN = 'https://public@o0.ingest.sentry.io/1';
const settings = (enabled: boolean, dsn: string | undefined) => ({
  ErrorTracker__Dsn: dsn,
  ErrorTracker__Enabled: enabled,
  ErrorTracker__Environment: undefined,
  ErrorTracker__SendDefaultPii: false,
  WEBAPP_ENVIRONMENT: 'Development' as const,
});

describe('error tracking switch', () => {
  it('stays off with a DSN when ErrorTracker__Enabled is false, so switching it off needs no DSN change', () => {
    const reporter = createErrorReporter(settings(false, DSN));
    expect(reporter.enabled).toBe(false);
    // Capturing is then a no-op, not an error.
    reporter.capture(new Error('not sent'));
  });

  it('is on with ErrorTracker__Enabled and a DSN, and off without a DSN', () => {
    expect(createErrorReporter(settings(true, DSN)).enabled).toBe(true);
    expect(createErrorReporter(settings(true, undefined)).enabled).toBe(false);
  });

  it('reads the switch from the raw settings when the rest of the configuration fails to load', () => {
    const raw = { ErrorTracker__Dsn: ` ${DSN} `, WEBAPP_ENVIRONMENT: 'Development', Jwt__Key: 'short' };
    // Off unless switched on, as when the configuration loads.
    expect(createErrorReporter(errorTrackerSettings(raw)).enabled).toBe(false);
    expect(
      createErrorReporter(errorTrackerSettings({ ...raw, ErrorTracker__Enabled: 'no-such-value' })).enabled,
    ).toBe(false);
    expect(errorTrackerSettings({ ...raw, ErrorTracker__Enabled: 'true' })).toEqual({
      ErrorTracker__Enabled: true,
      ErrorTracker__Dsn: DSN,
      ErrorTracker__Environment: undefined,
      ErrorTracker__SendDefaultPii: false,
      WEBAPP_ENVIRONMENT: 'Development',
    });
  });
});
