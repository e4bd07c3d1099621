import { int } from './fields.js';

/**
 * Timeouts of the PostgreSQL connections (PGlite is in-process and ignores them). Part of the
 * platform settings; kept apart because they belong together.
 */
export const databaseSettingsShape = {
  /** Opening a connection (or waiting for one from the pool). */
  Database__ConnectTimeoutSeconds: int(10, 1, 600),
  /**
   * One statement of a request. 30 s is the command timeout the original's EF Core had (SQL Server's
   * default), so no query that worked there is cut short here.
   */
  Database__StatementTimeoutSeconds: int(30, 1, 3600),
  /** A session left idle inside an open transaction (a host that froze mid-transaction). */
  Database__IdleInTransactionTimeoutSeconds: int(60, 1, 3600),
  /** The analysis write (one transaction of up to hundreds of thousands of rows) and migrations. */
  Database__LongStatementTimeoutSeconds: int(900, 1, 7200),
};
