import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../shared/db/client.js';
import { runLegacyColumnScripts } from '../../shared/db/legacy-scripts.js';
import { createPostgresDatabase, TEST_PG_URL } from '../support/databases.js';
import { migratedPgliteTemplate } from '../support/pglite-template.js';

type Kind = 'pglite' | 'postgres';

async function withDatabase<T>(kind: Kind, fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>) {
  const pg = kind === 'postgres' ? await createPostgresDatabase() : undefined;
  const db = await openDatabase({ connectionString: pg?.url, dataDir: 'memory://' });
  try {
    return await fn(db);
  } finally {
    await db.close();
    await pg?.drop();
  }
}

async function subscriptionColumns(db: Awaited<ReturnType<typeof openDatabase>>) {
  const rows = await db.prisma.$queryRawUnsafe<Array<{ column_name: string; column_default: string | null }>>(
    `SELECT column_name, column_default FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = 'Subscriptions' ORDER BY column_name`,
  );
  return rows;
}

const kinds: Kind[] = TEST_PG_URL ? ['pglite', 'postgres'] : ['pglite'];

describe.each(kinds)('database migrations on %s', (kind) => {
  // One database for both starts' checks: each fresh database is initdb plus every migration, half
  // a minute of PGlite on a loaded machine.
  it('creates every table on an empty database; a second start changes nothing and keeps stored rows', {
    timeout: 90_000,
  }, async () => {
    await withDatabase(kind, async (db) => {
      const first = await db.migrate();
      expect(first.mode).toBe('migrations');
      expect(first.applied.length).toBeGreaterThan(0);
      const tables = await db.prisma.$queryRawUnsafe<Array<{ table_name: string }>>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`,
      );
      expect(tables.map((t) => t.table_name)).toEqual(
        expect.arrayContaining([
          '_prisma_migrations',
          'Users',
          'UserDeviceTokens',
          'UserClusters',
          'UserSubscriptions',
          'UsersMonitorGroup',
          'UserActions',
          'PasswordResetCodes',
          'Subscriptions',
          'AnalysisRuns',
          'AnalysisJobs',
          'ResourceAnalyses',
          'CostDetails',
          'HistoricalCosts',
          'AiRecommendations',
        ]),
      );
      const recorded = await db.prisma.$queryRawUnsafe<
        Array<{ migration_name: string; finished_at: Date | null }>
      >(`SELECT migration_name, finished_at FROM _prisma_migrations`);
      expect(recorded.map((r) => r.migration_name).sort()).toEqual([...first.applied].sort());
      expect(recorded.every((r) => r.finished_at !== null)).toBe(true);

      await db.prisma.subscription.create({ data: { subscriptionId: 'keep-me', description: 'kept' } });
      const second = await db.migrate();
      expect(second.applied).toEqual([]);
      const after = await db.prisma.$queryRawUnsafe<Array<{ n: bigint }>>(
        `SELECT count(*)::bigint AS n FROM _prisma_migrations`,
      );
      expect(Number(after[0]!.n)).toBe(recorded.length);
      expect(await db.prisma.subscription.findMany({ select: { subscriptionId: true } })).toEqual([
        { subscriptionId: 'keep-me' },
      ]);
    });
  });

  it('brings an old-shape Subscriptions table up to date with the two Add scripts, which are no-ops again', async () => {
    await withDatabase(kind, async (db) => {
      await db.prisma.$executeRawUnsafe(
        `CREATE TABLE "Subscriptions" ("id" SERIAL PRIMARY KEY, "subscriptionId" TEXT NOT NULL UNIQUE,
         "description" TEXT NOT NULL DEFAULT '', "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT now(), "updatedAt" TIMESTAMPTZ(3))`,
      );
      await db.prisma.$executeRawUnsafe(`INSERT INTO "Subscriptions" ("subscriptionId") VALUES ('old-row')`);
      const before = (await subscriptionColumns(db)).map((c) => c.column_name);
      expect(before).not.toContain('budget');
      expect(before).not.toContain('infraSupportCost');

      await runLegacyColumnScripts(db.prisma);
      const after = await subscriptionColumns(db);
      expect(after.map((c) => c.column_name)).toEqual(expect.arrayContaining(['budget', 'infraSupportCost']));
      const rows = await db.prisma.$queryRawUnsafe<Array<{ budget: unknown; infraSupportCost: unknown }>>(
        `SELECT "budget", "infraSupportCost" FROM "Subscriptions"`,
      );
      expect(rows[0]!.budget).toBeNull();
      expect(Number(rows[0]!.infraSupportCost)).toBe(400);

      await runLegacyColumnScripts(db.prisma);
      expect(await subscriptionColumns(db)).toEqual(after);
    });
  });
});

describe('a PGlite started from a migrated data directory', () => {
  it('has every migration recorded and the tables, so migrate applies nothing', async () => {
    const db = await openDatabase({ dataDir: 'memory://', initialDataDir: await migratedPgliteTemplate() });
    try {
      const tables = await db.prisma.$queryRawUnsafe<Array<{ table_name: string }>>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`,
      );
      expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['Users', 'AnalysisRuns']));
      expect((await db.migrate()).applied).toEqual([]);
      // Its writes are its own: the next database from the same copy starts empty.
      await db.prisma.$executeRawUnsafe(`DELETE FROM "_prisma_migrations"`);
    } finally {
      await db.close();
    }
    const next = await openDatabase({ dataDir: 'memory://', initialDataDir: await migratedPgliteTemplate() });
    try {
      const rows = await next.prisma.$queryRawUnsafe<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM "_prisma_migrations"`,
      );
      expect(rows[0]?.n).toBeGreaterThan(0);
    } finally {
      await next.close();
    }
  });
});
