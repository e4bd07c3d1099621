import { AzureLogger, type AzureLogLevel, setLogLevel } from '@azure/logger';
import type { Logger } from 'pino';
import { pinoLevel } from './logger.js';

const AZURE_LEVEL: Record<string, AzureLogLevel | undefined> = {
  trace: 'verbose',
  debug: 'verbose',
  info: 'info',
  warn: 'warning',
  error: 'error',
  fatal: 'error',
  silent: undefined,
};

/**
 * Sends the Azure SDK's own logs (identity, the pipeline's retries) to the service's logger at the
 * level `Logging__LogLevel__Vendor.IdentityModel…` names, the setting the original used for its
 * identity library. Without this the SDK writes to stderr only when AZURE_LOG_LEVEL is set.
 */
export function routeAzureSdkLogs(level: string | undefined, log: Logger): void {
  const pinoName = pinoLevel(level);
  const azureLevel = AZURE_LEVEL[pinoName];
  setLogLevel(azureLevel);
  if (!azureLevel) return;
  const sdkLog = log.child({ component: 'azure-sdk' });
  const write = (pinoName === 'silent' ? 'info' : pinoName) as
    | 'trace'
    | 'debug'
    | 'info'
    | 'warn'
    | 'error'
    | 'fatal';
  AzureLogger.log = (...args: unknown[]) => {
    sdkLog[write](args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  };
}
