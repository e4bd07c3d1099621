import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { BatchEnvelope, CONTRACT, type IngestPath, RECORD_PATHS } from '../contract.js';

export const PREFIX = '/metrics';

export interface Recorded {
  path: IngestPath;
  body: Record<string, unknown>;
  at: number;
  /** Set for a record that came in a batch. */
  batchId?: string;
  collectedAt?: string;
  /** A one-object post's body exactly as it arrived. */
  raw?: string;
}

export const BATCH_PATH = '/api/ingest/batch';
/** The service's bound on a batch's decompressed JSON (its default). */
export const MAX_BATCH_JSON = 8 * 1024 * 1024;

export interface RecordedBatch {
  batchId: string;
  records: number;
  /** Bytes as sent (gzip) and decompressed. */
  bytes: number;
  jsonBytes: number;
  gzip: boolean;
  duplicate: boolean;
  at: number;
}

export interface IngestOptions {
  /** Validate bodies against the contract (off in the bench, where the sink must be cheap). */
  validate?: boolean;
  /** Paths answering 500 {"error":...}, like a ClickHouse failure. */
  failing?: Set<IngestPath>;
  /** Per-path delay before answering. */
  slowMs?: Partial<Record<IngestPath, number>>;
  /** Paths that never answer their first request (until close). */
  hangOnce?: Set<IngestPath>;
  port?: number;
  /** Serve the batch route, as finwatch's metrics service does (off: 404 there, as the original API). */
  batch?: boolean;
  /** Answer the n-th batch request (1-based) with this status instead of handling it. */
  batchStatus?: (n: number) => number | undefined;
  /** Store the n-th batch request (1-based), then cut the connection instead of answering. */
  dropAnswer?: (n: number) => boolean;
  /** Only this bearer key is accepted (401 otherwise), on every route. */
  key?: string;
}

export interface FakeIngest {
  /** Base URL as an operator must set it: with the `/metrics` route prefix. */
  url: string;
  /** Origin only: a METRICS_API_URL missing the prefix. */
  origin: string;
  port: number;
  accepted: Recorded[];
  /** Every request that reached the server, accepted or not. */
  attempts: Array<{ path: string; at: number; authorization?: string; batchId?: string }>;
  /** Batches stored (first time or duplicate), in arrival order. */
  batches: RecordedBatch[];
  violations: Array<{ path: string; body: unknown; issues: string }>;
  maxInFlight: number;
  close(): Promise<void>;
}

function safeGunzip(raw: Buffer): string {
  try {
    return gunzipSync(raw, { maxOutputLength: MAX_BATCH_JSON }).toString('utf8', 0, 200);
  } catch {
    return '';
  }
}

export async function startFakeIngest(options: IngestOptions = {}): Promise<FakeIngest> {
  const validate = options.validate ?? true;
  const accepted: Recorded[] = [];
  const attempts: FakeIngest['attempts'] = [];
  const violations: FakeIngest['violations'] = [];
  const batches: RecordedBatch[] = [];
  const stored = new Set<string>();
  let batchRequests = 0;
  const state = { inFlight: 0, maxInFlight: 0 };
  const hung: ServerResponse[] = [];

  const reply = (res: ServerResponse, code: number, body: unknown): void => {
    res.writeHead(code, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  const problem = (res: ServerResponse, code: number, title: string, errors?: unknown): undefined => {
    res.writeHead(code, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ status: code, title, ...(errors ? { errors } : {}) }));
    return undefined;
  };

  /** The batch route as the wire format fixes it: envelope, records and all-or-nothing answers. */
  const handleBatch = (req: IncomingMessage, res: ServerResponse, raw: Buffer): undefined => {
    const n = ++batchRequests;
    const forced = options.batchStatus?.(n);
    if (forced) return problem(res, forced, `forced ${forced}`);
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return problem(res, 415, 'Unsupported Media Type');
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding !== 'gzip') return problem(res, 415, 'Unsupported encoding');
    let json: Buffer;
    try {
      json = encoding === 'gzip' ? gunzipSync(raw, { maxOutputLength: MAX_BATCH_JSON }) : raw;
    } catch {
      return problem(res, 413, 'Batch too large or not gzip');
    }
    if (json.length > MAX_BATCH_JSON) return problem(res, 413, 'Batch too large');
    let body: unknown;
    try {
      body = JSON.parse(json.toString('utf8'));
    } catch {
      return problem(res, 400, 'invalid JSON');
    }
    if (!validate) {
      // The bench's sink: count, answer, store nothing.
      const { batchId, records } = body as { batchId: string; records: unknown[] };
      reply(res, 200, { success: true, batchId, records: records.length, duplicate: false });
      return;
    }
    const parsed = BatchEnvelope.safeParse(body);
    if (!parsed.success) {
      violations.push({ path: BATCH_PATH, body, issues: JSON.stringify(parsed.error.issues.slice(0, 5)) });
      return problem(res, 422, 'Invalid batch', parsed.error.issues.slice(0, 5));
    }
    const envelope = parsed.data;
    const id = `${envelope.clusterName.toLowerCase()}/${envelope.batchId}`;
    const duplicate = stored.has(id);
    batches.push({
      batchId: envelope.batchId,
      records: envelope.records.length,
      bytes: raw.length,
      jsonBytes: json.length,
      gzip: encoding === 'gzip',
      duplicate,
      at: Date.now(),
    });
    if (!duplicate) {
      stored.add(id);
      for (const record of envelope.records) {
        accepted.push({
          path: RECORD_PATHS[record.kind],
          body: record.data,
          at: Date.now(),
          batchId: envelope.batchId,
          collectedAt: record.collectedAt,
        });
      }
    }
    if (options.dropAnswer?.(n)) {
      res.socket?.destroy();
      return;
    }
    reply(res, 200, {
      success: true,
      batchId: envelope.batchId,
      records: envelope.records.length,
      duplicate,
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://ingest');
    if (req.method === 'GET' && url.pathname === `${PREFIX}/api/Version`) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('1.0.0.0');
      return;
    }
    if (req.method !== 'POST' || !url.pathname.startsWith(`${PREFIX}/api/`)) return reply(res, 404, {});
    const authorization = req.headers.authorization;
    const route = url.pathname.slice(PREFIX.length);
    if (route === BATCH_PATH && !options.batch) {
      attempts.push({ path: route, at: Date.now() });
      return reply(res, 404, {});
    }
    if (route === BATCH_PATH) {
      const batchId = /"batchId":"([^"]+)"/.exec(
        req.headers['content-encoding'] === 'gzip' ? safeGunzip(raw) : raw.toString('utf8', 0, 200),
      )?.[1];
      attempts.push({
        path: route,
        at: Date.now(),
        ...(authorization ? { authorization } : {}),
        ...(batchId ? { batchId } : {}),
      });
      if (options.key !== undefined && authorization !== `Bearer ${options.key}`) {
        return problem(res, 401, 'Unauthorized');
      }
      return handleBatch(req, res, raw);
    }
    const path = route as IngestPath;
    const schema = CONTRACT[path];
    if (!schema) return reply(res, 404, {});
    attempts.push({ path, at: Date.now(), ...(authorization ? { authorization } : {}) });
    if (options.key !== undefined && authorization !== `Bearer ${options.key}`) {
      return reply(res, 401, {});
    }
    if (options.hangOnce?.delete(path)) {
      hung.push(res);
      return;
    }
    const delay = options.slowMs?.[path];
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return reply(res, 415, {});
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return reply(res, 400, { error: 'invalid JSON' });
    }
    if (validate) {
      const result = Array.isArray(body) ? undefined : schema.safeParse(body);
      if (!result?.success) {
        violations.push({ path, body, issues: result ? JSON.stringify(result.error.issues) : 'array body' });
        return reply(res, 400, { title: 'One or more validation errors occurred.' });
      }
    }
    if (options.failing?.has(path)) return reply(res, 500, { error: 'ClickHouse: connection reset' });
    accepted.push({ path, body: body as Record<string, unknown>, at: Date.now(), raw: raw.toString('utf8') });
    reply(res, 200, { success: true });
  };

  const server = createServer((req, res) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.on('close', () => state.inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch((e) => reply(res, 500, { error: String(e) }));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${PREFIX}`,
    origin,
    port,
    accepted,
    attempts,
    batches,
    violations,
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
