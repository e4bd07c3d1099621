import azf from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { registerFunctions } from '../../functions/register.js';
import { routes } from '../../shared/app/routes.js';
import type { AppServices } from '../../shared/app/services.js';
import { createStartup } from '../../shared/app/startup.js';
import { loadConfig } from '../../shared/config/index.js';
import { createLogger } from '../../shared/observability/logger.js';

// Methods no client can send, and where Azure differs from the local host. The fetch standard forbids the
// methods CONNECT, TRACE and TRACK (https://fetch.spec.whatwg.org/#forbidden-method); the
// HttpRequest of @azure/functions is built on undici's Request, so the Node worker could not even
// represent such a request. In Azure no registration lists them and the Functions host answers them
// itself; the local host answers them with a 405 problem+json (edges.test.ts).
describe('methods the fetch standard forbids', () => {
  it('cannot be represented by the HttpRequest of @azure/functions', () => {
    for (const method of ['TRACE', 'CONNECT', 'TRACK']) {
      expect(() => new azf.HttpRequest({ method, url: 'http://127.0.0.1/auth/api/Version' })).toThrow();
    }
    expect(new azf.HttpRequest({ method: 'GET', url: 'http://127.0.0.1/auth/api/Version' }).method).toBe(
      'GET',
    );
  });

  it('are never registered with the Functions host, so no function is invoked with them', () => {
    const methods = new Set<string>();
    const app = {
      http: (_name: string, options: { methods?: string[] }) => {
        for (const m of options.methods ?? []) methods.add(m);
      },
      storageQueue: () => {},
      timer: () => {},
    };
    const config = loadConfig({ WEBAPP_ENVIRONMENT: 'Development' });
    const log = createLogger('None');
    const startup = createStartup({
      loadConfig: () => config,
      createServices: async () => ({}) as AppServices,
      log,
      errorReporter: () => ({ enabled: false, capture() {}, async flush() {} }),
      retryAfterSeconds: 10,
    });
    registerFunctions(app as never, startup, routes, log);
    expect(methods.has('GET')).toBe(true);
    expect([...methods].filter((m) => ['TRACE', 'CONNECT', 'TRACK'].includes(m))).toEqual([]);
  });
});
