import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaClient } from './generated/client.js';
import { type MigrateResult, migrateDatabase, readMigrationDirectories } from './migrate.js';
import { MIGRATION_SOURCES } from './paths.js';
import { PGLITE_ANALYZE_EVERY_MS, takingTurns } from './pglite-turns.js';
import { type DatabaseTimeouts, pgTimeoutOptions } from './timeouts.js';

export type { PrismaClient } from './generated/client.js';

export interface DatabaseOptions {
  /** A postgres:// or postgresql:// URL selects a PostgreSQL server; anything else, PGlite. */
  connectionString?: string | undefined;
  /** PGlite's data folder; `memory://` for an in-memory database (tests). */
  dataDir: string;
  log?: (message: string) => void;
  /** PostgreSQL only; unset: the driver's defaults (no timeouts at all). */
  timeouts?: DatabaseTimeouts | undefined;
  /**
   * PGlite only: a data directory (a PGlite dumpDataDir tarball) the database starts as, instead
   * of running initdb. Tests load one migrated copy per host: initdb costs seconds of CPU each time.
   */
  initialDataDir?: Blob | undefined;
}

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgres';
  /**
   * PostgreSQL only: the pg pool Prisma's driver adapter runs on, for code that sends its own SQL
   * (the metrics store): one pool, one set of connections and timeouts per process.
   */
  pool?: pg.Pool | undefined;
  migrate(): Promise<MigrateResult>;
  /**
   * PGlite: refreshes the planner's statistics (ANALYZE), which PGlite never does on its own (no
   * autovacuum); done after migrating and every PGLITE_ANALYZE_EVERY_MS. PostgreSQL: nothing.
   */
  analyze(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A PGlite with the contrib extensions the migrations create (pg_trgm, for the substring search's
 * trigram indexes). Every PGlite that runs migrations is made here, the schema engine's shadow
 * database included, so a migration means the same on each.
 */
export async function createPGlite(dataDir: string, loadDataDir?: Blob) {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ]);
  return PGlite.create(dataDir, { extensions: { pg_trgm }, ...(loadDataDir ? { loadDataDir } : {}) });
}

/** Where PGlite keeps its files under the app's DATA_DIR (`memory://` stays in memory). */
export function pgliteDataDir(dataDir: string): string {
  return dataDir.startsWith('memory://') ? 'memory://' : `${dataDir.replace(/\/$/, '')}/pglite`;
}

export function isPostgresUrl(value: string | undefined): value is string {
  return !!value && /^postgres(ql)?:\/\//i.test(value.trim());
}

/**
 * One database per process: PostgreSQL through @prisma/adapter-pg when the connection string is a
 * postgres URL, otherwise PGlite (PostgreSQL compiled to WebAssembly) persisted under dataDir.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  let factory: SqlMigrationAwareDriverAdapterFactory;
  let migrationFactory: () => Promise<SqlMigrationAwareDriverAdapterFactory>;
  let closeDriver: () => Promise<void>;
  let kind: Database['kind'];
  let analyze = async () => {};
  let analyzeTimer: NodeJS.Timeout | undefined;
  let pool: pg.Pool | undefined;
  if (isPostgresUrl(options.connectionString)) {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const timeouts = options.timeouts;
    // 20 connections: what Prisma's 10 and the metrics store's own 10 were before they shared one pool.
    pool = new pg.Pool({
      connectionString: options.connectionString,
      max: 20,
      idleTimeoutMillis: 10_000,
      // A day of 5-minute averages for a namespace of 120 containers is 34,560 metric rows to order
      // newest first: the default 4 MB sorted them on disk (EXPLAIN: external merge, half the
      // statement's time). It is a per-sort bound, not an allocation: most statements use far less.
      options: '-c work_mem=16MB',
      ...(timeouts ? pgTimeoutOptions(timeouts) : {}),
    });
    // An idle connection the server ended must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    factory = new PrismaPg(pool);
    // A migration may rewrite a large table: it gets the long statement budget, on its own pool.
    migrationFactory = async () =>
      timeouts
        ? new PrismaPg({
            connectionString: options.connectionString,
            max: 2,
            idleTimeoutMillis: 1_000,
            ...pgTimeoutOptions(timeouts, 'long'),
          })
        : factory;
    const shared = pool;
    // The adapter leaves a pool it was given open: it is ended after Prisma disconnects.
    closeDriver = () => shared.end();
    kind = 'postgres';
  } else {
    const { PrismaPGlite } = await import('pglite-prisma-adapter');
    let dataDir = options.dataDir;
    if (!dataDir.startsWith('memory://')) {
      dataDir = path.resolve(dataDir);
      mkdirSync(dataDir, { recursive: true });
    }
    const pglite = takingTurns(await createPGlite(dataDir, options.initialDataDir));
    factory = new PrismaPGlite(pglite);
    migrationFactory = async () => factory;
    analyze = async () => {
      await pglite.exec('ANALYZE');
    };
    // The timer keeps no process alive; a failed run (a closing database) waits for the next one.
    analyzeTimer = setInterval(() => analyze().catch(() => {}), PGLITE_ANALYZE_EVERY_MS);
    analyzeTimer.unref();
    closeDriver = () => {
      clearInterval(analyzeTimer);
      return pglite.close();
    };
    kind = 'pglite';
  }
  const prisma = new PrismaClient({ adapter: factory });
  return {
    prisma,
    kind,
    pool,
    async migrate() {
      // Fast path for every start after the first: when _prisma_migrations already records each
      // migration, the WebAssembly schema engine (seconds to compile) is not loaded at all.
      const dirs = await readMigrationDirectories(MIGRATION_SOURCES.migrationsDir);
      if (dirs.length > 0) {
        const applied = await prisma
          .$queryRawUnsafe<Array<{ migration_name: string }>>(
            `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
          )
          .catch(() => undefined);
        const names = new Set(applied?.map((r) => r.migration_name));
        if (applied && dirs.every((d) => names.has(d.path))) {
          await analyze();
          return { applied: [], mode: 'migrations' };
        }
      }
      const result = await migrateDatabase(await migrationFactory(), MIGRATION_SOURCES, options.log);
      await analyze();
      return result;
    },
    analyze: () => analyze(),
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}
