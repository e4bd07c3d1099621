import type { Level } from 'pino';

/** Thrown when the environment is unusable; `variable` names the culprit so the one fatal log line can say which. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface AgentConfig {
  clusterName: string;
  /** Base URL without a trailing slash; the ingest paths are appended to it. */
  metricsApiUrl: string;
  namespaces: string[];
  intervalSeconds: number;
  collectLogs: boolean;
  logTailLines: number;
  clusterEnvironment: string;
  logLevel: Level;
  sentryDsn: string | undefined;
  environment: string;
  healthPort: number;
  postConcurrency: number;
  postTimeoutSeconds: number;
  logConcurrency: number;
  logMaxBytes: number;
  collectPvc: boolean;
  /** Values the original tolerated and this agent replaced by a default: logged once the logger exists. */
  warnings: ConfigWarning[];
}

export interface ConfigWarning {
  variable: string;
  msg: string;
}

/** The original agent's LOG_LEVEL names (Serilog's) mapped onto pino's. */
const LOG_LEVELS: Record<string, Level> = {
  verbose: 'trace',
  debug: 'debug',
  information: 'info',
  // Short forms found in existing Helm values; the original's Serilog setup did not crash on them.
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  fatal: 'fatal',
};

type Env = Record<string, string | undefined>;

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

function required(env: Env, name: string): string {
  const raw = value(env, name);
  if (raw === undefined) throw new ConfigError(name, `${name} environment variable is required`);
  return raw;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  // Number('') and Number('1e3') are accepted by Number(); a setting should be plain digits.
  if (!/^\d+$/.test(raw)) {
    throw new ConfigError(name, `${name} must be a whole number between ${min} and ${max}, got "${raw}"`);
  }
  const parsed = Number(raw);
  if (parsed < min || parsed > max) {
    throw new ConfigError(name, `${name} must be a whole number between ${min} and ${max}, got "${raw}"`);
  }
  return parsed;
}

/**
 * The original took any interval that was not a positive number as its default (30), so Helm values with
 * `0` or text ran there; here they run too, with a warning instead of a crash loop. Too large stays fatal.
 */
function interval(env: Env, name: string, fallback: number, max: number, warnings: ConfigWarning[]): number {
  const raw = value(env, name);
  if (raw !== undefined && !(/^\d+$/.test(raw) && Number(raw) > 0)) {
    warnings.push({
      variable: name,
      msg: `${name}="${raw}" is not a positive whole number; using the default ${fallback}`,
    });
    return fallback;
  }
  return integer(env, name, fallback, 1, max);
}

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

/** true/false, plus 1/yes and 0/no, which existing Helm values use. */
function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new ConfigError(name, `${name} must be true or false (or 1/0, yes/no), got "${raw}"`);
}

export function loadConfig(env: Env): AgentConfig {
  const clusterName = required(env, 'CLUSTER_NAME');
  const rawUrl = required(env, 'METRICS_API_URL');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConfigError(
      'METRICS_API_URL',
      `METRICS_API_URL must be an absolute http(s) URL, got "${rawUrl}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('METRICS_API_URL', `METRICS_API_URL must use http or https, got "${rawUrl}"`);
  }
  const namespaces = [
    ...new Set(
      required(env, 'NAMESPACES_TO_WATCH')
        .split(',')
        .map((ns) => ns.trim())
        .filter((ns) => ns !== ''),
    ),
  ];
  if (namespaces.length === 0) {
    throw new ConfigError('NAMESPACES_TO_WATCH', 'NAMESPACES_TO_WATCH must name at least one namespace');
  }
  const levelName = value(env, 'LOG_LEVEL') ?? 'Information';
  const logLevel = LOG_LEVELS[levelName.toLowerCase()];
  if (logLevel === undefined) {
    throw new ConfigError(
      'LOG_LEVEL',
      `LOG_LEVEL must be one of Verbose, Debug, Information, Warning, Error, Fatal, got "${levelName}"`,
    );
  }
  const warnings: ConfigWarning[] = [];
  return {
    clusterName,
    metricsApiUrl: rawUrl.replace(/\/+$/, ''),
    namespaces,
    intervalSeconds: interval(env, 'METRICS_COLLECTION_INTERVAL_SECONDS', 30, 86_400, warnings),
    collectLogs: boolean(env, 'COLLECT_LOGS', false),
    logTailLines: integer(env, 'LOG_TAIL_LINES', 100, 1, 100_000),
    clusterEnvironment: value(env, 'CLUSTER_ENVIRONMENT') ?? 'PROD',
    logLevel,
    sentryDsn: value(env, 'SENTRY_DSN'),
    environment: value(env, 'ENVIRONMENT') ?? 'Production',
    healthPort: integer(env, 'HEALTH_PORT', 8080, 0, 65_535),
    postConcurrency: integer(env, 'POST_CONCURRENCY', 16, 1, 256),
    postTimeoutSeconds: integer(env, 'POST_TIMEOUT_SECONDS', 10, 1, 300),
    logConcurrency: integer(env, 'LOG_CONCURRENCY', 8, 1, 64),
    logMaxBytes: integer(env, 'LOG_MAX_BYTES', 262_144, 1_024, 10_485_760),
    collectPvc: boolean(env, 'COLLECT_PVC_METRICS', true),
    warnings,
  };
}
