import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { versionRoutes } from '../../shared/app/version-routes.js';
import { json } from '../../shared/http/respond.js';
import { defineRoute } from '../../shared/http/route.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

let release: () => void = () => {};
let markStarted: () => void = () => {};
const slowStarted = new Promise<void>((r) => {
  markStarted = r;
});
const testRoutes = [
  ...versionRoutes,
  defineRoute({
    name: 'echo',
    service: 'finops',
    method: 'POST',
    path: 'Echo',
    auth: 'none',
    input: { body: z.object({ subscriptionId: z.string().min(1), budget: z.number().optional() }) },
    async handler({ input: { body } }) {
      return json(200, body);
    },
  }),
  defineRoute({
    name: 'slow',
    service: 'finops',
    method: 'GET',
    path: 'Slow',
    auth: 'none',
    async handler() {
      await new Promise<void>((r) => {
        release = r;
        markStarted();
      });
      return json(200, { done: true });
    },
  }),
  defineRoute({
    name: 'slice',
    service: 'finops',
    method: 'GET',
    path: 'Slice',
    auth: 'none',
    async handler() {
      // A view into a larger buffer (as Buffer.from of a short string is, in Node's pool): only
      // the view's bytes are the answer.
      const whole = Buffer.from('xxxx{"kept":true}yyyy');
      return { status: 200, headers: { 'content-type': 'application/json' }, body: whole.subarray(4, 17) };
    },
  }),
  defineRoute({
    name: 'boom',
    service: 'finops',
    method: 'GET',
    path: 'Boom',
    auth: 'none',
    async handler() {
      throw new Error('secret internal detail');
    },
  }),
  defineRoute({
    name: 'guarded',
    service: 'auth',
    method: 'GET',
    path: 'Guarded',
    auth: 'user',
    async handler() {
      return json(200, {});
    },
  }),
];

describe('local host', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    host = await startTestHost({ routes: testRoutes, queueWorker: false });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers the Version routes as plain text, or as a JSON string when only JSON is accepted', async () => {
    const text = await api.get('/auth/api/Version');
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toMatch(/text\/plain/);
    expect(text.text).toMatch(/^\d+\.\d+\.\d+$/);
    const json = await api.get('/finops/api/Version', { headers: { accept: 'application/json' } });
    expect(json.body).toBe(text.text);
    const metrics = await api.get('/metrics/api/Version');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toBe(text.text);
  });

  it('matches paths case-insensitively and tolerates a trailing slash', async () => {
    expect((await api.get('/AUTH/API/version/')).status).toBe(200);
  });

  it('answers an unknown path 404 and a wrong method 405 with Allow, both as problem+json', async () => {
    const missing = await api.get('/finops/api/Nothing');
    expect(isProblem(missing, 404)).toBe(true);
    const wrong = await api.post('/auth/api/Version');
    expect(isProblem(wrong, 405)).toBe(true);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('matches body property names case-insensitively', async () => {
    const res = await api.post('/finops/api/Echo', { json: { SUBSCRIPTIONID: 'abc', Budget: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ subscriptionId: 'abc', budget: 5 });
  });

  it('answers malformed JSON 400 and a validation failure 400 with the field named', async () => {
    const bad = await api.post('/finops/api/Echo', { raw: '{"subscriptionId":' });
    expect(isProblem(bad, 400)).toBe(true);
    const invalid = await api.post('/finops/api/Echo', { json: { budget: 'x' } });
    expect(isProblem(invalid, 400)).toBe(true);
    expect(Object.keys(invalid.body.errors)).toEqual(expect.arrayContaining(['subscriptionId', 'budget']));
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const res = await api.post('/finops/api/Echo', {
      raw: JSON.stringify({ subscriptionId: 'x'.repeat(1_100_000) }),
    });
    expect(isProblem(res, 413)).toBe(true);
  });

  it('writes a byte body that is a view into a larger buffer as exactly the view', async () => {
    const res = await api.get('/finops/api/Slice');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('13');
    expect(res.text).toBe('{"kept":true}');
  });

  it('answers an unhandled error 500 without internals', async () => {
    const res = await api.get('/finops/api/Boom');
    expect(isProblem(res, 500)).toBe(true);
    expect(res.text).not.toContain('secret internal detail');
    expect(res.body.traceId).toBeTruthy();
  });

  it('answers 401 with WWW-Authenticate on a guarded route without a token', async () => {
    const res = await api.get('/auth/api/Guarded');
    expect(isProblem(res, 401)).toBe(true);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('allows any origin by default and exposes the paging headers', async () => {
    const res = await api.get('/finops/api/Version', { headers: { origin: 'https://ui.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Total-Count');
    const pre = await api.call('OPTIONS', '/finops/api/Echo', {
      headers: { origin: 'https://ui.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
  });
});

describe('local host CORS restriction and shutdown', () => {
  it('restricts origins to CORS_ALLOWED_ORIGINS', async () => {
    const host = await startTestHost({
      routes: testRoutes,
      queueWorker: false,
      settings: { CORS_ALLOWED_ORIGINS: 'https://ok.example' },
    });
    try {
      const api = apiClient(host.url);
      const ok = await api.get('/finops/api/Version', { headers: { origin: 'https://ok.example' } });
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://ok.example');
      const no = await api.get('/finops/api/Version', { headers: { origin: 'https://evil.example' } });
      expect(no.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await host.close();
    }
  });

  it('lets an in-flight request finish when the host closes', async () => {
    const host = await startTestHost({ routes: testRoutes, queueWorker: false });
    const api = apiClient(host.url);
    const pending = api.get('/finops/api/Slow');
    await slowStarted;
    const closing = host.close();
    release();
    const res = await pending;
    const started = Date.now();
    await closing;
    expect(res.status).toBe(200);
    // Closing does not wait out keep-alive sockets.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(res.body).toEqual({ done: true });
  });
});
