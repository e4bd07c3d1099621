import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { type Dispatcher, Pool } from 'undici';
import type { ListResponse, ObjectMeta } from './kube-types.js';
import type { Logger } from './logger.js';

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
export const PAGE_SIZE = 500;
const MAX_LIST_RESTARTS = 3;

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

/**
 * In a pod: the service account. Outside: KUBECONFIG, then ~/.kube/config. The library's own
 * loadFromDefault would silently fall back to http://localhost:8080, which hides a missing config.
 */
export function resolveKubeConfig(env: Record<string, string | undefined>): {
  kc: KubeConfig;
  source: string;
} {
  const kc = new KubeConfig();
  if (env['KUBERNETES_SERVICE_HOST'] && env['KUBERNETES_SERVICE_PORT'] && existsSync(IN_CLUSTER_TOKEN)) {
    kc.loadFromCluster();
    return { kc, source: 'in-cluster service account' };
  }
  const files = (env['KUBECONFIG'] ?? '').split(delimiter).filter((file) => file !== '');
  const [first, ...rest] = files;
  if (first !== undefined) {
    // Same merge as kubectl: the first file's current context wins.
    kc.loadFromFile(first);
    for (const file of rest) {
      const extra = new KubeConfig();
      extra.loadFromFile(file);
      kc.mergeConfig(extra, true);
    }
    return { kc, source: `KUBECONFIG=${files.join(delimiter)}` };
  }
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) {
    kc.loadFromFile(home);
    return { kc, source: home };
  }
  throw new Error('no Kubernetes configuration: not in a pod, KUBECONFIG unset and ~/.kube/config missing');
}

interface Credentials {
  headers: Record<string, string>;
}

/**
 * Thin JSON client over undici: keep-alive pool, paging and byte-bounded log reads. The library's
 * generated API client re-creates its agent per call and deserialises every field into models; the agent
 * needs neither, and it needs control over `continue` and over how many log bytes it reads.
 */
export class KubeClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  private credentials: Credentials = { headers: {} };

  private constructor(
    private readonly kc: KubeConfig,
    server: URL,
    tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized?: boolean; servername?: string },
  ) {
    this.basePath = server.pathname.replace(/\/+$/, '');
    this.pool = new Pool(server.origin, {
      connections: 8,
      keepAliveTimeout: 30_000,
      headersTimeout: 30_000,
      bodyTimeout: 60_000,
      connect: { ...tls, timeout: 10_000 },
    });
  }

  static async create(kc: KubeConfig): Promise<KubeClient> {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the Kubernetes configuration has no current cluster');
    const opts: {
      ca?: Buffer;
      cert?: Buffer;
      key?: Buffer;
      rejectUnauthorized?: boolean;
      servername?: string;
      headers?: Record<string, string>;
    } = {};
    await kc.applyToHTTPSOptions(opts);
    const client = new KubeClient(kc, new URL(cluster.server), {
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.cert ? { cert: opts.cert } : {}),
      ...(opts.key ? { key: opts.key } : {}),
      ...(opts.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
      ...(opts.servername ? { servername: opts.servername } : {}),
    });
    client.credentials = { headers: { ...(opts.headers ?? {}) } };
    return client;
  }

  /** Bound service-account tokens rotate; the library's token-file authenticator re-reads them when due. */
  async refreshCredentials(): Promise<void> {
    const opts: { headers?: Record<string, string> } = {};
    await this.kc.applyToHTTPSOptions(opts);
    this.credentials = { headers: { ...(opts.headers ?? {}) } };
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
        headers: { accept, ...this.credentials.headers },
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
   * already handed out (by uid) are filtered so a restart does not post them twice.
   */
  async listEach<T extends { metadata?: ObjectMeta }>(
    path: string,
    onPage: (items: T[]) => Promise<void>,
    query: Record<string, string | undefined> = {},
    log?: Logger,
  ): Promise<void> {
    const seen = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      let token: string | undefined;
      try {
        do {
          const page = await this.getJson<ListResponse<T>>(path, {
            ...query,
            limit: PAGE_SIZE,
            continue: token,
          });
          const items = (page.items ?? []).filter((item) => {
            const uid = item.metadata?.uid;
            if (uid === undefined) return attempt === 0;
            if (seen.has(uid)) return false;
            seen.add(uid);
            return true;
          });
          if (items.length > 0) await onPage(items);
          token = page.metadata?.continue || undefined;
        } while (token);
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

  /** Convenience for small lists (nodes, metrics). */
  async listAll<T extends { metadata?: ObjectMeta }>(path: string, log?: Logger): Promise<T[]> {
    const all: T[] = [];
    await this.listEach<T>(
      path,
      async (items) => {
        all.push(...items);
      },
      {},
      log,
    );
    return all;
  }

  /** Last `tailLines` lines of a container, never more than `maxBytes` even if the server ignores limitBytes. */
  async readLog(
    namespace: string,
    pod: string,
    container: string,
    tailLines: number,
    maxBytes: number,
  ): Promise<string> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
    const res = await this.request(path, { container, tailLines, limitBytes: maxBytes }, 'text/plain');
    if (res.statusCode !== 200) {
      const text = (await res.body.text()).slice(0, 300);
      throw new KubeError(`GET ${path}: HTTP ${res.statusCode} ${text}`, res.statusCode, false);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      const room = maxBytes - size;
      chunks.push(buf.length > room ? buf.subarray(0, room) : buf);
      size += Math.min(buf.length, room);
      if (size >= maxBytes) {
        res.body.destroy();
        break;
      }
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
