import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

/** Azurite's well-known development account (public, documented by Microsoft). */
const ACCOUNT = 'devstoreaccount1';
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface Azurite {
  connectionString: string;
  port: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`Azurite exited with code ${child.exitCode}`));
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline)
          reject(new Error(`Azurite did not listen on port ${port} within ${timeoutMs} ms`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/**
 * Starts Azurite's queue service (or its blob service: cost imports read exports from blobs), the
 * official Azure Storage emulator from node_modules, on a free loopback port, in its own process,
 * storing under `location` (or in memory).
 */
export async function startAzurite(
  options: { location?: string; port?: number; service?: 'queue' | 'blob' } = {},
): Promise<Azurite> {
  const service = options.service ?? 'queue';
  const require = createRequire(import.meta.url);
  const main = path.join(
    path.dirname(require.resolve('azurite/package.json')),
    'dist',
    'src',
    service,
    'main.js',
  );
  const port = options.port ?? (await freePort());
  const args = [
    main,
    `--${service}Host`,
    '127.0.0.1',
    `--${service}Port`,
    String(port),
    '--skipApiVersionCheck',
    '--loose',
    '--silent',
    '--disableTelemetry',
  ];
  if (options.location) {
    mkdirSync(options.location, { recursive: true });
    args.push('--location', options.location);
  } else {
    args.push('--inMemoryPersistence');
  }
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr = (stderr + String(d)).slice(-2000);
  });
  try {
    await waitForPort(port, child, 20_000);
  } catch (e) {
    child.kill();
    throw new Error(`${(e as Error).message}${stderr ? `: ${stderr}` : ''}`);
  }
  return {
    port,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${KEY};${service === 'blob' ? 'BlobEndpoint' : 'QueueEndpoint'}=http://127.0.0.1:${port}/${ACCOUNT};`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
