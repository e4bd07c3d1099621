import { type Logger, pino } from 'pino';
import { invocationLogFields } from './invocation-scope.js';

export type { Logger } from 'pino';

const LEVELS: Record<string, string> = {
  trace: 'trace',
  verbose: 'trace',
  debug: 'debug',
  information: 'info',
  info: 'info',
  warning: 'warn',
  warn: 'warn',
  error: 'error',
  critical: 'fatal',
  fatal: 'fatal',
  none: 'silent',
  silent: 'silent',
};

/** Maps .NET log level names (Logging__LogLevel__Default, the original's setting) to pino's. */
export function pinoLevel(name: string | undefined): string {
  return LEVELS[(name ?? 'info').trim().toLowerCase()] ?? 'info';
}

export function createLogger(
  level: string | undefined,
  bindings: Record<string, unknown> = {},
  destination?: NodeJS.WritableStream,
): Logger {
  const options = {
    level: pinoLevel(level),
    base: { service: 'finwatch', ...bindings },
    mixin: invocationLogFields,
    redact: { paths: ['password', '*.password', 'token', '*.token', 'authorization'], censor: '***' },
  };
  return destination ? pino(options, destination) : pino(options);
}
