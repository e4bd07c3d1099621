import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { PrismaClient } from '../../shared/db/generated/client.js';
import { isDatabaseUnavailable } from '../../shared/db/unavailable.js';
import { SUB_A, startAnalysisHost, USER, waitFor } from '../finops-engine/support.js';
import { createPostgresDatabase, TEST_PG_URL } from '../support/databases.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { type FreezableProxy, startFreezableProxy } from '../support/tcp-proxy.js';

// The database sits behind a loopback proxy that can freeze, as a PostgreSQL server stopped with
// SIGSTOP or cut off by the network looks to the app: connections open, nothing comes back.
describe.runIf(TEST_PG_URL)('a frozen or unreachable PostgreSQL', () => {
  let proxy: FreezableProxy;
  let host: TestHost;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    const target = new URL(db.url);
    proxy = await startFreezableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    host = await startTestHost({
      database: 'postgres',
      settings: {
        ConnectionStrings__SqlConnectionString: proxy.route(db.url),
        Database__ConnectTimeoutSeconds: '1',
        Database__StatementTimeoutSeconds: '1',
      },
    });
  }, 60_000);
  afterAll(async () => {
    proxy?.resume();
    await host?.close();
    await proxy?.close();
    await drop?.();
  });

  // A new unknown email each time, so that no cache answers in the database's place.
  let n = 0;
  const login = () =>
    apiClient(host.url).post('/auth/api/Auth/login', {
      json: { username: `nobody-${++n}@example.com`, password: 'not-the-password-1' },
    });

  it('answers 503 problem+json with Retry-After within the timeouts while the database is frozen, and recovers', {
    timeout: 40_000,
  }, async () => {
    const before = await login();
    expect(before.status).toBe(400);
    proxy.pause();
    try {
      const started = Date.now();
      const frozen = await Promise.race([
        login(),
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error('no answer within 15 s: the request waits for the database')),
            15_000,
          ),
        ),
      ]);
      const waited = Date.now() - started;
      expect(isProblem(frozen, 503)).toBe(true);
      expect(frozen.headers.get('retry-after')).toBe('5');
      // 1 s to connect or 1 s + 2 s client margin for a statement on an open connection.
      expect(waited).toBeLessThan(8_000);
    } finally {
      proxy.resume();
    }
    const after = await login();
    expect(after.status).toBe(400);
  });

  it('classifies a real statement timeout and a refused connection as unavailable, a division by zero not', async () => {
    const client = new pg.Client({ connectionString: TEST_PG_URL, statement_timeout: 100 });
    await client.connect();
    try {
      const timeout = await client.query('SELECT pg_sleep(2)').catch((e: unknown) => e);
      expect((timeout as { code?: string }).code).toBe('57014');
      expect(isDatabaseUnavailable(timeout)).toBe(true);
      const bad = await client.query('SELECT 1/0').catch((e: unknown) => e);
      expect((bad as { code?: string }).code).toBe('22012');
      expect(isDatabaseUnavailable(bad)).toBe(false);
    } finally {
      await client.end();
    }
    // The same through Prisma and its pg adapter, as the app sees them.
    const prisma = new PrismaClient({
      adapter: new PrismaPg({ connectionString: TEST_PG_URL, statement_timeout: 100 }),
    });
    try {
      const viaPrisma = await prisma.$queryRawUnsafe('SELECT pg_sleep(2)').catch((e: unknown) => e);
      expect(isDatabaseUnavailable(viaPrisma)).toBe(true);
      const badViaPrisma = await prisma.$queryRawUnsafe('SELECT 1/0').catch((e: unknown) => e);
      expect(badViaPrisma).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(badViaPrisma)).toBe(false);
    } finally {
      await prisma.$disconnect();
    }
    const refused = await new pg.Client({ host: '127.0.0.1', port: 1, connectionTimeoutMillis: 1000 })
      .connect()
      .catch((e: unknown) => e);
    expect(isDatabaseUnavailable(refused)).toBe(true);
  });
  // Last: it takes the proxy away for good.
  it('answers 503 with Retry-After when nothing listens where the database should be', async () => {
    await proxy.close();
    const res = await login();
    expect(isProblem(res, 503)).toBe(true);
    expect(res.headers.get('retry-after')).toBe('5');
  });
});

describe.runIf(TEST_PG_URL)('the analysis write under a short statement timeout', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 5 });
    host = await startAnalysisHost(sim, {
      database: 'postgres',
      extra: { Database__StatementTimeoutSeconds: '1', Database__LongStatementTimeoutSeconds: '60' },
    });
  });
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('keeps the long budget: a write that waits 3 s for a lock still completes', {
    timeout: 60_000,
  }, async () => {
    // Another session holds a lock that blocks inserts into AnalysisRuns: the run's first statement
    // waits for it, three times longer than a request's statement may take.
    const locker = new pg.Client({ connectionString: host.settings.ConnectionStrings__SqlConnectionString });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "AnalysisRuns" IN EXCLUSIVE MODE');
      const analysis = apiClient(host.url).post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
      await waitFor(
        'the analysis to reach its write',
        () =>
          host.services.prisma.analysisJob.findFirst({ where: { subscriptionId: SUB_A, source: 'sync' } }),
        (j) => j?.phase === 'saving',
        30_000,
        50,
      );
      await new Promise((r) => setTimeout(r, 3_000));
      await locker.query('COMMIT');
      const res = await analysis;
      expect(res.body).toMatchObject({ success: true });
    } finally {
      await locker.end();
    }
  });
});
