import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const required = {
  CLUSTER_NAME: 'prod-1',
  METRICS_API_URL: 'http://api.monitoring.svc:8080/metrics/',
  NAMESPACES_TO_WATCH: 'shop, data,,shop',
};

function errorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('applies the documented defaults and no personal ones', () => {
    const config = loadConfig(required);
    expect(config).toMatchObject({
      clusterName: 'prod-1',
      metricsApiUrl: 'http://api.monitoring.svc:8080/metrics',
      namespaces: ['shop', 'data'],
      intervalSeconds: 30,
      collectLogs: false,
      logTailLines: 100,
      clusterEnvironment: 'PROD',
      logLevel: 'info',
      sentryDsn: undefined,
      environment: 'Production',
      healthPort: 8080,
      collectPvc: true,
      ingestMode: 'auto',
      ingestKey: undefined,
      ingestBufferBytes: 32 * 1024 * 1024,
      podLabelsAllowlist: [],
      warnings: [],
    });
  });

  it('reads the ingest settings: mode in any case, key, buffer bound and label allow-list', () => {
    const config = loadConfig({
      ...required,
      INGEST_MODE: 'Single',
      INGEST_KEY: ' fw_ik_abc ',
      INGEST_BUFFER_BYTES: '1048576',
      POD_LABELS_ALLOWLIST: 'team, app.kubernetes.io/name,,team',
    });
    expect(config).toMatchObject({
      ingestMode: 'single',
      ingestKey: 'fw_ik_abc',
      ingestBufferBytes: 1_048_576,
      podLabelsAllowlist: ['team', 'app.kubernetes.io/name'],
    });
    // An empty key (the manifest's Secret as shipped) means no key.
    expect(loadConfig({ ...required, INGEST_KEY: '' }).ingestKey).toBeUndefined();
  });

  it.each(['0', 'forty', '-5', '1.5'])(
    'falls back to the 30 s default with a warning for METRICS_COLLECTION_INTERVAL_SECONDS=%s',
    (raw) => {
      const config = loadConfig({ ...required, METRICS_COLLECTION_INTERVAL_SECONDS: raw });
      expect(config.intervalSeconds).toBe(30);
      expect(config.warnings).toEqual([
        {
          variable: 'METRICS_COLLECTION_INTERVAL_SECONDS',
          msg: `METRICS_COLLECTION_INTERVAL_SECONDS="${raw}" is not a positive whole number; using the default 30`,
        },
      ]);
    },
  );

  it('keeps a valid interval without a warning', () => {
    const config = loadConfig({ ...required, METRICS_COLLECTION_INTERVAL_SECONDS: '40' });
    expect([config.intervalSeconds, config.warnings]).toEqual([40, []]);
  });

  it.each([
    ['1', true],
    ['yes', true],
    ['YES', true],
    ['True', true],
    ['0', false],
    ['no', false],
    ['false', false],
  ])('accepts COLLECT_LOGS=%s as %s, as existing Helm values set it', (raw, expected) => {
    expect(loadConfig({ ...required, COLLECT_LOGS: raw }).collectLogs).toBe(expected);
  });

  it('turns PVC collection off with COLLECT_PVC_METRICS=false', () => {
    expect(loadConfig({ ...required, COLLECT_PVC_METRICS: 'false' }).collectPvc).toBe(false);
  });

  it.each([
    ['Verbose', 'trace'],
    ['Debug', 'debug'],
    ['Information', 'info'],
    ['warning', 'warn'],
    ['Error', 'error'],
    ['FATAL', 'fatal'],
    ['Info', 'info'],
    ['Warn', 'warn'],
  ])('maps LOG_LEVEL %s to pino %s', (name, level) => {
    expect(loadConfig({ ...required, LOG_LEVEL: name }).logLevel).toBe(level);
  });

  it.each([
    [{ CLUSTER_NAME: '' }, 'CLUSTER_NAME', 'CLUSTER_NAME environment variable is required'],
    [{ METRICS_API_URL: ' ' }, 'METRICS_API_URL', 'METRICS_API_URL environment variable is required'],
    [{ METRICS_API_URL: 'api:8080' }, 'METRICS_API_URL', 'http'],
    [{ NAMESPACES_TO_WATCH: '' }, 'NAMESPACES_TO_WATCH', 'required'],
    [{ NAMESPACES_TO_WATCH: ' , ' }, 'NAMESPACES_TO_WATCH', 'at least one namespace'],
    [{ METRICS_COLLECTION_INTERVAL_SECONDS: '86401' }, 'METRICS_COLLECTION_INTERVAL_SECONDS', 'whole number'],
    [{ COLLECT_PVC_METRICS: 'sometimes' }, 'COLLECT_PVC_METRICS', 'true or false'],
    [{ LOG_TAIL_LINES: '1.5' }, 'LOG_TAIL_LINES', 'whole number'],
    [{ COLLECT_LOGS: 'maybe' }, 'COLLECT_LOGS', 'true or false'],
    [{ COLLECT_LOGS: 'on' }, 'COLLECT_LOGS', 'true or false'],
    [{ LOG_LEVEL: 'Trace' }, 'LOG_LEVEL', 'Verbose, Debug, Information, Warning, Error, Fatal'],
    [{ LOG_LEVEL: 'Loud' }, 'LOG_LEVEL', 'Verbose, Debug, Information, Warning, Error, Fatal'],
    [{ INGEST_MODE: 'batched' }, 'INGEST_MODE', 'auto, batch or single'],
    [{ INGEST_BUFFER_BYTES: '1000' }, 'INGEST_BUFFER_BYTES', 'whole number between 1048576'],
    [{ INGEST_BUFFER_BYTES: '32MiB' }, 'INGEST_BUFFER_BYTES', 'whole number'],
  ])('rejects %j naming the variable', (override, variable, message) => {
    const error = errorFor({ ...required, ...override });
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(message);
  });
});
