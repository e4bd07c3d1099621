import pino, { type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger };

/** Receives every error/fatal line, e.g. to forward it to Sentry. */
export type ErrorSink = (message: string, error: unknown) => void;

/**
 * JSON lines on stdout. The destination is synchronous so the fatal line of a config error or the last
 * line before a SIGTERM exit is never lost; the agent logs a handful of lines per cycle, so the cost is nil.
 */
export function createLogger(level: Level, destination?: DestinationStream, onError?: ErrorSink): Logger {
  return pino(
    {
      level,
      base: { service: 'finwatch-agent' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method, levelValue) {
          if (onError && levelValue >= 50) {
            const [first, second] = args as unknown[];
            const message = typeof first === 'string' ? first : typeof second === 'string' ? second : 'error';
            const err =
              typeof first === 'object' && first !== null ? (first as { err?: unknown }).err : undefined;
            onError(message, err);
          }
          method.apply(this, args);
        },
      },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
