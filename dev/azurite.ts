import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Azurite's well-known development account (public, documented by Microsoft). */
const ACCOUNT = 'devstoreaccount1';
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface Azurite {
  connectionString: string;
  port: number;
  /** The Azurite process. */
  pid: number;
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

const LOCK_FILE = 'finwatch-azurite.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the folder for this process: a lock file holding the pid of the host that runs Azurite on
 * it. A folder held by a live host is refused (two Azurites on one store corrupt it); a lock left
 * by a dead host (kill -9) is reclaimed, since its Azurite died with it.
 */
export function lockAzuriteFolder(location: string): () => void {
  const file = path.join(location, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let holder = Number.NaN;
    try {
      holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
    } catch {
      // Removed meanwhile: try again.
    }
    if (Number.isInteger(holder) && alive(holder)) {
      throw new Error(
        `Azurite's folder ${location} is in use by another finwatch host (pid ${holder}); stop it or use another DATA_DIR.`,
      );
    }
    rmSync(file, { force: true });
  }
  throw new Error(`Could not lock Azurite's folder ${location}.`);
}

/**
 * Starts Azurite's queue service (or its blob service: cost imports read exports from blobs), the
 * official Azure Storage emulator from node_modules, on a free loopback port, in its own process,
 * storing under `location` (or in memory).
 */
export interface AzuriteOptions {
  location?: string;
  port?: number;
  service?: 'queue' | 'blob';
  /** Serve HTTPS with this certificate and key (PEM files); Azurite's OAuth needs it. */
  tls?: { cert: string; key: string };
  /** Accept bearer tokens as well as shared keys and SAS (Azurite's basic check: issuer, audience, lifetime; no signature). */
  oauth?: boolean;
}

export async function startAzurite(options: AzuriteOptions = {}): Promise<Azurite> {
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
  // The guard runs Azurite and ends it when this process dies, however it dies.
  const guard = fileURLToPath(new URL('./azurite-guard.mjs', import.meta.url));
  const args = [
    guard,
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
  if (options.tls) args.push('--cert', options.tls.cert, '--key', options.tls.key);
  if (options.oauth) args.push('--oauth', 'basic');
  let unlock = () => {};
  if (options.location) {
    mkdirSync(options.location, { recursive: true });
    unlock = lockAzuriteFolder(options.location);
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
    // It listens within a second or two on an idle machine; a busy one (a test run beside other
    // work) has been seen to take over 20 s loading its modules.
    await waitForPort(port, child, 60_000);
  } catch (e) {
    child.kill();
    unlock();
    throw new Error(`${(e as Error).message}${stderr ? `: ${stderr}` : ''}`);
  }
  child.once('exit', unlock);
  const scheme = options.tls ? 'https' : 'http';
  return {
    port,
    pid: child.pid!,
    connectionString: `DefaultEndpointsProtocol=${scheme};AccountName=${ACCOUNT};AccountKey=${KEY};${service === 'blob' ? 'BlobEndpoint' : 'QueueEndpoint'}=${scheme}://127.0.0.1:${port}/${ACCOUNT};`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The app's storage locally: Azurite's queue and blob services (the analysis queue; the cost import
 * spool) behind one connection string, each in its own process under `location` (or in memory).
 */
export async function startAzuriteStorage(options: { location?: string } = {}): Promise<Azurite> {
  const queue = await startAzurite(options.location ? { location: options.location } : {});
  let blob: Azurite;
  try {
    blob = await startAzurite({
      service: 'blob',
      ...(options.location ? { location: path.join(options.location, 'blob') } : {}),
    });
  } catch (e) {
    await queue.stop();
    throw e;
  }
  return {
    ...queue,
    connectionString: withBlobEndpoint(queue.connectionString, blob.port),
    stop: async () => {
      await Promise.all([queue.stop(), blob.stop()]);
    },
  };
}

/** A queue-only Azurite connection string with a blob endpoint on `blobPort` added. */
export function withBlobEndpoint(connectionString: string, blobPort: number): string {
  return `${connectionString}BlobEndpoint=http://127.0.0.1:${blobPort}/${ACCOUNT};`;
}
