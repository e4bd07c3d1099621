import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/observability/logger.js';
import { forgeToken } from '../auth/helpers.js';
import { startTestHost, type TestHost } from '../support/host.js';

interface Line {
  msg: string;
  [key: string]: unknown;
}

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('access log and log correlation on the local host', () => {
  let host: TestHost;
  const lines: Line[] = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)) as Line);
        done();
      },
    });
    // The app's own logger, into a buffer.
    const log = createLogger('Debug', {}, stream);
    host = await startTestHost({ servicesOptions: { log } });
  });
  afterAll(async () => {
    await host?.close();
  });

  const linesSince = (n: number) => lines.slice(n);

  it('writes one line per request with method, route name, status, duration, invocation id and the caller traceparent', async () => {
    const mark = lines.length;
    const res = await fetch(`${host.url}/finops/api/Subscriptions`, {
      headers: { traceparent: TRACEPARENT, authorization: 'Bearer not-a-token' },
    });
    const problem = (await res.json()) as { traceId: string };
    const access = linesSince(mark).filter((l) => l.msg === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      method: 'GET',
      route: 'finops-subscriptions-list',
      status: 401,
      invocationId: problem.traceId,
      traceparent: TRACEPARENT,
    });
    expect(typeof access[0]?.durationMs).toBe('number');
  });

  it('puts the invocation id on every line written while the request runs, not only the access line', async () => {
    const mark = lines.length;
    // A well-formed own token signed with another key: the auth module logs why it refuses it.
    const forged = forgeToken(
      { id: '6f1c1d7e-0000-4000-8000-000000000001', email: 'eve@example.com', username: 'eve' },
      { key: 'an-attacker-key-that-is-not-ours-0123456789' },
    );
    const res = await fetch(`${host.url}/auth/api/User/GetAll`, {
      headers: { authorization: `Bearer ${forged}` },
    });
    const { traceId } = (await res.json()) as { traceId: string };
    const during = linesSince(mark);
    // Written by the auth module with the logger it was created with, yet it carries the id.
    const refused = during.find((l) => l.msg === 'own token refused');
    expect(refused?.invocationId).toBe(traceId);
    expect(during.find((l) => l.msg === 'request')).toMatchObject({
      route: 'auth-user-get-all',
      invocationId: traceId,
    });
    expect(during.every((l) => l.invocationId === traceId)).toBe(true);
  });

  it('logs unmatched paths with a null route and ignores a malformed traceparent', async () => {
    const mark = lines.length;
    await fetch(`${host.url}/finops/api/NoSuchThing`, { headers: { traceparent: 'garbage' } });
    const access = linesSince(mark).find((l) => l.msg === 'request');
    expect(access).toMatchObject({ method: 'GET', route: null, status: 404 });
    expect(access).not.toHaveProperty('traceparent');
  });
});
