import { z } from 'zod';
import { dayText } from '../../http/fields.js';
import { pagedHeaders, pageOf, pagingQuery } from '../../http/paging.js';
import { badRequest, forbidden, notFound } from '../../http/problem.js';
import { ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { allocationCsv } from '../kubernetes/allocation-csv.js';
import { forecastNamespaces } from '../kubernetes/namespace-forecast.js';
import { retailRates } from '../kubernetes/retail-rates.js';
import {
  type Aggregate,
  type AllocationAnswer,
  allocateCluster,
  type KnownCluster,
  knownClusters,
  rightsizeCluster,
  visibleClusters,
} from '../kubernetes/service.js';

const TAG = 'KubernetesCost';
const DAY_MS = 86_400_000;
/** The longest period one allocation answers (the bill is kept by day; a year is plenty per call). */
const MAX_DAYS = 366;

const clusterName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(253, 'must be at most 253 characters')
  .transform((s) => s.toLowerCase())
  .describe(
    "the agent's cluster name (CLUSTER_NAME), or the managed cluster's name when no agent reports it",
  );

const aggregate = z
  .string()
  .trim()
  .regex(
    /^(namespace|workload|nodepool|day|label:[A-Za-z0-9][-A-Za-z0-9_./]{0,252})$/i,
    'must be namespace, workload, nodepool, day or label:<key>',
  )
  .transform((v): Aggregate => {
    const lower = v.toLowerCase();
    if (lower.startsWith('label:')) return { kind: 'label', key: v.slice(6) };
    return { kind: lower as 'namespace' | 'workload' | 'nodepool' | 'day' };
  })
  .describe('namespace (default), workload, nodepool, day, or label:<key>');

const costType = z
  .string()
  .trim()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(['actualcost', 'amortizedcost'], { error: 'must be ActualCost or AmortizedCost' }))
  .transform((v) => (v === 'actualcost' ? 'ActualCost' : 'AmortizedCost'))
  .describe('ActualCost or AmortizedCost (default: the Cloud__CostQueryType setting)');

const ClusterOut = z.object({
  clusterName: z.string(),
  reportedByAgent: z.boolean(),
  managedClusterId: z.string().nullable(),
  managedClusterName: z.string().nullable(),
  subscriptionId: z.string().nullable(),
  nodeResourceGroup: z.string().nullable(),
  firstBilledDay: z.string().nullable(),
  lastBilledDay: z.string().nullable(),
  agentFirstSeen: z.string().nullable(),
  agentLastSeen: z.string().nullable(),
});

const Row = z.object({
  name: z.string(),
  cpuCost: z.number(),
  memoryCost: z.number(),
  storageCost: z.number(),
  totalCost: z.number(),
  cpuCoreHours: z.number(),
  memoryGiBHours: z.number(),
});

const AllocationOut = z.object({
  clusterName: z.string(),
  from: z.string(),
  to: z.string(),
  aggregate: z.string(),
  currency: z.string().nullable(),
  costType: z.enum(['ActualCost', 'AmortizedCost']),
  billedCost: z.number(),
  rows: z.array(Row),
  idle: z.array(
    z.object({
      pool: z.string(),
      resourceId: z.string(),
      cpuCost: z.number(),
      memoryCost: z.number(),
      totalCost: z.number(),
    }),
  ),
  system: z.number(),
  service: z.number(),
  unallocated: z.number(),
  estimatedDays: z.array(z.string()),
  estimatedPrices: z
    .enum(['retail-api', 'built-in-usd'])
    .nullable()
    .describe(
      "how estimated days' node-hours were priced: the Azure Retail Prices API in the bill's currency, or the built-in USD table when the API could not be reached; null without estimated days",
    ),
  days: z.array(
    z.object({
      day: z.string(),
      estimated: z.boolean(),
      billedCost: z.number(),
      allocated: z.number(),
      idle: z.number(),
      system: z.number(),
      service: z.number(),
      unallocated: z.number(),
    }),
  ),
});

const RightsizingOut = z.object({
  clusterName: z.string(),
  currency: z.string().nullable(),
  windowDays: z.number().int(),
  rate: z.object({ cpuPerCoreHour: z.number(), memoryPerGiBHour: z.number() }),
  items: z.array(
    z.object({
      namespace: z.string(),
      workload: z.string().describe('<Kind>/<name> of the controller; Pod/<name> for a bare pod'),
      container: z.string(),
      current: z.object({ cpuCores: z.number().nullable(), memoryBytes: z.number().nullable() }),
      recommended: z.object({ cpuCores: z.number(), memoryBytes: z.number() }),
      monthlySaving: z.number().describe('per month (730 h) at the billed rate; negative: needs more'),
      kind: z.enum(['over-requested', 'under-requested', 'fits']),
      evidence: z.object({
        samples: z.number().int(),
        days: z.number().int(),
        cpuP50Cores: z.number(),
        cpuP90Cores: z.number(),
        cpuMaxCores: z.number(),
        memoryDailyPeakP90Bytes: z.number(),
        memoryMaxBytes: z.number(),
        oomKills: z.number().int(),
        restarts: z.number().int(),
      }),
    }),
  ),
});

const ForecastOut = z.object({
  clusterName: z.string(),
  month: z.string().describe('yyyy-MM: the month forecast (the current UTC month)'),
  currency: z.string().nullable(),
  costType: z.enum(['ActualCost', 'AmortizedCost']),
  lastKnownDay: z.string().nullable().describe('the last closed (billed) day the forecast knows'),
  namespaces: z.array(
    z.object({
      namespace: z.string(),
      actualToDate: z.number(),
      forecast: z.number(),
      low: z.number(),
      high: z.number(),
      method: z.enum(['seasonal-baseline', 'run-rate']),
    }),
  ),
});

async function clusterFor(
  services: Parameters<RouteDefinition['handler']>[0]['services'],
  caller: Parameters<RouteDefinition['handler']>[0]['caller'],
  name: string,
): Promise<KnownCluster> {
  const all = await knownClusters(services.prisma, services.finops.kubernetesUsage);
  const found = all.find((c) => c.clusterName === name);
  if (!found) throw notFound(`No Kubernetes cluster named '${name}' is known.`);
  const [visible] = await visibleClusters(services.prisma, caller!, [found]);
  if (!visible) throw forbidden('You have no access to this cluster.');
  return found;
}

function sharedNamespaces(list: string[]): string[] {
  return list.filter((n) => n.toLowerCase() !== 'none');
}

function wantsCsv(accept: string | null): boolean {
  if (!accept) return false;
  return accept
    .split(',')
    .map((p) => p.split(';', 1)[0]!.trim().toLowerCase())
    .some((t) => t === 'text/csv');
}

export const kubernetesRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-kubernetes-clusters',
    service: 'finops',
    method: 'GET',
    path: 'KubernetesCost/clusters',
    auth: 'user',
    openapi: {
      summary:
        'Kubernetes clusters known to the agent and/or the bill: the managed cluster each agent cluster runs on (found through its nodes’ scale sets), its subscription and billed days',
      description:
        'Administrators see every cluster; other users the clusters assigned to them (UserClusters) and those of their subscriptions (UserSubscriptions). Paged: page, pageSize; X-Total-Count.',
      tags: [TAG],
      responses: { 200: { description: 'clusters', schema: z.array(ClusterOut) } },
    },
    input: { query: pagingQuery },
    async handler({ services, caller, input: { query } }) {
      const all = await knownClusters(services.prisma, services.finops.kubernetesUsage);
      const visible = await visibleClusters(services.prisma, caller!, all);
      const p = pageOf(query);
      const rows = visible.slice(p.skip, p.skip + p.pageSize).map((c) => ({
        clusterName: c.clusterName,
        reportedByAgent: c.agent !== null,
        managedClusterId: c.managed?.id ?? null,
        managedClusterName: c.managed?.name ?? null,
        subscriptionId: c.managed?.subscriptionId ?? null,
        nodeResourceGroup: c.managed?.nodeResourceGroup ?? null,
        firstBilledDay: c.managed?.firstBilledDay ?? null,
        lastBilledDay: c.managed?.lastBilledDay ?? null,
        agentFirstSeen: c.agent?.firstSeen.toISOString() ?? null,
        agentLastSeen: c.agent?.lastSeen.toISOString() ?? null,
      }));
      return ok(rows, pagedHeaders(visible.length, p));
    },
  }),
  defineRoute({
    name: 'finops-kubernetes-allocation',
    service: 'finops',
    method: 'GET',
    path: 'KubernetesCost/allocation',
    auth: 'user',
    openapi: {
      summary:
        "A cluster's billed cost allocated to namespaces, workloads, node pools, days or a label's values, with idle, system, service and unallocated lines that add up to the bill",
      description:
        'from/to: yyyy-MM-dd, inclusive (default: the 30 days before today). Every billed day adds up to its bill to the cent; days whose bill has not closed are priced at retail rates and listed in estimatedDays. ' +
        'rows are paged (page, pageSize; X-Total-Count counts rows); the other lines are the whole period. With Accept: text/csv the rows come as CSV.',
      tags: [TAG],
      responses: {
        200: { description: 'the allocation (JSON, or the rows as text/csv)', schema: AllocationOut },
        403: { description: 'the cluster is not assigned to the caller' },
        404: { description: 'no such cluster' },
      },
    },
    input: {
      query: pagingQuery.extend({
        clusterName,
        from: dayText().optional(),
        to: dayText().optional(),
        aggregate: aggregate.optional(),
        costType: costType.optional(),
      }),
    },
    async handler({ services, caller, request, input: { query } }) {
      const now = new Date();
      const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
      const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);
      const to = query.to ? ymd(query.to.getTime()) : ymd(today - DAY_MS);
      const from = query.from ? ymd(query.from.getTime()) : ymd(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS);
      const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS;
      if (span < 0) throw badRequest('to is before from.', { to: ['must not be before from'] });
      if (span >= MAX_DAYS)
        throw badRequest(`The period is longer than ${MAX_DAYS} days.`, { to: ['too far from from'] });
      const cluster = await clusterFor(services, caller, query.clusterName);
      const settings = services.config.finops;
      const agg = query.aggregate ?? { kind: 'namespace' };
      const answer: AllocationAnswer = await allocateCluster(
        services.prisma,
        services.finops.kubernetesUsage,
        {
          cluster,
          from,
          to,
          aggregate: agg,
          costType: query.costType ?? settings.Cloud__CostQueryType,
          sharedNamespaces: sharedNamespaces(settings.KubernetesCost__SharedNamespaces),
          shareMode: settings.KubernetesCost__ShareMode,
          now,
          retail: retailRates(services.metricsAlerts.prices),
        },
      );
      const p = pageOf(query);
      const rows = answer.rows.slice(p.skip, p.skip + p.pageSize);
      const headers = pagedHeaders(answer.rows.length, p);
      if (wantsCsv(request.headers.get('accept'))) {
        return {
          status: 200,
          body: allocationCsv(rows),
          headers: {
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': `attachment; filename="${cluster.clusterName.replace(/[^a-z0-9._-]/g, '_')}-${from}-${to}.csv"`,
            ...headers,
          },
        };
      }
      return ok(
        {
          clusterName: cluster.clusterName,
          from,
          to,
          aggregate: agg.kind === 'label' ? `label:${agg.key}` : agg.kind,
          ...answer,
          rows,
        },
        headers,
      );
    },
  }),
  defineRoute({
    name: 'finops-kubernetes-rightsizing',
    service: 'finops',
    method: 'GET',
    path: 'KubernetesCost/rightsizing',
    auth: 'user',
    openapi: {
      summary:
        'Recommended requests per workload container from its usage (CPU at the 90th percentile, memory from daily peaks, 15 % margin, more memory after an OOM kill), with the monthly saving at the pool’s billed rate',
      description:
        'Both over-requested containers (positive saving) and under-requested ones (negative saving: a risk) are listed, largest amount first. The window is KubernetesCost__RightsizingWindowDays. Paged: page, pageSize; X-Total-Count.',
      tags: [TAG],
      responses: {
        200: { description: 'recommendations', schema: RightsizingOut },
        403: { description: 'the cluster is not assigned to the caller' },
        404: { description: 'no such cluster' },
      },
    },
    input: {
      query: pagingQuery.extend({
        clusterName,
        namespace: z.string().trim().min(1).max(253).optional(),
      }),
    },
    async handler({ services, caller, input: { query } }) {
      const cluster = await clusterFor(services, caller, query.clusterName);
      const settings = services.config.finops;
      const out = await rightsizeCluster(
        services.prisma,
        services.finops.kubernetesUsage,
        cluster,
        query.namespace,
        settings.KubernetesCost__RightsizingWindowDays,
        new Date(),
        settings.Cloud__CostQueryType,
      );
      const p = pageOf(query);
      return ok(
        {
          clusterName: cluster.clusterName,
          currency: out.currency,
          windowDays: out.windowDays,
          rate: out.rate,
          items: out.items.slice(p.skip, p.skip + p.pageSize),
        },
        pagedHeaders(out.items.length, p),
      );
    },
  }),
  defineRoute({
    name: 'finops-kubernetes-forecast',
    service: 'finops',
    method: 'GET',
    path: 'KubernetesCost/forecast',
    auth: 'user',
    openapi: {
      summary:
        "Each namespace's month-end cost forecast: its closed days of the month summed, the rest from the seasonal baseline of its last eight weeks (a run rate when fewer than 14 days are known), with a 90 % interval",
      description:
        'The namespaces as the allocation answers them (shared namespaces spread over the others). Paged: page, pageSize; X-Total-Count; largest forecast first.',
      tags: [TAG],
      responses: {
        200: { description: 'the forecasts', schema: ForecastOut },
        403: { description: 'the cluster is not assigned to the caller' },
        404: { description: 'no such cluster' },
      },
    },
    input: { query: pagingQuery.extend({ clusterName, costType: costType.optional() }) },
    async handler({ services, caller, input: { query } }) {
      const cluster = await clusterFor(services, caller, query.clusterName);
      const settings = services.config.finops;
      const out = await forecastNamespaces(services.prisma, services.finops.kubernetesUsage, {
        cluster,
        costType: query.costType ?? settings.Cloud__CostQueryType,
        sharedNamespaces: sharedNamespaces(settings.KubernetesCost__SharedNamespaces),
        shareMode: settings.KubernetesCost__ShareMode,
        now: new Date(),
      });
      const p = pageOf(query);
      return ok(
        {
          clusterName: cluster.clusterName,
          ...out,
          namespaces: out.namespaces.slice(p.skip, p.skip + p.pageSize),
        },
        pagedHeaders(out.namespaces.length, p),
      );
    },
  }),
];
