import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StatsSummary } from '../../src/collectors/pvc.js';
import type {
  CoreEvent,
  Node,
  NodeMetrics,
  OwnedObject,
  PersistentVolume,
  Pod,
  PodMetrics,
} from '../../src/kube-types.js';

export const TOKEN = 'fake-sa-token';

/** State of the fake cluster; tests mutate it between cycles. */
export interface FakeCluster {
  gitVersion: string;
  pods: Pod[];
  nodes: Node[];
  events: CoreEvent[];
  /** 'absent' answers 404 like an API server without metrics-server; 'error' answers 500. */
  podMetrics: PodMetrics[] | 'absent' | 'error';
  nodeMetrics: NodeMetrics[] | 'absent' | 'error';
  /** Log text, tailed as the API server would; bytes are served as they are (any encoding, no tailing). */
  logs: (namespace: string, pod: string, container: string) => string | Buffer;
  /** Server-side page cap below the client's limit (API servers may return fewer items than asked). */
  maxPage?: number;
  /** Paths answering 500 (exact path match, without query). */
  failing: Set<string>;
  /** Paths whose next request carrying a continue token gets 410 Gone once. */
  expireContinue: Set<string>;
  /** Ignore limitBytes on log reads, to prove the agent caps the size itself. */
  ignoreLimitBytes?: boolean;
  /** Delay before each log answer, to observe concurrency. */
  logDelayMs?: number;
  /**
   * Answer `resourceVersion=0` lists in one page whatever the limit, as an API server serving them from its
   * watch cache may (kubernetes/kubernetes#70735).
   */
  cacheIgnoresLimit?: boolean;
  /** Kubelet stats summaries by node name, served through the node proxy; a node without one has no pods. */
  volumeStats: Record<string, StatsSummary>;
  /** apps/v1 ReplicaSets and batch/v1 Jobs (full objects as the API server sends them), and PVs. */
  replicaSets: OwnedObject[];
  jobs: OwnedObject[];
  persistentVolumes: PersistentVolume[];
  /** Paths RBAC refuses: 403 Forbidden, as the API server answers (exact path match, without query). */
  forbidden: Set<string>;
}

export interface RecordedKubeRequest {
  path: string;
  query: URLSearchParams;
}

export interface FakeKube {
  url: string;
  kubeconfig: string;
  /** With `tls`: a service-account directory (ca.crt, token) as a pod would see it. */
  serviceAccountDir?: string;
  host: string;
  port: number;
  requests: RecordedKubeRequest[];
  maxConcurrentLogReads: number;
  close(): Promise<void>;
}

export function emptyCluster(): FakeCluster {
  return {
    gitVersion: 'v1.30.4',
    pods: [],
    nodes: [],
    events: [],
    podMetrics: [],
    nodeMetrics: [],
    logs: () => '',
    failing: new Set(),
    expireContinue: new Set(),
    volumeStats: {},
    replicaSets: [],
    jobs: [],
    persistentVolumes: [],
    forbidden: new Set(),
  };
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
    }),
  );
}

function list(
  res: ServerResponse,
  cluster: FakeCluster,
  path: string,
  query: URLSearchParams,
  kind: string,
  items: unknown[],
): void {
  const token = query.get('continue');
  if (token && query.has('resourceVersion')) {
    // The real API server's answer: the continue token pins the version itself.
    status(res, 400, 'BadRequest', 'specifying resource version is not allowed when using continue');
    return;
  }
  const fromCache = query.get('resourceVersion') === '0' && cluster.cacheIgnoresLimit === true;
  const limit = (fromCache ? 0 : Number(query.get('limit') ?? '0')) || items.length;
  const size = fromCache ? items.length : Math.min(limit, cluster.maxPage ?? limit);
  if (token && cluster.expireContinue.delete(path)) {
    status(
      res,
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result.',
    );
    return;
  }
  const offset = token ? Number(Buffer.from(token, 'base64').toString('utf8')) : 0;
  const page = items.slice(offset, offset + size);
  const next =
    offset + size < items.length ? Buffer.from(String(offset + size)).toString('base64') : undefined;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      kind,
      apiVersion: kind.endsWith('MetricsList')
        ? 'metrics.k8s.io/v1beta1'
        : kind === 'ReplicaSetList'
          ? 'apps/v1'
          : kind === 'JobList'
            ? 'batch/v1'
            : 'v1',
      metadata: {
        resourceVersion: '12345',
        ...(next ? { continue: next, remainingItemCount: items.length - offset - size } : {}),
      },
      items: page,
    }),
  );
}

/**
 * The bench serves the same log 6,000 times: splitting it again for each read made this fake, which shares
 * the machine's cores with the agent, the slowest party of the bench. The last answer is reused.
 */
let lastTail: { text: string; lines: number; result: string } | undefined;

function tail(text: string, lines: number): string {
  if (lastTail?.text === text && lastTail.lines === lines) return lastTail.result;
  const result = tailOf(text, lines);
  lastTail = { text, lines, result };
  return result;
}

function tailOf(text: string, lines: number): string {
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  return all
    .slice(-lines)
    .map((l) => `${l}\n`)
    .join('');
}

/** A throwaway self-signed certificate for 127.0.0.1, so the in-cluster (https) path can be exercised. */
function selfSigned(dir: string): { key: Buffer; cert: Buffer } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=kubernetes',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'ca.crt'),
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'ca.crt')) };
}

export async function startFakeKube(
  cluster: FakeCluster,
  options: { tls?: boolean } = {},
): Promise<FakeKube> {
  const requests: RecordedKubeRequest[] = [];
  let logReads = 0;
  const state = { maxConcurrentLogReads: 0 };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    requests.push({ path, query: url.searchParams });
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return status(res, 401, 'Unauthorized', 'Unauthorized');
    if (cluster.failing.has(path)) return status(res, 500, 'InternalError', 'etcdserver: request timed out');
    if (cluster.forbidden.has(path)) {
      const resource = path.split('/').at(-1) ?? '';
      const group = path.startsWith('/apis/') ? (path.split('/')[2] ?? '') : '';
      const ns = /\/namespaces\/([^/]+)\//.exec(path)?.[1];
      return status(
        res,
        403,
        'Forbidden',
        `${resource}${group ? `.${group}` : ''} is forbidden: User "system:serviceaccount:finwatch-agent:finwatch-agent" cannot list resource "${resource}" in API group "${group}" ${ns ? `in the namespace "${ns}"` : 'at the cluster scope'}`,
      );
    }
    const q = url.searchParams;
    if (path === '/version') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ major: '1', minor: '30', gitVersion: cluster.gitVersion, platform: 'linux/amd64' }),
      );
      return;
    }
    if (path === '/api/v1/nodes') return list(res, cluster, path, q, 'NodeList', cluster.nodes);
    if (path === '/api/v1/persistentvolumes') {
      return list(res, cluster, path, q, 'PersistentVolumeList', cluster.persistentVolumes);
    }
    const ownedIn = /^\/apis\/(apps|batch)\/v1\/namespaces\/([^/]+)\/(replicasets|jobs)$/.exec(path);
    if (ownedIn && (ownedIn[1] === 'apps') === (ownedIn[3] === 'replicasets')) {
      const ns = ownedIn[2];
      const items = ownedIn[3] === 'replicasets' ? cluster.replicaSets : cluster.jobs;
      return list(
        res,
        cluster,
        path,
        q,
        ownedIn[3] === 'replicasets' ? 'ReplicaSetList' : 'JobList',
        items.filter((item) => item.metadata?.namespace === ns),
      );
    }
    const statsOf = /^\/api\/v1\/nodes\/([^/]+)\/proxy\/stats\/summary$/.exec(path);
    if (statsOf) {
      const name = statsOf[1] ?? '';
      if (!cluster.nodes.some((n) => n.metadata?.name === name)) {
        return status(res, 404, 'NotFound', `nodes "${name}" not found`);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          node: { nodeName: name, startTime: '2026-01-01T00:00:00Z' },
          pods: [],
          ...cluster.volumeStats[name],
        }),
      );
      return;
    }
    if (path === '/api/v1/pods') {
      const phase = /^status\.phase=(\w+)$/.exec(q.get('fieldSelector') ?? '')?.[1];
      const pods = phase ? cluster.pods.filter((p) => p.status?.phase === phase) : cluster.pods;
      return list(res, cluster, path, q, 'PodList', pods);
    }
    const podsIn = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(path);
    if (podsIn) {
      const m = podsIn;
      const ns = m[1];
      return list(
        res,
        cluster,
        path,
        q,
        'PodList',
        cluster.pods.filter((p) => p.metadata?.namespace === ns),
      );
    }
    const eventsIn = /^\/api\/v1\/namespaces\/([^/]+)\/events$/.exec(path);
    if (eventsIn) {
      const m = eventsIn;
      const ns = m[1];
      return list(
        res,
        cluster,
        path,
        q,
        'EventList',
        cluster.events.filter((e) => e.metadata?.namespace === ns),
      );
    }
    const logOf = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(path);
    if (logOf) {
      const m = logOf;
      const [, ns = '', pod = ''] = m;
      if (!cluster.pods.some((p) => p.metadata?.namespace === ns && p.metadata?.name === pod)) {
        return status(res, 404, 'NotFound', `pods "${pod}" not found`);
      }
      logReads++;
      state.maxConcurrentLogReads = Math.max(state.maxConcurrentLogReads, logReads);
      try {
        const delay = cluster.logDelayMs;
        if (delay) await new Promise((r) => setTimeout(r, delay));
        const log = cluster.logs(ns, pod, q.get('container') ?? '');
        const lines = q.get('tailLines');
        let body = Buffer.isBuffer(log) ? log : Buffer.from(lines ? tail(log, Number(lines)) : log);
        const limitBytes = q.get('limitBytes');
        if (limitBytes && !cluster.ignoreLimitBytes) body = body.subarray(0, Number(limitBytes));
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(body);
      } finally {
        logReads--;
      }
      return;
    }
    const metricsIn = /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/([^/]+)\/pods$/.exec(path);
    if (metricsIn) {
      const m = metricsIn;
      const ns = m[1];
      if (cluster.podMetrics === 'absent')
        return status(res, 404, 'NotFound', 'the server could not find the requested resource');
      if (cluster.podMetrics === 'error')
        return status(res, 503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
      return list(
        res,
        cluster,
        path,
        q,
        'PodMetricsList',
        cluster.podMetrics.filter((p) => p.metadata?.namespace === ns),
      );
    }
    if (path === '/apis/metrics.k8s.io/v1beta1/nodes') {
      if (cluster.nodeMetrics === 'absent')
        return status(res, 404, 'NotFound', 'the server could not find the requested resource');
      if (cluster.nodeMetrics === 'error')
        return status(res, 503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
      return list(res, cluster, path, q, 'NodeMetricsList', cluster.nodeMetrics);
    }
    return status(res, 404, 'NotFound', 'the server could not find the requested resource');
  };

  // The API server is Go's net/http, which serves an HTTP/1.1 connection's requests one at a time: it reads
  // a pipelined request only once the answer before it is written (net/http server.go, conn.serve: "we're
  // not going to implement HTTP pipelining because it was never deployed in the wild and the answer is
  // HTTP/2"). Node's server would run pipelined requests at once, so each connection queues its own here.
  const servedOn = new WeakMap<object, Promise<void>>();
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const before = servedOn.get(req.socket) ?? Promise.resolve();
    const answered = new Promise<void>((resolve) => res.once('close', resolve));
    servedOn.set(
      req.socket,
      before.then(() => answered),
    );
    void before
      .then(() => handle(req, res))
      .catch((error) => status(res, 500, 'InternalError', String(error)));
  };
  const dir = mkdtempSync(join(tmpdir(), 'fake-kube-'));
  const server: Server = options.tls ? createTlsServer(selfSigned(dir), listener) : createServer(listener);
  if (options.tls) writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const kubeconfig = join(dir, 'config');
  // client-node 1.x refuses plain http unless the cluster says insecure-skip-tls-verify.
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: fake\n  cluster:\n    server: ${url}\n    insecure-skip-tls-verify: true`,
      'users:',
      `- name: fake\n  user:\n    token: ${TOKEN}`,
      'contexts:',
      '- name: fake\n  context:\n    cluster: fake\n    user: fake',
      'current-context: fake',
      '',
    ].join('\n'),
  );
  return {
    url,
    kubeconfig,
    ...(options.tls ? { serviceAccountDir: dir } : {}),
    host: '127.0.0.1',
    port,
    requests,
    get maxConcurrentLogReads() {
      return state.maxConcurrentLogReads;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
