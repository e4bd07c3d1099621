// The read bench's load generator in a process of its own: a client reading answers of a
// megabyte at 10 connections costs as much CPU as the host writing them, so when both share one
// process (and one core) the host's p99 measures the generator too. The parent sends one
// measurement at a time over IPC and gets the figures back; its own CPU time is then the host's
// alone. undici loops by default (unpaged flags, 1.3 MiB identity: p99 87 ms against autocannon's
// 133 ms, same host, load 1.3-1.7); BENCH_LOADGEN=autocannon for the earlier generator.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Pool } from 'undici';

export interface LoadRequest {
  url: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  timeoutSeconds: number;
  /** Connection i sends `authorization: Bearer tokens[i % tokens.length]` (one user per token). */
  tokens?: string[];
  /** POST these bodies, one per request, in turn (default: GET without a body). */
  bodies?: Array<string | Uint8Array>;
  /** Send each body once, then stop (`seconds` is then ignored). */
  once?: boolean;
}

export interface LoadResult {
  requests: number;
  bytes: number;
  p50: number;
  p99: number;
  timeouts: number;
  failures: number;
  /** Answers 429 (a heavy route's per-user limit): neither timed nor failures. */
  refused: number;
  /** From the first request sent to the last answer read. */
  elapsedMs: number;
}

/**
 * `connections` loops on undici keep-alive connections, each sending the next request when its
 * answer is read: undici's parser reads a megabyte answer in a fraction of autocannon's time, so the
 * latency of large answers is the host's rather than this process's reading.
 */
async function undiciLoad(req: LoadRequest): Promise<LoadResult> {
  const url = new URL(req.url);
  const pool = new Pool(url.origin, {
    connections: req.connections,
    headersTimeout: req.timeoutSeconds * 1000,
    bodyTimeout: req.timeoutSeconds * 1000,
  });
  const latencies: number[] = [];
  let bytes = 0;
  let failures = 0;
  let timeouts = 0;
  let refused = 0;
  const started = performance.now();
  const end = started + req.seconds * 1000;
  let sent = 0;
  const nextBody = () => req.bodies?.[sent++ % req.bodies.length];
  const more = () => (req.once ? sent < (req.bodies?.length ?? 0) : performance.now() < end);
  const loop = async (i: number) => {
    const token = req.tokens?.[i % req.tokens.length];
    const headers = token ? { ...req.headers, authorization: `Bearer ${token}` } : req.headers;
    // Every connection completes at least one answer, however short the window.
    if (req.once && sent >= (req.bodies?.length ?? 0)) return;
    do {
      const t = performance.now();
      try {
        const body = nextBody();
        const res = await pool.request({
          method: body === undefined ? 'GET' : 'POST',
          path: url.pathname + url.search,
          headers,
          body,
        });
        let answerBytes = 0;
        for await (const chunk of res.body) answerBytes += (chunk as Buffer).length;
        if (res.statusCode === 429) {
          refused++;
          continue;
        }
        if (res.statusCode >= 300) failures++;
        bytes += answerBytes;
        latencies.push(performance.now() - t);
      } catch (err) {
        if ((err as { code?: string }).code?.includes('TIMEOUT')) timeouts++;
        else failures++;
      }
    } while (more());
  };
  await Promise.all(Array.from({ length: req.connections }, (_, i) => loop(i)));
  const elapsedMs = performance.now() - started;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies.length
      ? Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * p) - 1)]!)
      : 0;
  return {
    requests: latencies.length,
    bytes,
    p50: at(0.5),
    p99: at(0.99),
    timeouts,
    failures,
    refused,
    elapsedMs,
  };
}

async function runLoad(req: LoadRequest): Promise<LoadResult> {
  if (process.env.BENCH_LOADGEN !== 'autocannon' || req.tokens || req.bodies) return undiciLoad(req);
  const r = await autocannon({
    url: req.url,
    connections: req.connections,
    duration: req.seconds,
    headers: req.headers,
    timeout: req.timeoutSeconds,
  });
  return {
    requests: r.requests.total,
    bytes: r.throughput.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    timeouts: r.timeouts,
    failures: r.non2xx + r.errors,
    refused: 0,
    elapsedMs: req.seconds * 1000,
  };
}

/** Starts the child; `measure` runs one load in it, `stop` ends it. */
export function startLoadGenerator(): {
  measure(req: LoadRequest): Promise<LoadResult>;
  stop(): void;
} {
  // In a bundled bench this module is part of the bundle: the child runs its source instead.
  const source = process.env.FINWATCH_BENCH_BUNDLED
    ? `${process.env.FINWATCH_BENCH_ROOT}/bench/load-generator.ts`
    : fileURLToPath(import.meta.url);
  const child = fork(source, ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Structured clone: request bodies may be bytes (gzip batches).
    serialization: 'advanced',
  });
  let pending: { resolve: (r: LoadResult) => void; reject: (e: Error) => void } | undefined;
  child.on('message', (m: { result?: LoadResult; error?: string }) => {
    const p = pending;
    pending = undefined;
    if (m.error) p?.reject(new Error(m.error));
    else if (m.result) p?.resolve(m.result);
  });
  child.on('exit', (code) => pending?.reject(new Error(`load generator exited with ${code}`)));
  return {
    measure(req) {
      if (pending) return Promise.reject(new Error('one load at a time'));
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        child.send(req);
      });
    },
    stop: () => child.kill(),
  };
}

if (process.argv.includes('--child')) {
  process.on('message', (req: LoadRequest) => {
    runLoad(req).then(
      (result) => process.send?.({ result }),
      (err: Error) => process.send?.({ error: err.message }),
    );
  });
}
