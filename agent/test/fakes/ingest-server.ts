import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTRACT, type IngestPath } from '../contract.js';

export const PREFIX = '/metrics';

export interface Recorded {
  path: IngestPath;
  body: Record<string, unknown>;
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
}

export interface FakeIngest {
  /** Base URL as an operator must set it: with the `/metrics` route prefix. */
  url: string;
  /** Origin only: a METRICS_API_URL missing the prefix. */
  origin: string;
  port: number;
  accepted: Recorded[];
  /** Every request that reached the server, accepted or not. */
  attempts: Array<{ path: string; at: number }>;
  violations: Array<{ path: string; body: unknown; issues: string }>;
  maxInFlight: number;
  close(): Promise<void>;
}

export async function startFakeIngest(options: IngestOptions = {}): Promise<FakeIngest> {
  const validate = options.validate ?? true;
  const accepted: Recorded[] = [];
  const attempts: FakeIngest['attempts'] = [];
  const violations: FakeIngest['violations'] = [];
  const state = { inFlight: 0, maxInFlight: 0 };
  const hung: ServerResponse[] = [];

  const reply = (res: ServerResponse, code: number, body: unknown): void => {
    res.writeHead(code, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://ingest');
    if (req.method === 'GET' && url.pathname === `${PREFIX}/api/Version`) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('1.0.0.0');
      return;
    }
    if (req.method !== 'POST' || !url.pathname.startsWith(`${PREFIX}/api/`)) return reply(res, 404, {});
    const path = url.pathname.slice(PREFIX.length) as IngestPath;
    const schema = CONTRACT[path];
    if (!schema) return reply(res, 404, {});
    attempts.push({ path, at: Date.now() });
    if (options.hangOnce?.delete(path)) {
      hung.push(res);
      return;
    }
    const delay = options.slowMs?.[path];
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return reply(res, 415, {});
    let body: unknown;
    try {
      body = JSON.parse(raw);
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
    accepted.push({ path, body: body as Record<string, unknown>, at: Date.now() });
    reply(res, 200, { success: true });
  };

  const server = createServer((req, res) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.on('close', () => state.inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((e) =>
        reply(res, 500, { error: String(e) }),
      );
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
