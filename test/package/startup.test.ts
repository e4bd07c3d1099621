// The packaged bundle, started while its database cannot be reached: requests answer 503
// problem+json with Retry-After and the log says why; once the database is there, the next
// request is served by the same process, without a restart.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageResult } from '../../scripts/package.js';
import { createPostgresDatabase, TEST_PG_URL } from '../support/databases.js';
import { sharedPackage } from '../support/shared-package.js';
import { runStub, type StubRequest, type StubResult } from './stub.js';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

const logLines = (out: string | undefined): LogLine[] =>
  (out ?? '')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

async function waitForFile(file: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${file}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Subscriptions (needs the database), Version (does not), then Subscriptions once it is up. */
function requestsFor(dir: string): StubRequest[] {
  const subscriptions = (n: number): StubRequest => ({
    function: 'finops-api',
    url: 'http://localhost/finops/api/Subscriptions',
    params: { path: 'Subscriptions' },
    invocationId: `startup-${n}`,
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  });
  return [
    subscriptions(1),
    {
      function: 'auth-api',
      url: 'http://localhost/auth/api/Version',
      params: { path: 'Version' },
      announceFile: path.join(dir, 'down-answered'),
    },
    { ...subscriptions(2), waitForFile: path.join(dir, 'database-up') },
  ];
}

function expectRecovery(result: StubResult, cause: RegExp) {
  expect(result.importError).toBeUndefined();
  const [down, version, up] = result.responses;
  expect(down).toMatchObject({ status: 503 });
  expect(down?.headers?.['content-type']).toMatch(/^application\/problem\+json/);
  expect(down?.headers?.['retry-after']).toBe('10');
  expect(JSON.parse(down?.body ?? '{}')).toMatchObject({ status: 503, traceId: 'startup-1' });
  // The Version routes need no database.
  expect(version).toMatchObject({ status: 200 });
  // The database is up: the same process now authenticates (no token: 401), no restart.
  expect(up).toMatchObject({ status: 401 });

  const lines = logLines(result.stdout);
  const failure = lines.find((l) => l.msg.startsWith('finwatch could not start (services)'));
  expect(failure?.level).toBe(50);
  expect(failure?.msg).toMatch(cause);
  expect(failure?.invocationId).toBe('startup-1');
  const access = lines.filter((l) => l.msg === 'request');
  expect(access.map((l) => [l.method, l.route, l.status, l.invocationId])).toEqual([
    ['GET', 'finops-subscriptions-list', 503, 'startup-1'],
    ['GET', 'auth-version', 200, expect.any(String)],
    ['GET', 'finops-subscriptions-list', 401, 'startup-2'],
  ]);
  expect(access[0]?.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
  expect(typeof access[0]?.durationMs).toBe('number');
}

describe('startup of the packaged bundle without its database', () => {
  let work: string;
  let pkg: PackageResult;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'finwatch-startup-'));
    pkg = await sharedPackage();
  }, 120_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After while PGlite cannot open its folder, logs why, and serves once it can', async () => {
    const dir = mkdtempSync(path.join(work, 'pglite-'));
    const data = path.join(dir, 'data');
    mkdirSync(data);
    // A file where PGlite's folder goes: opening the database fails until it is removed.
    writeFileSync(path.join(data, 'pglite'), 'not a folder');
    const running = runStub(pkg.bundle, {
      cwd: pkg.dir,
      env: { DATA_DIR: data, Logging__LogLevel__Default: 'Information' },
      requests: requestsFor(dir),
    });
    await waitForFile(path.join(dir, 'down-answered'));
    rmSync(path.join(data, 'pglite'));
    writeFileSync(path.join(dir, 'database-up'), '');
    expectRecovery(await running, /pglite|ENOTDIR|EEXIST|not a directory/i);
  }, 120_000);

  it.skipIf(!TEST_PG_URL)(
    'answers 503 with Retry-After while PostgreSQL refuses connections, logs why, and serves once it accepts them',
    async () => {
      const dir = mkdtempSync(path.join(work, 'postgres-'));
      const db = await createPostgresDatabase();
      const target = new URL(db.url);
      // A port nothing listens on yet; later a proxy to the real server listens there.
      const port = await new Promise<number>((resolve) => {
        const probe = net.createServer().listen(0, '127.0.0.1', () => {
          const p = (probe.address() as net.AddressInfo).port;
          probe.close(() => resolve(p));
        });
      });
      const viaProxy = new URL(db.url);
      viaProxy.host = `127.0.0.1:${port}`;
      const proxy = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        client.pipe(upstream).pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
      try {
        const running = runStub(pkg.bundle, {
          cwd: pkg.dir,
          env: {
            ConnectionStrings__SqlConnectionString: viaProxy.toString(),
            Logging__LogLevel__Default: 'Information',
          },
          requests: requestsFor(dir),
        });
        await waitForFile(path.join(dir, 'down-answered'));
        await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
        writeFileSync(path.join(dir, 'database-up'), '');
        expectRecovery(await running, /reach database server at `127\.0\.0\.1:\d+`/);
      } finally {
        await new Promise<void>((resolve) => proxy.close(() => resolve()));
        await db.drop();
      }
    },
    120_000,
  );
});
