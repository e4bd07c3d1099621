import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type PrismaClient } from '../../shared/db/client.js';
import { migratedPgliteTemplate } from './pglite-template.js';

/** The PostgreSQL server tests may use (CI sets it); unset → PostgreSQL tests do not run. */
export const TEST_PG_URL = process.env.FINWATCH_TEST_PG_URL;

/** Whether every test host runs on PostgreSQL instead of PGlite (FINWATCH_TEST_DB=postgres). */
export const USE_POSTGRES_EVERYWHERE = process.env.FINWATCH_TEST_DB === 'postgres';

/** A new, empty database on the test server (or `server`, a bench's); dropped by the returned function. */
export async function createPostgresDatabase(
  server = TEST_PG_URL,
  prefix = 'finwatch_test',
): Promise<{ url: string; drop(): Promise<void> }> {
  if (!server) throw new Error('FINWATCH_TEST_PG_URL is not set');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The databases a data-layer test runs on: PGlite always, PostgreSQL when the test server is set. */
export const TEST_DATABASES: Array<[string, 'pglite' | 'postgres']> = [
  ['PGlite', 'pglite'],
  ...(TEST_PG_URL ? [['PostgreSQL', 'postgres'] as [string, 'postgres']] : []),
];

/** A migrated database of that kind: in-memory PGlite (from the run's migrated copy), or a fresh PostgreSQL database that close() drops. */
export async function openMigratedDatabase(kind: 'pglite' | 'postgres'): Promise<{
  prisma: PrismaClient;
  /** The PostgreSQL URL (undefined for PGlite). */
  url: string | undefined;
  /** The PostgreSQL database's pg pool (undefined for PGlite). */
  pool: import('pg').Pool | undefined;
  close(): Promise<void>;
}> {
  let url: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  if (kind === 'postgres') ({ url, drop } = await createPostgresDatabase());
  const db = await openDatabase({
    connectionString: url,
    dataDir: 'memory://',
    initialDataDir: kind === 'pglite' ? await migratedPgliteTemplate() : undefined,
  });
  await db.migrate();
  return {
    prisma: db.prisma,
    url,
    pool: db.pool,
    async close() {
      await db.close();
      await drop?.();
    },
  };
}
