import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../shared/db/unavailable.js';
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

  it('classifies a real statement timeout and a refused connection as unavailable, a constraint violation not', async () => {
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
    const refused = await new pg.Client({ host: '127.0.0.1', port: 1, connectionTimeoutMillis: 1000 })
      .connect()
      .catch((e: unknown) => e);
    expect(isDatabaseUnavailable(refused)).toBe(true);
  });
});
