/**
 * The single-analysis gate (design.md "Queue, gate, timer"): every analysis, sync, async or weekly,
 * runs inside it, so one analysis (and so one stream of cost queries) runs at a time.
 *
 * - In-process: a mutex (async-mutex: callers run in arrival order).
 * - Across instances (PostgreSQL): a session-level advisory lock held on ONE dedicated connection
 *   (a pg.Client opened for the analysis, not a pooled Prisma connection, so lock and unlock are on the
 *   same session). It is taken with pg_try_advisory_lock in a poll loop, so a waiter can give up
 *   when the host closes. If the host dies, PostgreSQL ends the session and frees the lock.
 * - PGlite is in-process and single-connection: only one process can open its data directory, so
 *   the in-process mutex already covers everything that can reach that database.
 */
import { Mutex } from 'async-mutex';
import pg from 'pg';
import { sleep } from '../../app/sleep.js';
import type { DatabaseTimeouts } from '../../db/timeouts.js';
import type { Logger } from '../../observability/logger.js';
import { AnalysisAborted } from './errors.js';

/** pg_advisory_lock key of the analysis gate (any constant bigint; "finwatch" in ASCII). */
export const GATE_LOCK_KEY = 0x66696e7761746368n;

export interface GateOptions {
  /** A postgres:// URL turns the advisory lock on; undefined (PGlite) keeps the in-process mutex only. */
  postgresUrl?: string | undefined;
  /** Connect and statement bounds of the lock's connection (it is never inside a transaction). */
  timeouts?: DatabaseTimeouts | undefined;
  log: Logger;
  pollMs?: number;
}

export class AnalysisGate {
  /** async-mutex's waiters are served in arrival order. */
  private readonly mutex = new Mutex();
  private readonly pollMs: number;

  constructor(private readonly opts: GateOptions) {
    this.pollMs = opts.pollMs ?? 500;
  }

  /** Runs `fn` once the gate is ours; `signal` aborts the wait (AnalysisAborted). */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.mutex.acquire();
    let client: pg.Client | undefined;
    try {
      if (signal?.aborted) throw new AnalysisAborted();
      if (this.opts.postgresUrl) client = await this.lockAcrossInstances(this.opts.postgresUrl, signal);
      return await fn();
    } finally {
      if (client) {
        await client
          .query('SELECT pg_advisory_unlock($1)', [GATE_LOCK_KEY.toString()])
          .catch(() => undefined);
        await client.end().catch(() => undefined);
      }
      release();
    }
  }

  private async lockAcrossInstances(url: string, signal?: AbortSignal): Promise<pg.Client> {
    const t = this.opts.timeouts;
    const client = new pg.Client({
      connectionString: url,
      application_name: 'finwatch-analysis-gate',
      ...(t ? { connectionTimeoutMillis: t.connectMs, query_timeout: t.statementMs } : {}),
    });
    client.on('error', (err) => this.opts.log.warn({ err }, 'analysis gate connection error'));
    await client.connect();
    try {
      let logged = false;
      for (;;) {
        const r = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
          GATE_LOCK_KEY.toString(),
        ]);
        if (r.rows[0]?.locked) return client;
        if (!logged) {
          this.opts.log.info('another instance is running an analysis; waiting for the gate');
          logged = true;
        }
        if (signal?.aborted) throw new AnalysisAborted();
        await sleep(this.pollMs, signal);
      }
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }
}
