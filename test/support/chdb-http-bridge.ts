import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, gzip, inflate } from 'node:zlib';
import type { RawInsertFormat, Session } from 'chdb';

// chDB's engine is published on npm for Linux x64 (glibc) only (@chdb/lib-linux-x64-gnu): elsewhere
// the import fails and the ClickHouse tests are skipped, saying why.
let chdb: typeof import('chdb') | undefined;
try {
  chdb = await import('chdb');
} catch {
  chdb = undefined;
}
/** Whether chDB loads on this machine (Linux x64 with glibc). */
export const CHDB_AVAILABLE = chdb !== undefined;

/**
 * A loopback stand-in for a ClickHouse server's HTTP interface (port 8123), executing every
 * statement in chDB: the ClickHouse engine as a library, in this process. The store under test
 * talks to it through the real @clickhouse/client, so the SQL, the settings, the formats and the
 * errors are the ones a server gets and gives; only the transport's host is different.
 *
 * It answers what the client sends (read from @clickhouse/client 1.x, node_base_connection.ts and
 * socket_pool.ts) and what the HTTP interface documents
 * (https://clickhouse.com/docs/interfaces/http):
 * - `GET /ping` and `GET /` → `Ok.\n`;
 * - the statement in the `query` URL parameter, in the body, or begun in the parameter and
 *   continued in the body (an INSERT's rows: `query=INSERT INTO t FORMAT JSONEachRow`, rows in the
 *   body), the body optionally compressed (`Content-Encoding: gzip | deflate | br`);
 * - `database`, `default_format`, `query_id`, `param_<name>` (query parameters, passed to the
 *   engine in the escaped text form the client already sends) and any other URL parameter as a
 *   setting for that statement only;
 * - credentials as `Authorization: Basic`, `X-ClickHouse-User`/`X-ClickHouse-Key` or `user`/
 *   `password` parameters, checked when the bridge is given a user;
 * - answers with `X-ClickHouse-Query-Id`, `X-ClickHouse-Format`, `X-ClickHouse-Timezone`,
 *   `X-ClickHouse-Summary` (counters as strings), gzip/deflate/br when `enable_http_compression=1`
 *   and `Accept-Encoding` allow it;
 * - errors as the server reports them: the body `Code: NNN. DB::Exception: … (NAME) (version …)`,
 *   the `X-ClickHouse-Exception-Code` header and the status the server maps the code to
 *   (ClickHouse's exceptionCodeToHTTPStatus: 400 for syntax and parse errors, 403 for
 *   authentication, 404 for unknown tables, databases, settings…, 500 otherwise).
 *
 * Not reproduced: server sessions (`session_id` is ignored: every request shares the one engine
 * connection), the read-only rule for GET, refusing several statements in one request, streaming
 * a result while it is computed (results are sent whole, so there is no mid-stream exception).
 * Statements run one at a time, since settings and the current database belong to the engine
 * connection and are set before each statement and reset after it.
 */
export interface ChdbHttpBridge {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** The engine session, for assertions that look under the HTTP interface. */
  readonly session: Session;
  /** Every statement received, in order (for tests that count round trips). */
  readonly statements: string[];
  close(): Promise<void>;
}

export interface ChdbHttpBridgeOptions {
  /** When set, requests must carry these credentials (else code 516, HTTP 403). */
  user?: string;
  password?: string;
}

// chDB binds one data directory per process: every bridge in a test file shares one session.
let shared: { session: Session; dir: string; timezone: string; version: string } | undefined;

function engine() {
  if (!shared) {
    if (!chdb)
      throw new Error('chDB does not load on this platform (its engine is published for Linux x64 only)');
    const dir = mkdtempSync(join(tmpdir(), 'finwatch-chdb-'));
    const session = new chdb.Session(dir);
    const [version = '', timezone = 'UTC'] = session
      .query('SELECT version(), timezone()', 'TabSeparated')
      .trim()
      .split('\t');
    shared = { session, dir, timezone, version };
    process.once('exit', () => {
      session.close();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  return shared;
}

// URL parameters the HTTP handler consumes itself rather than passing on as settings.
const HTTP_PARAMS = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'session_id',
  'session_timeout',
  'session_check',
  'user',
  'password',
  'quota_key',
  'role',
  'buffer_size',
  'wait_end_of_query',
  'compress',
  'decompress',
  'enable_http_compression',
]);

// ClickHouse's exceptionCodeToHTTPStatus, by error name (the name ends every message).
const STATUS_BY_ERROR = new Map<string, number>([
  ['REQUIRED_PASSWORD', 401],
  ...['UNKNOWN_USER', 'WRONG_PASSWORD', 'AUTHENTICATION_FAILED', 'SET_NON_GRANTED_ROLE', 'ACCESS_DENIED'].map(
    (n) => [n, 403] as [string, number],
  ),
  ...[
    'BAD_ARGUMENTS',
    'CANNOT_COMPILE_REGEXP',
    'CANNOT_PARSE_TEXT',
    'CANNOT_PARSE_ESCAPE_SEQUENCE',
    'CANNOT_PARSE_QUOTED_STRING',
    'CANNOT_PARSE_DATE',
    'CANNOT_PARSE_DATETIME',
    'CANNOT_PARSE_NUMBER',
    'CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING',
    'CANNOT_PARSE_IPV4',
    'CANNOT_PARSE_IPV6',
    'CANNOT_PARSE_INPUT_ASSERTION_FAILED',
    'CANNOT_PARSE_UUID',
    'DUPLICATE_COLUMN',
    'ILLEGAL_COLUMN',
    'UNKNOWN_ELEMENT_IN_AST',
    'UNKNOWN_TYPE_OF_AST_NODE',
    'THERE_IS_NO_COLUMN',
    'TOO_DEEP_AST',
    'TOO_BIG_AST',
    'UNEXPECTED_AST_STRUCTURE',
    'SYNTAX_ERROR',
    'INCORRECT_DATA',
    'TYPE_MISMATCH',
    'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
  ].map((n) => [n, 400] as [string, number]),
  ...[
    'UNKNOWN_TABLE',
    'UNKNOWN_FUNCTION',
    'UNKNOWN_IDENTIFIER',
    'UNKNOWN_TYPE',
    'UNKNOWN_STORAGE',
    'UNKNOWN_DATABASE',
    'UNKNOWN_SETTING',
    'UNKNOWN_DIRECTION_OF_SORTING',
    'UNKNOWN_AGGREGATE_FUNCTION',
    'UNKNOWN_FORMAT',
    'UNKNOWN_DATABASE_ENGINE',
    'UNKNOWN_TYPE_OF_QUERY',
    'UNKNOWN_ROLE',
  ].map((n) => [n, 404] as [string, number]),
  ['QUERY_IS_TOO_LARGE', 413],
  ['NOT_IMPLEMENTED', 501],
  ['SOCKET_TIMEOUT', 503],
  ['CANNOT_OPEN_FILE', 503],
  ['CANNOT_SCHEDULE_TASK', 503],
  ['TIMEOUT_EXCEEDED', 408],
  ['UNSUPPORTED_MEDIA_TYPE', 415],
]);

class ClickHouseException extends Error {
  constructor(
    readonly code: number,
    readonly errorName: string,
    message: string,
  ) {
    super(message);
  }
}

/** An engine error as the server words it: `Code: N. DB::Exception: text. (NAME)`. */
function asException(e: unknown): ClickHouseException {
  if (e instanceof ClickHouseException) return e;
  const raw = e instanceof Error ? e.message : String(e);
  const at = raw.indexOf('Code: ');
  const text = at >= 0 ? raw.slice(at) : `Code: 1001. DB::Exception: ${raw}. (STD_EXCEPTION)`;
  const code = Number(/^Code: (\d+)/.exec(text)?.[1] ?? 1001);
  const name = /\(([A-Z0-9_]{3,})\)\s*(\(version [^)]*\))?\s*$/.exec(text.trim())?.[1] ?? 'STD_EXCEPTION';
  return new ClickHouseException(code, name, text.trim());
}

const decompressors: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  const encoding = req.headers['content-encoding']?.toLowerCase();
  if (!encoding || encoding === 'identity' || body.length === 0) return body;
  const decompress = decompressors[encoding];
  if (!decompress) {
    throw new ClickHouseException(
      48,
      'NOT_IMPLEMENTED',
      `Code: 48. DB::Exception: Unknown HTTP Content-Encoding: ${encoding}. (NOT_IMPLEMENTED)`,
    );
  }
  return decompress(body);
}

function credentials(req: IncomingMessage, params: URLSearchParams): { user: string; password: string } {
  const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  const headerUser = req.headers['x-clickhouse-user'];
  if (typeof headerUser === 'string') {
    return { user: headerUser, password: String(req.headers['x-clickhouse-key'] ?? '') };
  }
  return { user: params.get('user') ?? 'default', password: params.get('password') ?? '' };
}

// `INSERT INTO db.table (a, b) FORMAT JSONEachRow`: the prefix @clickhouse/client puts in the URL.
const INSERT_PREFIX =
  /^\s*INSERT\s+INTO\s+([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?)\s*(?:\(([^)]*)\))?\s*FORMAT\s+([A-Za-z]+)\s*$/i;
const RAW_FORMATS = new Set<string>([
  'JSONEachRow',
  'JSONCompactEachRow',
  'TSV',
  'TabSeparated',
  'TSVWithNames',
  'TabSeparatedWithNames',
  'CSV',
  'CSVWithNames',
]);
const TRAILING_FORMAT = /\bFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$/i;

function contentType(format: string): string {
  if (/^JSON(Compact)?(Strings)?(Columns)?$|^JSONObjectEachRow$/i.test(format)) {
    return 'application/json; charset=UTF-8';
  }
  if (/EachRow/i.test(format)) return 'application/x-ndjson; charset=UTF-8';
  if (/^(TSV|TabSeparated)/i.test(format)) return 'text/tab-separated-values; charset=UTF-8';
  if (/^CSV/i.test(format)) return 'text/csv; charset=UTF-8; header=absent';
  return 'text/plain; charset=UTF-8';
}

/** A single-quoted SQL string literal holding `value` byte for byte. */
function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function quoteIdentifier(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

interface Outcome {
  body: Buffer;
  format: string;
  summary: Record<string, string>;
}

export async function startChdbHttpBridge(options: ChdbHttpBridgeOptions = {}): Promise<ChdbHttpBridge> {
  const { session, timezone, version } = engine();
  const statements: string[] = [];
  // One statement at a time: settings and the current database are the connection's.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };

  async function execute(params: URLSearchParams, body: Buffer): Promise<Outcome> {
    const urlQuery = params.get('query') ?? '';
    const defaultFormat = params.get('default_format') || 'TabSeparated';
    const settings: Array<[string, string]> = [];
    const queryParams: Array<[string, string]> = [];
    for (const [k, v] of params) {
      if (k.startsWith('param_')) queryParams.push([k, v]);
      else if (!HTTP_PARAMS.has(k)) settings.push([k, v]);
    }
    const started = process.hrtime.bigint();
    const preamble = [
      `USE ${quoteIdentifier(params.get('database') || 'default')}`,
      // A query parameter as a session setting holds the escaped text the client sent, which the
      // engine parses as the placeholder's type: the server's own path for `param_` values.
      ...queryParams.map(([k, v]) => `SET ${quoteIdentifier(k)} = ${sqlString(v)}`),
      ...settings.map(([k, v]) => `SET ${quoteIdentifier(k)} = ${sqlString(v)}`),
    ];
    try {
      await session.queryAsync(preamble.join(';\n'), { format: 'Null' });
      const insert = INSERT_PREFIX.exec(urlQuery);
      if (insert && body.length > 0 && RAW_FORMATS.has(insert[3]!)) {
        statements.push(urlQuery);
        const columns = insert[2]
          ?.split(',')
          .map((c) => c.trim())
          .filter(Boolean);
        const r = await session.insert({
          table: insert[1]!,
          values: body,
          format: insert[3] as RawInsertFormat,
          ...(columns?.length ? { columns } : {}),
        });
        return {
          body: Buffer.alloc(0),
          format: defaultFormat,
          summary: summary({
            written_rows: r.rowsWritten,
            written_bytes: r.bytesWritten,
            result_rows: r.rowsWritten,
            result_bytes: r.bytesWritten,
            started,
          }),
        };
      }
      const sql =
        urlQuery && body.length > 0
          ? `${urlQuery}\n${body.toString('utf8')}`
          : urlQuery || body.toString('utf8');
      if (!sql.trim()) {
        throw new ClickHouseException(
          62,
          'SYNTAX_ERROR',
          'Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)',
        );
      }
      statements.push(sql);
      const format = /^\s*INSERT\b/i.test(sql)
        ? defaultFormat
        : (TRAILING_FORMAT.exec(sql)?.[1] ?? defaultFormat);
      const r = await session.queryAsync(sql, { format: defaultFormat });
      const out = Buffer.from(r.bytes());
      return {
        body: out,
        format,
        summary: summary({
          read_rows: r.rowsRead,
          read_bytes: r.bytesRead,
          result_bytes: out.length,
          started,
        }),
      };
    } finally {
      const reset = settings.map(([k]) => `SET ${quoteIdentifier(k)} = DEFAULT`);
      if (reset.length) await session.queryAsync(reset.join(';\n'), { format: 'Null' });
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const queryId = url.searchParams.get('query_id') || randomUUID();
    const baseHeaders = {
      'X-ClickHouse-Server-Display-Name': 'chdb-bridge',
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Timezone': timezone,
      'Keep-Alive': 'timeout=10',
    };
    try {
      if (
        url.pathname === '/ping' ||
        (url.pathname === '/' && req.method === 'GET' && !url.searchParams.has('query'))
      ) {
        req.resume();
        res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n');
        return;
      }
      if (url.pathname !== '/') {
        req.resume();
        res
          .writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' })
          .end('There is no handle ' + url.pathname + '\n');
        return;
      }
      if (options.user !== undefined) {
        const { user, password } = credentials(req, url.searchParams);
        if (user !== options.user || password !== (options.password ?? '')) {
          req.resume();
          throw new ClickHouseException(
            516,
            'AUTHENTICATION_FAILED',
            `Code: 516. DB::Exception: ${user}: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)`,
          );
        }
      }
      if (url.searchParams.get('decompress') === '1' || url.searchParams.get('compress') === '1') {
        throw new ClickHouseException(
          48,
          'NOT_IMPLEMENTED',
          'Code: 48. DB::Exception: ClickHouse native compression over HTTP is not available in this test bridge. (NOT_IMPLEMENTED)',
        );
      }
      const body = await readBody(req);
      const outcome = await exclusive(() => execute(url.searchParams, body));
      let payload = outcome.body;
      const headers: Record<string, string> = {
        ...baseHeaders,
        'Content-Type': contentType(outcome.format),
        'X-ClickHouse-Format': outcome.format,
        'X-ClickHouse-Summary': JSON.stringify(outcome.summary),
      };
      const accept = String(req.headers['accept-encoding'] ?? '');
      if (url.searchParams.get('enable_http_compression') === '1' && /\bgzip\b/.test(accept)) {
        payload = await promisify(gzip)(payload);
        headers['Content-Encoding'] = 'gzip';
      }
      res.writeHead(200, headers).end(payload);
    } catch (e) {
      const ex = asException(e);
      const text = /\(version [^)]*\)\s*$/.test(ex.message)
        ? ex.message
        : `${ex.message} (version ${version})`;
      res
        .writeHead(STATUS_BY_ERROR.get(ex.errorName) ?? 500, {
          ...baseHeaders,
          'Content-Type': 'text/plain; charset=UTF-8',
          'X-ClickHouse-Exception-Code': String(ex.code),
        })
        .end(`${text}\n`);
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    session,
    statements,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function summary(s: {
  read_rows?: number;
  read_bytes?: number;
  written_rows?: number;
  written_bytes?: number;
  result_rows?: number;
  result_bytes?: number;
  started: bigint;
}): Record<string, string> {
  return {
    read_rows: String(s.read_rows ?? 0),
    read_bytes: String(s.read_bytes ?? 0),
    written_rows: String(s.written_rows ?? 0),
    written_bytes: String(s.written_bytes ?? 0),
    total_rows_to_read: String(s.read_rows ?? 0),
    result_rows: String(s.result_rows ?? 0),
    result_bytes: String(s.result_bytes ?? 0),
    elapsed_ns: String(process.hrtime.bigint() - s.started),
  };
}
