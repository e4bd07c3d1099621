/**
 * Whether an error means "the database cannot answer now" (unreachable, frozen, timed out,
 * restarting, out of connections) rather than a fault of the request or of our code. Such errors
 * become 503 with Retry-After: the client may try again, nothing about its request was wrong.
 *
 * Errors arrive in three forms: pg's own (plain Errors from pg / pg-pool, with Node's socket codes),
 * PostgreSQL's SQLSTATE codes (through pg, or inside Prisma's `meta.driverAdapterError.cause`), and
 * Prisma's P1xxx / P2024 codes.
 */

/** PostgreSQL SQLSTATEs: 57014 statement timeout, 25P03 idle-in-transaction timeout, class 08 connection exceptions, 53300 too many connections, 57P01..57P05 shutdown/restart/cannot connect now. */
const SQLSTATES = new Set(['57014', '25P03', '53300', '57P01', '57P02', '57P03', '57P05']);
const SQLSTATE_CLASSES = ['08'];

/** Node socket errors on the way to the server. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** Prisma: P1001 can't reach, P1002 timed out, P1008 operation timed out, P1017 connection closed, P2024 pool timeout. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** Messages of pg and pg-pool that carry no code. */
const PG_MESSAGES = [
  /^Query read timeout$/,
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
];

/** Driver-adapter error kinds that mean the server could not be used. */
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

function codeIsUnavailable(code: unknown): boolean {
  if (typeof code !== 'string') return false;
  return (
    SQLSTATES.has(code) ||
    SQLSTATE_CLASSES.some((c) => code.length === 5 && code.startsWith(c)) ||
    SOCKET_CODES.has(code) ||
    PRISMA_CODES.has(code)
  );
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const e = error as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    kind?: unknown;
    originalCode?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: { cause?: unknown } };
  };
  if (e.name === 'PrismaClientInitializationError') return true;
  if (codeIsUnavailable(e.code) || codeIsUnavailable(e.originalCode)) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === 'string' && PG_MESSAGES.some((re) => re.test(e.message as string))) return true;
  return (
    isDatabaseUnavailable(e.meta?.driverAdapterError?.cause, depth + 1) ||
    isDatabaseUnavailable(e.cause, depth + 1)
  );
}
