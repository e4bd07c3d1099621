/**
 * Azure access for the analysis engine: subscription name, resources (Resource Graph) and costs
 * (Cost Management Query), on the real SDK clients, with our throttling and pacing.
 */

import { type AdvisorRecommendation, listAdvisorCostRecommendations } from './advisor.js';
import {
  type CostCell,
  type CostQuery,
  type CostQueryResult,
  type CostQueryType,
  type CostRow,
  costCell,
  costOf,
  createCostClient,
  runCostQuery,
  usageDateOf,
} from './cost-query.js';
import { createCredential } from './credential.js';
import { createPacer, type Pacer, realSleep } from './pacing.js';
import { QPU_PACER_POLICY, QpuPacer } from './qpu-pacer.js';
import { requestTimeoutPolicy, requestTimeoutPolicyFactory } from './request-timeout.js';
import { type AzureResource, createResourceGraphClient, listResources } from './resource-graph.js';
import { createSubscriptionClient, getSubscriptionName } from './subscriptions.js';
import { type RetryLogger, THROTTLE_POLICY_NAME, type ThrottleConfig } from './throttle-policy.js';

export type { AdvisorRecommendation } from './advisor.js';
export type { CostQuery, CostQueryResult, CostQueryType, CostRow } from './cost-query.js';
export { CostQueryFailed, costOf, usageDateOf } from './cost-query.js';
export { costQueryMutex } from './mutex.js';
export type { Pacer } from './pacing.js';
export { PACE_MS } from './pacing.js';
export { AzureRequestTimedOut } from './request-timeout.js';
export type { AzureResource } from './resource-graph.js';
export { RESOURCES_QUERY } from './resource-graph.js';
export { retryWaitMs, serverRequestedWait } from './throttle-policy.js';

export const PUBLIC_ARM_ENDPOINT = 'https://management.azure.com';

export interface AzureAccessOptions {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Default https://management.azure.com. */
  armEndpoint?: string;
  /** Default: the public cloud's login.microsoftonline.com. */
  authorityHost?: string;
  /** Cloud__CostQueryType. */
  costQueryType: CostQueryType;
  /** CostQuery__PaceScale: multiplies every pause and back-off wait; 0 disables them. */
  paceScale: number;
  logger?: RetryLogger;
  /** Injectable for tests; default setTimeout. Receives already-scaled milliseconds. */
  sleep?: (ms: number) => Promise<void>;
  /** Injectable jitter source in [0, 1); default Math.random. */
  random?: () => number;
  /** Extra trusted CA (PEM): the simulator's self-signed certificate. */
  ca?: string;
  /** Deadline of each request attempt, token requests included (ms); unset: none. */
  requestTimeoutMs?: number;
  /** Resource Graph page size (default and maximum 1,000). */
  graphPageSize?: number;
  /**
   * CostQuery__Pacing. quota: cost queries wait only for the room the quota headers report; fixed:
   * also the original's fixed pauses around the history (default here, for callers that pass none).
   */
  costPacing?: 'quota' | 'fixed';
}

/** A cost period: month-to-date, or an inclusive range of days (yyyy-MM-dd). */
export type CostPeriod = { kind: 'MonthToDate' } | { kind: 'Range'; from: string; to: string };

export const MONTH_TO_DATE: CostPeriod = { kind: 'MonthToDate' };

function ymd(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The last full calendar month (UTC) before `now`: monthSelection=previous. */
export function previousMonthPeriod(now: Date = new Date()): CostPeriod {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return { kind: 'Range', from: ymd(new Date(Date.UTC(y, m - 1, 1))), to: ymd(new Date(Date.UTC(y, m, 0))) };
}

/** From the first day of the month `monthsBack` months ago to today (UTC): the history range. */
export function historyRange(now: Date = new Date(), monthsBack = 6): { from: string; to: string } {
  return {
    from: ymd(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack, 1))),
    to: ymd(now),
  };
}

export interface GroupServiceCost {
  resourceGroup: string;
  serviceName: string;
  cost: number;
  currency: string;
}

export interface DailyCost extends GroupServiceCost {
  /** yyyy-MM-dd. */
  date: string;
}

export interface ResourceDayCost {
  /** yyyy-MM-dd. */
  date: string;
  /** Lower case. */
  resourceId: string;
  cost: number;
  quantity: number | null;
  currency: string;
}

export interface CostTotals<T> {
  rows: T[];
  total: number;
  currency: string | null;
}

export interface AzureAccess {
  getSubscriptionName(subscriptionId: string): Promise<string>;
  listResources(
    subscriptionId: string,
    onPage?: (rows: AzureResource[], pageIndex: number) => void | Promise<void>,
  ): Promise<AzureResource[]>;
  /** Azure Advisor's cost recommendations (Resource Graph, AdvisorResources); optional for stand-ins. */
  listAdvisorCostRecommendations?(subscriptionId: string): Promise<AdvisorRecommendation[]>;
  /** One cost query, every page followed, rows keyed by column name. */
  queryCost(q: CostQuery): Promise<CostQueryResult>;
  /** Cost per resource group and service over the period (default month-to-date), granularity None. */
  monthToDateByGroupAndService(
    subscriptionId: string,
    period?: CostPeriod,
  ): Promise<CostTotals<GroupServiceCost>>;
  /** Cost per resource (lower-case ResourceId → cost) over the period (default month-to-date). */
  costByResource(
    subscriptionId: string,
    period?: CostPeriod,
  ): Promise<{ byResourceId: Map<string, number>; total: number; currency: string | null }>;
  /**
   * Daily cost per resource group and service, from..to inclusive (yyyy-MM-dd), with the history
   * pacing before each page. With `onPage`, rows are streamed and the result's rows stay empty.
   */
  dailyHistory(
    subscriptionId: string,
    from: string,
    to: string,
    onPage?: (rows: DailyCost[], pageIndex: number) => void | Promise<void>,
  ): Promise<CostTotals<DailyCost>>;
  /**
   * Daily cost and quantity per resource (lower-case id) of the given resource groups, from..to
   * inclusive, as `type` prices it; optional for stand-ins (the Kubernetes bill needs it).
   */
  dailyCostByResource?(
    subscriptionId: string,
    from: string,
    to: string,
    type: CostQueryType,
    resourceGroups: string[],
  ): Promise<ResourceDayCost[]>;
  /** The run's pauses; the engine calls `pace.betweenMtdAndHistory()` between MTD and history. */
  pace: Pacer;
}

function periodQuery(period: CostPeriod): Pick<CostQuery, 'timeframe' | 'from' | 'to'> {
  return period.kind === 'MonthToDate'
    ? { timeframe: 'MonthToDate' }
    : { timeframe: 'Custom', from: period.from, to: period.to };
}

function str(row: CostRow, name: string): string {
  const v = row[name];
  return v === null || v === undefined ? '' : String(v);
}

function groupServiceOf(row: CostRow): GroupServiceCost {
  return {
    resourceGroup: str(row, 'ResourceGroupName') || str(row, 'ResourceGroup'),
    serviceName: str(row, 'ServiceName'),
    cost: costOf(row),
    currency: str(row, 'Currency'),
  };
}

export function createAzureAccess(opts: AzureAccessOptions): AzureAccess {
  const armEndpoint = (opts.armEndpoint ?? PUBLIC_ARM_ENDPOINT).replace(/\/+$/, '');
  const sleep = opts.sleep ?? realSleep;
  const credential = createCredential({
    tenantId: opts.tenantId,
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    ...(opts.authorityHost ? { authorityHost: opts.authorityHost } : {}),
    ...(opts.ca ? { ca: opts.ca } : {}),
    ...(opts.requestTimeoutMs ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
  });
  const throttle = (api: string): ThrottleConfig => ({
    api,
    paceScale: opts.paceScale,
    sleep,
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const qpuPacer = new QpuPacer({ paceScale: opts.paceScale, sleep });
  const costClient = createCostClient(
    credential,
    armEndpoint,
    opts.ca,
    throttle('cost management'),
    qpuPacer,
  );
  const graphClient = createResourceGraphClient(
    credential,
    armEndpoint,
    opts.ca,
    throttle('resource graph'),
    opts.requestTimeoutMs ? [requestTimeoutPolicyFactory(opts.requestTimeoutMs)] : [],
  );
  const subscriptionClient = createSubscriptionClient(
    credential,
    armEndpoint,
    opts.ca,
    throttle('subscriptions'),
  );
  if (opts.requestTimeoutMs) {
    // After the throttle policy (same phase), so the deadline applies to each attempt, not to the
    // whole retry sequence with its back-off waits; on cost queries after the QPU pacer too, so
    // waiting for quota room is not counted against the request's deadline.
    costClient.pipeline.addPolicy(requestTimeoutPolicy(opts.requestTimeoutMs), {
      phase: 'Retry',
      afterPolicies: [THROTTLE_POLICY_NAME, QPU_PACER_POLICY],
    });
    subscriptionClient.pipeline.addPolicy(requestTimeoutPolicy(opts.requestTimeoutMs), {
      phase: 'Retry',
      afterPolicies: [THROTTLE_POLICY_NAME],
    });
  }
  const fixedPace = createPacer({
    paceScale: opts.paceScale,
    sleep,
    ...(opts.random ? { random: opts.random } : {}),
  });
  // Quota pacing: the fixed pauses become no-ops; the QPU pacer holds each query until it fits.
  const pace: Pacer =
    opts.costPacing === 'quota'
      ? { betweenMtdAndHistory: async () => {}, beforeHistoryPage: async () => {}, pause: fixedPace.pause }
      : fixedPace;

  const queryCost = (q: CostQuery) => runCostQuery(costClient, armEndpoint, opts.costQueryType, q);

  return {
    pace,
    queryCost,
    getSubscriptionName: (id) => getSubscriptionName(subscriptionClient, id),

    async listResources(subscriptionId, onPage) {
      const { resources } = await listResources(graphClient, subscriptionId, {
        ...(opts.graphPageSize ? { pageSize: opts.graphPageSize } : {}),
        ...(onPage ? { onPage } : {}),
      });
      return resources;
    },

    listAdvisorCostRecommendations: (subscriptionId) =>
      listAdvisorCostRecommendations(graphClient, subscriptionId),

    async monthToDateByGroupAndService(subscriptionId, period = MONTH_TO_DATE) {
      const r = await queryCost({
        subscriptionId,
        ...periodQuery(period),
        granularity: 'None',
        groupBy: ['ResourceGroupName', 'ServiceName'],
      });
      const rows = r.rows.map(groupServiceOf);
      return { rows, total: rows.reduce((s, x) => s + x.cost, 0), currency: rows[0]?.currency ?? null };
    },

    async costByResource(subscriptionId, period = MONTH_TO_DATE) {
      const r = await queryCost({
        subscriptionId,
        ...periodQuery(period),
        granularity: 'None',
        groupBy: ['ResourceId'],
      });
      const byResourceId = new Map<string, number>();
      let total = 0;
      let currency: string | null = null;
      for (const row of r.rows) {
        const id = str(row, 'ResourceId').toLowerCase();
        const cost = costOf(row);
        byResourceId.set(id, (byResourceId.get(id) ?? 0) + cost);
        total += cost;
        currency ??= str(row, 'Currency') || null;
      }
      return { byResourceId, total, currency };
    },

    async dailyCostByResource(subscriptionId, from, to, type, resourceGroups) {
      const r = await runCostQuery(costClient, armEndpoint, type, {
        subscriptionId,
        timeframe: 'Custom',
        from,
        to,
        granularity: 'Daily',
        groupBy: ['ResourceId'],
        withQuantity: true,
        filter: { dimensions: { name: 'ResourceGroupName', operator: 'In', values: resourceGroups } },
      });
      return r.rows.map((row) => {
        const q = row['UsageQuantity'];
        const quantity = typeof q === 'number' ? q : q == null || q === '' ? null : Number(q);
        return {
          date: usageDateOf(row) ?? '',
          resourceId: str(row, 'ResourceId').toLowerCase(),
          cost: costOf(row),
          quantity: quantity !== null && Number.isFinite(quantity) ? quantity : null,
          currency: str(row, 'Currency'),
        };
      });
    },

    async dailyHistory(subscriptionId, from, to, onPage) {
      const rows: DailyCost[] = [];
      /** UsageDate as received → yyyy-MM-dd: ~180 days, where the pages carry ~650,000 rows. */
      const dates = new Map<CostCell | undefined, string>();
      let total = 0;
      let currency: string | null = null;
      await queryCost({
        subscriptionId,
        timeframe: 'Custom',
        from,
        to,
        granularity: 'Daily',
        groupBy: ['ResourceGroupName', 'ServiceName'],
        beforePage: (i) => pace.beforeHistoryPage(i),
        onRawPage: async ({ columns, rows: cells }, i) => {
          // One scratch row per page, refilled for each row, gives costOf and friends the cells
          // rowsByName would, without an object per row; each row then becomes one plain literal,
          // never `{ ...groupServiceOf(row), date }` (the spread made every page's rows outlive the
          // page in V8's old space: ~100 MB of garbage before a full collection at 10,000
          // resources, bench/finops-analysis.ts). The date text is made once per day of the query.
          const row: CostRow = {};
          const mapped = cells.map((received): DailyCost => {
            for (let c = 0; c < columns.length; c++) row[columns[c]!] = costCell(received[c]);
            const usageDate = row['UsageDate'];
            let date = dates.get(usageDate);
            if (date === undefined) {
              date = usageDateOf(row) ?? '';
              dates.set(usageDate, date);
            }
            return {
              resourceGroup: str(row, 'ResourceGroupName') || str(row, 'ResourceGroup'),
              serviceName: str(row, 'ServiceName'),
              cost: costOf(row),
              currency: str(row, 'Currency'),
              date,
            };
          });
          for (const m of mapped) total += m.cost;
          currency ??= mapped[0]?.currency ?? null;
          if (onPage) await onPage(mapped, i);
          else for (const m of mapped) rows.push(m);
        },
      });
      return { rows, total, currency };
    },
  };
}
