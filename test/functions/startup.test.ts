import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AppServices } from '../../shared/app/services.js';
import { createStartup } from '../../shared/app/startup.js';
import { type AppConfig, ConfigError, loadConfig } from '../../shared/config/index.js';
import { HttpError } from '../../shared/http/problem.js';

function capturedLog() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

const config = loadConfig({ WEBAPP_ENVIRONMENT: 'Development' });
const services = { config } as AppServices;
const captured: unknown[] = [];
const reporter = { enabled: true, capture: (e: unknown) => captured.push(e), async flush() {} };

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

describe('startup of the services', () => {
  it('creates the services once however many requests arrive while they are being created', async () => {
    const { log } = capturedLog();
    const creation = deferred<AppServices>();
    let attempts = 0;
    const startup = createStartup({
      loadConfig: () => config,
      createServices: () => {
        attempts++;
        return creation.promise;
      },
      log,
      errorReporter: () => reporter,
      retryAfterSeconds: 10,
    });
    const burst = Array.from({ length: 20 }, () => startup.services());
    creation.resolve(services);
    expect(await Promise.all(burst)).toEqual(Array(20).fill(services));
    await startup.services();
    expect(attempts).toBe(1);
  });

  it('answers a failed creation with 503 and Retry-After, logs and reports its cause, and tries again on the next call', async () => {
    const { log, lines } = capturedLog();
    captured.length = 0;
    let attempts = 0;
    const startup = createStartup({
      loadConfig: () => config,
      createServices: async () => {
        attempts++;
        if (attempts === 1) throw new Error('connect ECONNREFUSED 10.0.0.4:5432');
        return services;
      },
      log,
      errorReporter: () => reporter,
      retryAfterSeconds: 7,
    });
    const error = await startup.services().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 503, options: { headers: { 'Retry-After': '7' } } });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        stage: 'services',
        msg: expect.stringContaining('connect ECONNREFUSED 10.0.0.4:5432'),
      }),
    ]);
    expect(captured).toEqual([new Error('connect ECONNREFUSED 10.0.0.4:5432')]);
    expect(await startup.services()).toBe(services);
    expect(attempts).toBe(2);
  });

  it('logs an invalid setting at load, naming it, and keeps answering 503 without creating anything', async () => {
    const { log, lines } = capturedLog();
    let attempts = 0;
    const startup = createStartup({
      loadConfig: (): AppConfig => {
        throw new ConfigError('Setting Jwt__Key holds an unresolved Key Vault reference.');
      },
      createServices: async () => {
        attempts++;
        return services;
      },
      log,
      errorReporter: () => reporter,
      retryAfterSeconds: 10,
    });
    expect(lines[0]).toMatchObject({ level: 50, stage: 'settings' });
    expect(lines[0]?.msg).toContain('Setting Jwt__Key holds an unresolved Key Vault reference.');
    await expect(startup.services()).rejects.toMatchObject({ status: 503 });
    expect(startup.config()).toBeUndefined();
    expect(attempts).toBe(0);
  });
});
