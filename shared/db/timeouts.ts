import type { ClientConfig } from 'pg';
import type { PlatformSettings } from '../config/platform.js';

/** The PostgreSQL timeouts of one process, in milliseconds. */
export interface DatabaseTimeouts {
  connectMs: number;
  statementMs: number;
  idleInTransactionMs: number;
  /** For the connections that write a whole analysis run or apply migrations. */
  longStatementMs: number;
}

export function databaseTimeouts(settings: PlatformSettings): DatabaseTimeouts {
  return {
    connectMs: settings.Database__ConnectTimeoutSeconds * 1000,
    statementMs: settings.Database__StatementTimeoutSeconds * 1000,
    idleInTransactionMs: settings.Database__IdleInTransactionTimeoutSeconds * 1000,
    longStatementMs: settings.Database__LongStatementTimeoutSeconds * 1000,
  };
}

/**
 * A frozen server cannot enforce its own statement_timeout, so the client also gives up on a
 * statement (query_timeout) a little after the server would have: normally the server's clean
 * cancel (57014) wins; on a frozen server or a dead network the client's timer does.
 */
const CLIENT_MARGIN_MS = 2_000;

/** pg connection options for the given statement budget (`long`: analysis writes, migrations). */
export function pgTimeoutOptions(
  t: DatabaseTimeouts,
  kind: 'request' | 'long' = 'request',
): Pick<
  ClientConfig,
  'connectionTimeoutMillis' | 'statement_timeout' | 'query_timeout' | 'idle_in_transaction_session_timeout'
> {
  const statement = kind === 'long' ? t.longStatementMs : t.statementMs;
  return {
    connectionTimeoutMillis: t.connectMs,
    statement_timeout: statement,
    query_timeout: statement + CLIENT_MARGIN_MS,
    idle_in_transaction_session_timeout: t.idleInTransactionMs,
  };
}
