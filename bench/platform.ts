// Platform benchmark: requests/s of GET /finops/api/Version through the local host against a bare
// node:http server answering the same JSON (the ratio is the figure; aim 0.5 or better), and the
// time from process start to the first 200 answer of `npm start`'s entry.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { APP_VERSION } from '../shared/app/version.js';
import { startBenchHost } from './bench-host.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 20;

async function load(url: string, headers: Record<string, string> = {}) {
  // The load generator runs in a worker thread so it does not share the server's event loop.
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers, workers: 1 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}

async function bareServer() {
  const body = JSON.stringify(APP_VERSION);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function timeToFirst200(): Promise<number> {
  const port = 7000 + Math.floor(Math.random() * 900);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('../dev/start.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: 'memory://',
        AzureSimulator__Enabled: 'false',
        Logging__LogLevel__Default: 'Warning',
      },
      stdio: 'ignore',
    },
  );
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/finops/api/Version`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const host = await startBenchHost();
const bare = await bareServer();
try {
  const headers = { accept: 'application/json' };
  await load(`${host.url}/finops/api/Version`, headers); // warm-up
  const viaHost = await load(`${host.url}/finops/api/Version`, headers);
  const viaBare = await load(bare.url, headers);
  const startup = await timeToFirst200();
  console.log(`\nplatform bench (${DURATION}s per run, ${CONNECTIONS} connections, node ${process.version})`);
  console.table([
    {
      target: 'local host GET /finops/api/Version',
      'req/s': Math.round(viaHost.rps),
      'p50 ms': viaHost.p50,
      'p99 ms': viaHost.p99,
      errors: viaHost.non2xx,
    },
    {
      target: 'bare node:http, same JSON',
      'req/s': Math.round(viaBare.rps),
      'p50 ms': viaBare.p50,
      'p99 ms': viaBare.p99,
      errors: viaBare.non2xx,
    },
  ]);
  console.log(`ratio local host / bare: ${(viaHost.rps / viaBare.rps).toFixed(2)} (aim >= 0.5)`);
  console.log(
    `process start to first 200 (npm start entry, PGlite in memory, Azurite): ${Math.round(startup)} ms`,
  );
} finally {
  bare.close();
  await host.close();
}
