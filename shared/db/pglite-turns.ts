import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * PGlite runs PostgreSQL on the event loop: while a statement executes, the process answers nothing
 * else. Two things keep the local host responsive during long reads:
 *
 * - every statement starts on a fresh turn of the event loop (`takingTurns`), so the requests that
 *   arrived meanwhile (a Version probe, another page) are read and answered between the statements of
 *   a long read, which are bounded keyset pages of a few thousand rows;
 * - the planner has statistics (`analyze`): PGlite runs no autovacuum, so without an ANALYZE every
 *   table looks nearly empty, and a keyset page of a 100,000-row history was planned as a bitmap scan
 *   plus a sort of all the rows (about a second per page) instead of an index range scan (a few ms).
 */
interface Queryable {
  query: (...args: never[]) => Promise<unknown>;
  exec: (...args: never[]) => Promise<unknown>;
}
interface Transactional extends Queryable {
  transaction: <T>(callback: (tx: Queryable) => Promise<T>) => Promise<T>;
}

function yieldFirst<F extends (...args: never[]) => Promise<unknown>>(f: F, self: object): F {
  return (async (...args: Parameters<F>) => {
    await nextTurn();
    return f.apply(self, args);
  }) as F;
}

function takingTurnsTx(tx: Queryable): Queryable {
  tx.query = yieldFirst(tx.query, tx);
  tx.exec = yieldFirst(tx.exec, tx);
  return tx;
}

/** The same PGlite, each of whose statements (inside transactions too) waits for the next turn. */
export function takingTurns<T extends Transactional>(pglite: T): T {
  const query = yieldFirst(pglite.query, pglite);
  const exec = yieldFirst(pglite.exec, pglite);
  const transaction = pglite.transaction.bind(pglite);
  pglite.query = query;
  pglite.exec = exec;
  pglite.transaction = (async (callback: (tx: Queryable) => Promise<unknown>) => {
    await nextTurn();
    return transaction((tx) => callback(takingTurnsTx(tx)));
  }) as T['transaction'];
  return pglite;
}

/** How often the local host refreshes PGlite's planner statistics. */
export const PGLITE_ANALYZE_EVERY_MS = 10 * 60_000;
