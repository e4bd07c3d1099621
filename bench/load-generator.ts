// The read bench's load generator in a process of its own: autocannon reading answers of a
// megabyte at 10 clients costs as much CPU as the host writing them, so when both share one
// process (and one core) the host's p99 measures the generator too. The parent sends one
// measurement at a time over IPC and gets autocannon's figures back; its own CPU time is then the
// host's alone.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export interface LoadRequest {
  url: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  timeoutSeconds: number;
}

export interface LoadResult {
  requests: number;
  bytes: number;
  p99: number;
  timeouts: number;
  failures: number;
}

async function runLoad(req: LoadRequest): Promise<LoadResult> {
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
    p99: r.latency.p99,
    timeouts: r.timeouts,
    failures: r.non2xx + r.errors,
  };
}

/** Starts the child; `measure` runs one load in it, `stop` ends it. */
export function startLoadGenerator(): {
  measure(req: LoadRequest): Promise<LoadResult>;
  stop(): void;
} {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
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
