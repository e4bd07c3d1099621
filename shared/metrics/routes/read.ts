import { z } from 'zod';
import { perDatabase } from '../../app/per-host.js';
import type { AppServices } from '../../app/services.js';
import { recordAudit } from '../../audit/record.js';
import type { Caller } from '../../auth/caller.js';
import type { MetricsSettings } from '../../config/metrics.js';
import { intText } from '../../http/fields.js';
import { rowsToJsonInTurns } from '../../http/json-rows.js';
import { ok, okJsonText } from '../../http/respond.js';
import { defineRoute, type RequestContext, type RouteDefinition, type ValidInput } from '../../http/route.js';
import { requireVisible, visibleClusters } from '../access.js';
import { RecentAnswers } from '../recent-answers.js';
import { normalizeCluster } from '../records.js';
import type { MetricsStore, Rows } from '../store/contract.js';

/**
 * The original's read routes (pods, nodes, PVCs, logs, events, clusters, namespaces, cleanup,
 * table sizes) with its shapes, and what it lacked: every answer is bounded (a cut answer says so
 * in X-Truncated and X-Row-Limit), a user sees only the clusters assigned to them, cleanup and
 * table sizes are for administrators, and bad numbers are 400 instead of silently empty answers.
 */

/** The longest window a read may ask for: the hourly rollups' longest retention setting. */
const MAX_MINUTES = 3660 * 1440;
/** Logs: the original's default 100; at most this many per answer. */
const MAX_LOG_LIMIT = 1000;
/** Events: the original's default 1000; the web client asks for 5000. */
const MAX_EVENT_LIMIT = 5000;

const name = () => z.string().max(512, 'must be at most 512 characters');
const cluster = () =>
  z
    .string()
    .max(512, 'must be at most 512 characters')
    .transform((v) => normalizeCluster(v) || undefined)
    .optional()
    .describe('cluster name (any case; answered in lower case); omitted: every visible cluster');
const minutes = () =>
  intText(1, MAX_MINUTES)
    .optional()
    .describe(
      'window in minutes back from now (default 1440); longer windows answer averages (X-Resolution)',
    );

const windowQuery = z.object({ minutes: minutes(), clusterName: cluster() });

/** ISO 8601 UTC with the fraction's trailing zeros dropped, as the original wrote its timestamps. */
export function isoTime(d: Date): string {
  return d.toISOString().replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/**
 * A list answer with the bound and resolution headers. The store built its rows for this answer,
 * with the DTO's fields in order; their instants are written in place (rowsToJson).
 */
async function answer(result: Rows<object>, limit: number, timeKeys: readonly string[]) {
  const headers: Record<string, string> = { 'X-Row-Limit': String(limit) };
  if (result.truncated) headers['X-Truncated'] = 'true';
  if (result.resolution) headers['X-Resolution'] = result.resolution;
  return okJsonText(await rowsToJsonInTurns(result.rows, timeKeys, isoTime), headers);
}

/** The host's recent sample list answers (RecentAnswers), forgotten on a cleanup. */
const recentOf = perDatabase(({ config }: AppServices) => {
  const m = config.metrics;
  return new RecentAnswers(
    m.Metrics__ReadCacheMiB * 1024 * 1024,
    m.Metrics__ReadCacheSeconds * 1000,
    config.platform.Http__CompressionMinBytes,
  );
});

async function scopeOf(ctx: RequestContext<Caller>, clusterName: string | undefined) {
  const clusters = await visibleClusters(ctx.services, ctx.caller);
  requireVisible(clusters, clusterName);
  return clusters;
}

const podDto = z.object({
  timestamp: z.string(),
  clusterName: z.string(),
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  cpuUsageCores: z.number(),
  cpuLimitCores: z.number().nullable(),
  memoryUsageBytes: z.number(),
  memoryLimitBytes: z.number().nullable(),
  nodeName: z.string().nullable(),
  podState: z.string().nullable(),
  restartCount: z.number().int(),
  podAge: z.number().int().nullable(),
});
const nodeDto = z.object({
  timestamp: z.string(),
  clusterName: z.string(),
  clusterEnvironment: z.string().nullable(),
  nodeName: z.string(),
  cpuUsageCores: z.number(),
  cpuCapacityCores: z.number(),
  memoryUsageBytes: z.number(),
  memoryCapacityBytes: z.number(),
  kubernetesVersion: z.string().nullable(),
  cloudProvider: z.string().nullable(),
  isReady: z.boolean().nullable(),
  hasMemoryPressure: z.boolean().nullable(),
  hasDiskPressure: z.boolean().nullable(),
  hasPidPressure: z.boolean().nullable(),
  architecture: z.string().nullable(),
  operatingSystem: z.string().nullable(),
  region: z.string().nullable(),
  instanceType: z.string().nullable(),
});
const pvcDto = z.object({
  timestamp: z.string(),
  clusterName: z.string(),
  namespace: z.string(),
  pod: z.string(),
  pvcNamespace: z.string(),
  pvcName: z.string(),
  volumeName: z.string().nullable(),
  usedBytes: z.number(),
  availableBytes: z.number(),
  capacityBytes: z.number(),
});
const logDto = z.object({
  timestamp: z.string(),
  clusterName: z.string(),
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  logContent: z.string(),
});
const eventDto = z.object({
  timestamp: z.string(),
  clusterName: z.string(),
  namespace: z.string(),
  eventName: z.string(),
  eventUid: z.string(),
  involvedObjectKind: z.string(),
  involvedObjectName: z.string(),
  involvedObjectNamespace: z.string(),
  eventType: z.string(),
  reason: z.string(),
  message: z.string(),
  sourceComponent: z.string(),
  count: z.number().int(),
  firstTimestamp: z.string().nullable(),
  lastTimestamp: z.string().nullable(),
});

const listResponses = (schema: z.ZodType) => ({
  200: {
    description: 'Newest first; X-Truncated: true when cut at X-Row-Limit rows',
    schema: z.array(schema),
  },
  400: { description: 'A bad query value' },
  401: { description: 'Not signed in' },
  403: { description: 'The named cluster is not assigned to you' },
});

/** A list read's filters: its query values with the path's values over them. */
type Filters = Record<string, string | number | undefined>;

interface ListRead {
  store: MetricsStore;
  f: Filters;
  clusters: string[] | undefined;
  from: Date;
  to: Date;
  limit: number;
  maxPoints: number;
}

/** One kind of list (pods, nodes, PVCs, logs, events) and the paths it answers on. */
interface ListKind {
  summary: string;
  tag: 'Metrics' | 'Events';
  dto: z.ZodObject<z.ZodRawShape>;
  /** Query values beyond the window and cluster. */
  query: z.ZodRawShape;
  /** [route name, path, the path's parameters]. */
  routes: Array<[string, string, string[]]>;
  limit(f: Filters, settings: MetricsSettings): number;
  read(r: ListRead): Promise<Rows<object>>;
  /** Samples (pods, nodes, PVCs): answers sent again for a few seconds (Metrics__ReadCacheSeconds). */
  recent?: true;
}

const str = (f: Filters, k: string) => f[k] as string | undefined;
const maxRows = (_: Filters, settings: MetricsSettings) => settings.Metrics__MaxRows;
const window = ({ store: _, f: __, ...w }: ListRead) => w;

const LISTS: ListKind[] = [
  {
    summary: 'Container samples (PodMetricDto), at most Metrics__MaxPointsPerSeries per container',
    tag: 'Metrics',
    dto: podDto,
    query: { namespace: name().optional() },
    routes: [
      ['metrics-pods', 'metrics/namespace', []],
      ['metrics-pods-by-namespace', 'metrics/namespace/{namespace}', ['namespace']],
    ],
    limit: maxRows,
    read: (r) =>
      r.store.pods({ ...window(r), clusterName: str(r.f, 'clusterName'), namespace: str(r.f, 'namespace') }),
    recent: true,
  },
  {
    summary: 'Node samples (NodeMetricDto), at most Metrics__MaxPointsPerSeries per node',
    tag: 'Metrics',
    dto: nodeDto,
    query: { nodeName: name().optional() },
    routes: [
      ['metrics-nodes', 'metrics/node', []],
      ['metrics-nodes-by-name', 'metrics/node/{nodeName}', ['nodeName']],
    ],
    limit: maxRows,
    read: (r) =>
      r.store.nodes({ ...window(r), clusterName: str(r.f, 'clusterName'), nodeName: str(r.f, 'nodeName') }),
    recent: true,
  },
  {
    summary: 'PVC samples (PvcMetricDto), at most Metrics__MaxPointsPerSeries per PVC',
    tag: 'Metrics',
    dto: pvcDto,
    query: { namespace: name().optional() },
    routes: [
      ['metrics-pvcs', 'metrics/pvc', []],
      ['metrics-pvcs-by-namespace', 'metrics/pvc/namespace/{namespace}', ['namespace']],
    ],
    limit: maxRows,
    read: (r) =>
      r.store.pvcs({ ...window(r), clusterName: str(r.f, 'clusterName'), namespace: str(r.f, 'namespace') }),
    recent: true,
  },
  {
    summary: 'The latest log snapshot per container (PodLogDto)',
    tag: 'Metrics',
    dto: logDto,
    query: {
      namespace: name().optional(),
      pod: name().optional(),
      container: name().optional(),
      limit: intText(1, MAX_LOG_LIMIT).optional().describe(`rows (default 100, at most ${MAX_LOG_LIMIT})`),
    },
    routes: [
      ['metrics-pod-logs', 'metrics/pod/log', []],
      ['metrics-pod-logs-by-namespace', 'metrics/pod/log/namespace/{namespace}', ['namespace']],
      ['metrics-pod-logs-by-pod', 'metrics/pod/log/namespace/{namespace}/pod/{pod}', ['namespace', 'pod']],
    ],
    limit: (f) => (f.limit as number | undefined) ?? 100,
    read: ({ store, f, clusters, from, limit }) =>
      store.logs({
        from,
        clusters,
        clusterName: str(f, 'clusterName'),
        namespace: str(f, 'namespace'),
        pod: str(f, 'pod'),
        container: str(f, 'container'),
        limit,
      }),
  },
  {
    summary: 'Kubernetes events, one row per event as last seen (KubernetesEventDto)',
    tag: 'Events',
    dto: eventDto,
    query: {
      namespace: name().optional(),
      involvedObjectKind: name().optional(),
      involvedObjectName: name().optional(),
      eventType: name().optional(),
      limit: intText(1, MAX_EVENT_LIMIT)
        .optional()
        .describe(`rows (default 1000, at most ${MAX_EVENT_LIMIT})`),
    },
    routes: [
      ['metrics-events', 'events', []],
      ['metrics-events-by-namespace', 'events/namespace/{namespace}', ['namespace']],
    ],
    limit: (f) => (f.limit as number | undefined) ?? 1000,
    read: ({ store, f, clusters, from, limit }) =>
      store.events({
        from,
        clusters,
        clusterName: str(f, 'clusterName'),
        namespace: str(f, 'namespace'),
        involvedObjectKind: str(f, 'involvedObjectKind'),
        involvedObjectName: str(f, 'involvedObjectName'),
        eventType: str(f, 'eventType'),
        limit,
      }),
  },
];

/** Every list route: each kind on each of its paths. */
function listRoutes(kind: ListKind): RouteDefinition[] {
  const query = windowQuery.extend(kind.query);
  // The DTO's instants: the fields named like the original's timestamps.
  const timeKeys = Object.keys(kind.dto.shape).filter((k) =>
    /^(timestamp|firstTimestamp|lastTimestamp)$/.test(k),
  );
  return kind.routes.map(([routeName, path, pathParams]) => {
    const params = pathParams.length
      ? z.object(Object.fromEntries(pathParams.map((p) => [p, name()])) as Record<string, z.ZodString>)
      : undefined;
    return defineRoute({
      name: routeName,
      service: 'metrics',
      method: 'GET',
      path,
      auth: 'user',
      input: { query, ...(params ? { params } : {}) },
      openapi: { summary: kind.summary, tags: [kind.tag], responses: listResponses(kind.dto) },
      async handler(ctx) {
        const c = ctx as unknown as RequestContext<
          Caller,
          ValidInput<Filters | undefined, Filters, undefined>
        >;
        const f: Filters = { ...c.input.query, ...c.input.params };
        const clusters = await scopeOf(c, str(f, 'clusterName'));
        const settings = c.services.config.metrics;
        const limit = kind.limit(f, settings);
        const minutes = (f.minutes as number | undefined) ?? 1440;
        const build = async () => {
          const to = new Date();
          const from = new Date(to.getTime() - minutes * 60_000);
          const result = await kind.read({
            store: c.services.metrics.store,
            f,
            clusters,
            from,
            to,
            limit,
            maxPoints: settings.Metrics__MaxPointsPerSeries,
          });
          return answer(result, limit, timeKeys);
        };
        if (!kind.recent) return build();
        // Everything the answer is made of: the list, its filters and window, the caller's scope.
        const key = JSON.stringify([routeName, f, minutes, clusters ?? null]);
        return recentOf(c.services).answer(key, c.request.headers.get('accept-encoding'), build);
      },
    });
  });
}

/** Clusters and namespaces are listed from the label sets seen within the longest retention. */
function listedSince(settings: { Metrics__RetentionHourlyDays: number }): Date {
  return new Date(Date.now() - settings.Metrics__RetentionHourlyDays * 86_400_000);
}

const clustersRoute = defineRoute({
  name: 'metrics-clusters',
  service: 'metrics',
  method: 'GET',
  path: 'metrics/clusters',
  auth: 'user',
  openapi: {
    summary: 'Clusters with data you may see, sorted (lower case)',
    tags: ['Metrics'],
    responses: { 200: { description: 'Cluster names', schema: z.array(z.string()) } },
  },
  async handler({ services, caller }) {
    const clusters = await visibleClusters(services, caller);
    return ok(await services.metrics.store.clusters(listedSince(services.config.metrics), clusters));
  },
});

const namespacesQuery = z.object({ clusterName: cluster() });
const namespacesRoute = defineRoute({
  name: 'metrics-namespaces',
  service: 'metrics',
  method: 'GET',
  path: 'metrics/namespaces',
  auth: 'user',
  input: { query: namespacesQuery },
  openapi: {
    summary: 'Namespaces with pods, sorted',
    tags: ['Metrics'],
    responses: { 200: { description: 'Namespace names', schema: z.array(z.string()) } },
  },
  async handler(ctx) {
    const clusters = await scopeOf(ctx, ctx.input.query.clusterName);
    return ok(
      await ctx.services.metrics.store.namespaces(
        listedSince(ctx.services.config.metrics),
        clusters,
        ctx.input.query.clusterName,
      ),
    );
  },
});

const cleanupQuery = z.object({
  days: intText(0, 3660).describe('0 removes every metric; n removes data older than n days'),
});
const cleanupRoute = defineRoute({
  name: 'metrics-cleanup',
  service: 'metrics',
  method: 'DELETE',
  path: 'metrics/cleanup',
  auth: 'admin',
  input: { query: cleanupQuery },
  openapi: {
    summary: 'Remove metrics: all (days=0) or older than n days (administrators)',
    tags: ['Metrics'],
    responses: {
      200: { description: 'Done', schema: z.object({ success: z.literal(true), message: z.string() }) },
      400: { description: 'days missing, negative or too large' },
      403: { description: 'Not an administrator' },
    },
  },
  async handler({ services, input, caller, request }) {
    const days = input.query.days;
    const result = await services.metrics.store.cleanup(days);
    // What the kept answers show may be gone now.
    recentOf(services).clear();
    await recordAudit(services.prisma, {
      actor: caller,
      action: 'metrics.cleanup',
      details: { days },
      request,
    });
    const message =
      days === 0
        ? 'All metrics were removed: pod, node and PVC samples with their averages, pod logs and events.'
        : `Metrics older than ${days} days were removed: pod, node and PVC samples with their averages, pod logs and events.`;
    return ok({ success: true, message, scope: result.scope });
  },
});

const tableSizesRoute = defineRoute({
  name: 'metrics-table-sizes',
  service: 'metrics',
  method: 'GET',
  path: 'clickhouse/table-sizes',
  auth: 'admin',
  openapi: {
    summary: "The metrics tables' size on disk, largest first (administrators)",
    tags: ['Metrics'],
    responses: {
      200: {
        description: 'TableSizeDto[]',
        schema: z.array(
          z.object({
            database: z.string(),
            table: z.string(),
            totalSize: z.string(),
            totalSizeBytes: z.number(),
          }),
        ),
      },
      403: { description: 'Not an administrator' },
    },
  },
  async handler({ services }) {
    return ok(await services.metrics.store.tableSizes());
  },
});

export const readRoutes: RouteDefinition[] = [
  ...LISTS.flatMap(listRoutes),
  clustersRoute,
  namespacesRoute,
  cleanupRoute,
  tableSizesRoute,
];
