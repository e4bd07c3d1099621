import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { type Dispatcher, Pool } from 'undici';
import type { ListResponse, ObjectMeta } from './kube-types.js';
import type { Logger } from './logger.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
export const PAGE_SIZE = 500;
/**
 * `resourceVersion=0` lets the API server answer a list from its watch cache instead of a quorum read from
 * etcd ("Resource versions", Kubernetes API concepts). The answer may be a few seconds old, which a
 * 30-second sampler does not notice; kube-state-metrics offers the same (`--use-apiserver-cache`).
 * metrics.k8s.io has no watch cache, so it is not sent there. An API server answering from its cache may
 * ignore `limit` and return the whole list in one page (kubernetes/kubernetes#70735); the agent then
 * handles one large page, which is why only lists of bounded size (one namespace, the nodes) use it.
 */
export const CACHED = { resourceVersion: '0' } as const;
const MAX_LIST_RESTARTS = 3;
/** Kubelet rewrites projected tokens well before expiry; re-reading once a minute is plenty. */
const TOKEN_REREAD_MS = 60_000;

/** A Kubernetes API call that failed; `unreachable` means no HTTP answer at all (the API server is down). */
export class KubeError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly unreachable: boolean,
  ) {
    super(message);
    this.name = 'KubeError';
  }
}

interface Tls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
}

/** Where the API server is, how to trust it, and the auth headers for the next requests. */
export interface KubeTarget {
  server: URL;
  tls: Tls;
  source: string;
  headers(): Promise<Record<string, string>>;
}

/**
 * The pod case, done without @kubernetes/client-node: it is three files and two env vars, and the library
 * costs about 70 MB of resident memory once imported, most of the agent's budget.
 */
function inCluster(env: Record<string, string | undefined>, dir: string): KubeTarget {
  const host = env['KUBERNETES_SERVICE_HOST'] ?? '';
  const server = new URL(`https://${isIPv6(host) ? `[${host}]` : host}:${env['KUBERNETES_SERVICE_PORT']}`);
  let token = '';
  let readAt = 0;
  return {
    server,
    tls: { ca: readFileSync(join(dir, 'ca.crt')) },
    source: `in-cluster service account (${dir})`,
    headers: async () => {
      if (Date.now() - readAt > TOKEN_REREAD_MS) {
        token = readFileSync(join(dir, 'token'), 'utf8').trim();
        readAt = Date.now();
      }
      return { authorization: `Bearer ${token}` };
    },
  };
}

/** Kubeconfig files go through the library: exec plugins, auth providers and the merge rules are its job. */
async function fromKubeconfig(files: string[], source: string): Promise<KubeTarget> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  const [first, ...rest] = files;
  if (first === undefined) throw new Error('no kubeconfig file');
  kc.loadFromFile(first);
  for (const file of rest) {
    // Same merge as kubectl: the first file's current context wins.
    const extra = new KubeConfig();
    extra.loadFromFile(file);
    kc.mergeConfig(extra, true);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${source}: no current cluster`);
  const opts: Tls & { headers?: Record<string, string> } = {};
  await kc.applyToHTTPSOptions(opts);
  return {
    server: new URL(cluster.server),
    tls: {
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.cert ? { cert: opts.cert } : {}),
      ...(opts.key ? { key: opts.key } : {}),
      ...(opts.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
      ...(opts.servername ? { servername: opts.servername } : {}),
    },
    source,
    headers: async () => {
      // Token files, exec plugins and OIDC refresh themselves inside the library when due.
      const fresh: { headers?: Record<string, string> } = {};
      await kc.applyToHTTPSOptions(fresh);
      return { ...(fresh.headers ?? {}) };
    },
  };
}

/**
 * In a pod: the service account. Outside: KUBECONFIG, then ~/.kube/config. The library's loadFromDefault
 * would silently fall back to http://localhost:8080, which hides a missing configuration.
 */
export async function resolveKube(
  env: Record<string, string | undefined>,
  serviceAccountDir = SERVICE_ACCOUNT_DIR,
): Promise<KubeTarget> {
  if (
    env['KUBERNETES_SERVICE_HOST'] &&
    env['KUBERNETES_SERVICE_PORT'] &&
    existsSync(join(serviceAccountDir, 'token'))
  ) {
    return inCluster(env, serviceAccountDir);
  }
  const files = (env['KUBECONFIG'] ?? '').split(delimiter).filter((file) => file !== '');
  if (files.length > 0) return fromKubeconfig(files, `KUBECONFIG=${files.join(delimiter)}`);
  const home = join(env['HOME'] || homedir(), '.kube', 'config');
  if (existsSync(home)) return fromKubeconfig([home], home);
  throw new Error('no Kubernetes configuration: not in a pod, KUBECONFIG unset and ~/.kube/config missing');
}

/**
 * TLS options for every connection of the pool, with the CA and client certificate parsed once into one
 * secure context: given as `ca`/`cert`/`key`, Node parses them again for each new connection.
 */
function connectTls({ ca, cert, key, ...rest }: Tls): Omit<Tls, 'ca' | 'cert' | 'key'> & {
  secureContext?: ReturnType<typeof createSecureContext>;
} {
  if (!ca && !cert && !key) return rest;
  return { ...rest, secureContext: createSecureContext({ ca, cert, key }) };
}

/**
 * Thin JSON client over undici: keep-alive pool, paging and byte-bounded log reads. The library's
 * generated API client re-creates its agent per call and deserialises every field into models; the agent
 * needs neither, and it needs control over `continue` and over how many log bytes it reads.
 */
export class KubeClient {
  private readonly pool: Pool;
  /** Log reads only: a list or a stats summary never waits for a free connection behind container logs. */
  private readonly logPool: Pool;
  private readonly basePath: string;
  private headers: Record<string, string> = {};
  /** Built once per credential refresh rather than for each of thousands of log reads. */
  private logHeaders: Record<string, string> = { accept: 'text/plain' };

  constructor(
    private readonly target: KubeTarget,
    logConcurrency = 8,
  ) {
    this.basePath = target.server.pathname.replace(/\/+$/, '');
    const options = {
      keepAliveTimeout: 30_000,
      headersTimeout: 30_000,
      bodyTimeout: 60_000,
      connect: { ...connectTls(target.tls), timeout: 10_000 },
    };
    this.pool = new Pool(target.server.origin, { ...options, connections: 8 });
    // One read per connection at a time (undici's default): the API server's Go HTTP/1.1 server answers
    // pipelined requests one after another, so pipelining would cut the reads in flight to the connections'
    // count (agent README, Connections).
    this.logPool = new Pool(target.server.origin, { ...options, connections: logConcurrency });
  }

  get server(): string {
    return this.target.server.href;
  }

  /** Called once per cycle: rotated tokens and refreshed exec credentials are picked up here. */
  async refreshCredentials(): Promise<void> {
    this.headers = await this.target.headers();
    this.logHeaders = { accept: 'text/plain', ...this.headers };
  }

  private path(path: string, query: Record<string, string | number | undefined>): string {
    const params = new URLSearchParams();
    for (const [key, val] of Object.entries(query)) if (val !== undefined) params.set(key, String(val));
    const qs = params.toString();
    return `${this.basePath}${path}${qs ? `?${qs}` : ''}`;
  }

  private async request(
    path: string,
    query: Record<string, string | number | undefined>,
    accept: string,
  ): Promise<Dispatcher.ResponseData> {
    try {
      return await this.pool.request({
        method: 'GET',
        path: this.path(path, query),
        headers: { accept, ...this.headers },
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ERROR';
      throw new KubeError(`GET ${path}: ${code} ${(error as Error).message}`, undefined, true);
    }
  }

  async getJson<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const res = await this.request(path, query, 'application/json');
    if (res.statusCode !== 200) {
      const text = (await res.body.text()).slice(0, 300);
      throw new KubeError(`GET ${path}: HTTP ${res.statusCode} ${text}`, res.statusCode, false);
    }
    return (await res.body.json()) as T;
  }

  /**
   * Calls `onPage` for every page of a list (limit 500 + continue), so a 2,000-pod namespace never sits in
   * memory at once. A 410 means the continue token expired: the list restarts from the top, and items
   * already handed out (by uid, else namespace/name) are filtered so a restart does not post them twice.
   */
  async listEach<T extends { metadata?: ObjectMeta }>(
    path: string,
    onPage: (items: T[]) => Promise<void>,
    query: Record<string, string | undefined> = {},
    log?: Logger,
    signal?: AbortSignal,
  ): Promise<void> {
    const seen = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      let token: string | undefined;
      try {
        do {
          let page: ListResponse<T> | undefined = await this.getJson<ListResponse<T>>(path, {
            ...query,
            // The API server rejects a resourceVersion beside a continue token: the token carries its own.
            ...(token ? { resourceVersion: undefined } : {}),
            limit: PAGE_SIZE,
            continue: token,
          });
          const next = page.metadata?.continue || undefined;
          let items: T[] | undefined = (page.items ?? []).filter((item) => {
            // metrics.k8s.io objects carry no uid; namespace/name is unique within one list.
            const id = item.metadata?.uid ?? `${item.metadata?.namespace ?? ''}/${item.metadata?.name ?? ''}`;
            if (seen.has(id)) return false;
            seen.add(id);
            return true;
          });
          page = undefined;
          if (items.length > 0) {
            // Not held here while onPage awaits: a callback that encodes the page first lets it die young.
            const handled = onPage(items);
            items = undefined;
            await handled;
          }
          token = next;
          // On shutdown the remaining pages are not fetched; callers see `signal.aborted` and skip cleanup.
        } while (token && !signal?.aborted);
        return;
      } catch (error) {
        if (error instanceof KubeError && error.status === 410 && token && attempt < MAX_LIST_RESTARTS) {
          log?.info({ path }, 'list continue token expired (410); restarting the list');
          continue;
        }
        throw error;
      }
    }
  }

  /** Convenience for small lists (nodes, metrics). `cached`: see CACHED. */
  async listAll<T extends { metadata?: ObjectMeta }>(
    path: string,
    log?: Logger,
    cached = false,
  ): Promise<T[]> {
    const all: T[] = [];
    await this.listEach<T>(
      path,
      async (items) => {
        all.push(...items);
      },
      cached ? CACHED : {},
      log,
    );
    return all;
  }

  /**
   * Last `tailLines` lines of a container, never more than `maxBytes` even if the server ignores limitBytes.
   * A raw undici dispatch handler rather than `request()`: 6,000 reads a cycle made the response stream,
   * its async iterator and their promises the largest cost the agent adds to a bare posting loop.
   * The bytes are returned undecoded: a Buffer lives outside the JS heap, so a log waiting for its post
   * slot is not copied by every young-generation collection (a decoded string is; see the agent README).
   */
  readLog(
    namespace: string,
    pod: string,
    container: string,
    tailLines: number,
    maxBytes: number,
  ): Promise<Buffer> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
    const url = `${this.basePath}${path}?container=${encodeURIComponent(container)}&tailLines=${tailLines}&limitBytes=${maxBytes}`;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let status = 0;
      let capped = false;
      const bytes = (): Buffer => (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      // undici's controller interface: a handler without onRequestStart is taken for the old one.
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: () => {},
        onResponseStart: (_controller, statusCode) => {
          status = statusCode;
        },
        onResponseData: (controller, chunk) => {
          const room = maxBytes - size;
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(chunk.length, room);
          if (size >= maxBytes && status === 200) {
            capped = true;
            controller.abort(new Error('log capped at maxBytes'));
          }
        },
        onResponseEnd: () => {
          if (status === 200) resolve(bytes());
          else {
            const text = bytes().toString('utf8', 0, 300);
            reject(new KubeError(`GET ${path}: HTTP ${status} ${text}`, status, false));
          }
        },
        onResponseError: (_controller, error) => {
          if (capped) return resolve(bytes());
          const code = (error as { code?: string }).code ?? 'ERROR';
          reject(new KubeError(`GET ${path}: ${code} ${error.message}`, undefined, status === 0));
        },
      };
      this.logPool.dispatch({ method: 'GET', path: url, headers: this.logHeaders }, handler);
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.logPool.close()]);
  }
}
