/**
 * How the PostgreSQL metrics store reaches its database: through the app's Prisma client (PGlite,
 * in-process, one session), or, on a PostgreSQL server, straight through the pg pool Prisma's
 * driver adapter runs on (one pool per process, see Database.pool). Prisma's
 * raw-query path costs about 10 ms of client CPU per statement on a loaded 2-core machine (a bare
 * SELECT 1 measured 10.9 ms), which is the whole budget of a one-object post; `pg` costs a fraction
 * of a millisecond. Both run the same SQL text with the same $n parameters.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { sleep } from '../../../app/sleep.js';
import type { PrismaClient } from '../../../db/client.js';
import { binaryArray, textArray } from './array-params.js';

export type Exec = (sql: string, ...params: unknown[]) => Promise<number>;
export type Query = <T>(sql: string, ...params: unknown[]) => Promise<T[]>;
/** Rows as arrays of column values in select order: no object per row (large sample reads). */
export type QueryArrays = (sql: string, ...params: unknown[]) => Promise<unknown[][]>;

export interface Sql {
  exec: Exec;
  query: Query;
  queryArrays: QueryArrays;
  transaction<T>(fn: (exec: Exec, query: Query) => Promise<T>): Promise<T>;
  /**
   * A statement's column arrays as its parameters, by each one's cast (paramCasts): binary where
   * pg can send it, text literals otherwise (array-params.ts). Times are epoch milliseconds.
   */
  arrays(casts: readonly string[], columns: readonly unknown[][]): unknown[];
  close(): Promise<void>;
}

export function prismaSql(prisma: PrismaClient): Sql {
  return {
    exec: (sql, ...params) => prisma.$executeRawUnsafe(sql, ...params),
    query: (sql, ...params) => prisma.$queryRawUnsafe(sql, ...params),
    queryArrays: async (sql, ...params) =>
      (await prisma.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params)).map((r) => Object.values(r)),
    transaction: (fn) =>
      prisma.$transaction(
        (tx) =>
          fn(
            (sql, ...params) => tx.$executeRawUnsafe(sql, ...params),
            (sql, ...params) => tx.$queryRawUnsafe(sql, ...params),
          ),
        { timeout: 120_000, maxWait: 30_000 },
      ),
    // Prisma's raw queries bind a Buffer as bytea: text literals only.
    arrays: (casts, columns) => columns.map((c, i) => textArray(casts[i], c)),
    close: async () => {},
  };
}

/** SQL on the database's pg pool (the one Prisma's driver adapter runs on), which it does not end. */
export function pgSql(pool: pg.Pool): Sql {
  // Statements with parameters are prepared once per connection (named by their text's hash): the
  // write statement into partitioned tables costs more to plan than to run.
  const names = new Map<string, string>();
  const config = (sql: string, params: unknown[]): pg.QueryConfig =>
    params.length
      ? { name: names.get(sql) ?? nameOf(sql), text: sql, values: params }
      : { text: sql, values: params };
  const nameOf = (sql: string) => {
    const name = `fw_${createHash('md5').update(sql).digest('hex').slice(0, 20)}`;
    if (names.size < 1000) names.set(sql, name);
    return name;
  };
  const execOn =
    (c: pg.Pool | pg.PoolClient): Exec =>
    async (sql, ...params) =>
      (await c.query(config(sql, params))).rowCount ?? 0;
  const queryOn =
    (c: pg.Pool | pg.PoolClient): Query =>
    async <T>(sql: string, ...params: unknown[]) =>
      (await c.query(config(sql, params))).rows as T[];
  return {
    exec: execOn(pool),
    query: queryOn(pool),
    queryArrays: async (sql, ...params) =>
      (await pool.query({ ...config(sql, params), rowMode: 'array' })).rows as unknown[][],
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(execOn(client), queryOn(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    arrays: (casts, columns) => columns.map((c, i) => binaryArray(casts[i], c) ?? textArray(casts[i], c)),
    close: async () => {},
  };
}

/** PostgreSQL's codes for a transaction it chose to abort: a deadlock victim, a serialization failure. */
const TRANSIENT = new Set(['40P01', '40001']);

/**
 * Runs `fn` again when PostgreSQL aborted it as a deadlock victim or a serialization failure. Two
 * instances upserting the same rollup buckets at once can deadlock (each holds a row the other
 * needs); PostgreSQL aborts one of them, and running it again is the documented remedy
 * (PostgreSQL manual, "Explicit Locking", 13.3.4 Deadlocks). `fn` must be safe to run again.
 */
export async function retryTransient<T>(fn: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= attempts || typeof code !== 'string' || !TRANSIENT.has(code)) throw err;
      // A short random wait, so the two writers do not meet again in the same order.
      await sleep(5 + Math.random() * 20 * attempt);
    }
  }
}
