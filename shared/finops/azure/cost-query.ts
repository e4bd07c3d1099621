/**
 * Cost Management Query (2023-11-01) through @azure/arm-costmanagement.
 *
 * The SDK's `query.usage` returns one page and has no pager: it exposes `nextLink` but does not
 * follow it. We follow it ourselves through the same client's pipeline (`client.sendRequest`, so auth,
 * TLS and our throttle policy apply), POSTing the same body to the nextLink URL exactly as received:
 * its `$skiptoken` is already URL-encoded and must not be encoded again (weakness W2). Every page is
 * followed (W3) and columns are read by name from each page's `columns` (never by position).
 */

import { CostManagementClient, type QueryDefinition } from '@azure/arm-costmanagement';
import type { TokenCredential } from '@azure/core-auth';
import { createHttpHeaders, createPipelineRequest } from '@azure/core-rest-pipeline';
import { costQueryMutex } from './mutex.js';
import { coreClientOptions, installThrottlePolicy } from './pipeline.js';
import { type QpuPacer, qpuPacerPolicy } from './qpu-pacer.js';
import { THROTTLE_POLICY_NAME, type ThrottleConfig } from './throttle-policy.js';

export const COST_API_VERSION = '2023-11-01';
/** The aggregation we ask for; the alias is also the response column's name. */
export const COST_COLUMN = 'Cost';
export const QUANTITY_COLUMN = 'UsageQuantity';

export type CostQueryType = 'ActualCost' | 'AmortizedCost';
export type CostCell = string | number | null;
/** One result row keyed by column name, e.g. { Cost: 1.2, UsageDate: 20261101, ServiceName: 'Storage', Currency: 'EUR' }. */
export type CostRow = Record<string, CostCell>;

export interface CostQuery {
  subscriptionId: string;
  timeframe: 'MonthToDate' | 'TheLastMonth' | 'Custom';
  /** yyyy-MM-dd (or a Date); required for Custom. Inclusive. */
  from?: string | Date;
  /** yyyy-MM-dd (or a Date); required for Custom. Inclusive. */
  to?: string | Date;
  granularity: 'Daily' | 'None';
  /** Dimension names, at most two: ResourceGroupName, ServiceName, ResourceId, ResourceType, ... */
  groupBy: string[];
  /** dataset.filter as the API takes it (e.g. dimensions ResourceGroupName In [...]). */
  filter?: Record<string, unknown>;
  /** Also sum UsageQuantity, in the column `UsageQuantity` (instance-hours for a scale set). */
  withQuantity?: boolean;
  /** Called with each page's rows; when given, rows are not accumulated (the result's rows are empty). */
  onPage?: (rows: CostRow[], pageIndex: number) => void | Promise<void>;
  /**
   * Instead of `onPage`: each page as received, its rows arrays in the order of its own `columns`
   * (which can differ from page to page). Skips making an object per row (a history page is 5,000
   * rows); rows are not accumulated.
   */
  onRawPage?: (page: RawCostPage, pageIndex: number) => void | Promise<void>;
  /** Awaited before each page request (0 = the first); used for the history pacing. */
  beforePage?: (pageIndex: number) => Promise<void>;
}

export interface RawCostPage {
  columns: string[];
  rows: readonly (readonly unknown[])[];
}

export interface CostQueryResult {
  columns: string[];
  rows: CostRow[];
  rowCount: number;
  pages: number;
}

export function createCostClient(
  credential: TokenCredential,
  armEndpoint: string,
  ca: string | undefined,
  throttle: ThrottleConfig,
  pacer?: QpuPacer,
): CostManagementClient {
  const client = new CostManagementClient(credential, {
    ...coreClientOptions(armEndpoint, ca),
    apiVersion: COST_API_VERSION,
  });
  installThrottlePolicy(client.pipeline, throttle);
  // Inside the retry policy, so every attempt (a retry too) waits for quota room first.
  if (pacer)
    client.pipeline.addPolicy(qpuPacerPolicy(pacer), {
      phase: 'Retry',
      afterPolicies: [THROTTLE_POLICY_NAME],
    });
  return client;
}

function day(value: string | Date | undefined, what: string): string {
  if (value === undefined) throw new Error(`A Custom cost query needs '${what}'.`);
  const text = value instanceof Date ? value.toISOString() : value;
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(text);
  if (!m) throw new Error(`Invalid date for '${what}': ${text}`);
  return m[1]!;
}

/** The request body as it goes on the wire (the SDK serializes the same definition to this). */
export function buildQueryBody(type: CostQueryType, q: CostQuery): Record<string, unknown> {
  if (q.groupBy.length > 2) throw new Error('The cost API allows at most two groupings.');
  return {
    type,
    timeframe: q.timeframe,
    ...(q.timeframe === 'Custom'
      ? { timePeriod: { from: `${day(q.from, 'from')}T00:00:00Z`, to: `${day(q.to, 'to')}T23:59:59Z` } }
      : {}),
    dataset: {
      granularity: q.granularity,
      aggregation: {
        [COST_COLUMN]: { name: COST_COLUMN, function: 'Sum' },
        ...(q.withQuantity ? { [QUANTITY_COLUMN]: { name: QUANTITY_COLUMN, function: 'Sum' } } : {}),
      },
      grouping: q.groupBy.map((name) => ({ type: 'Dimension', name })),
      ...(q.filter ? { filter: q.filter } : {}),
    },
  };
}

function toDefinition(body: Record<string, unknown>): QueryDefinition {
  const tp = body['timePeriod'] as { from: string; to: string } | undefined;
  return {
    ...(body as unknown as QueryDefinition),
    ...(tp ? { timePeriod: { from: new Date(tp.from), to: new Date(tp.to) } } : {}),
  };
}

interface Page {
  columns: Array<{ name?: string }>;
  rows: unknown[][];
  nextLink: string | null;
}

/** A cell as received → a CostCell (numbers and strings as they are, anything else as text or null). */
export function costCell(v: unknown): CostCell {
  return typeof v === 'number' || typeof v === 'string' ? v : v == null ? null : String(v);
}

/** Rows → objects keyed by the page's column names. */
export function rowsByName(columns: Array<{ name?: string }>, rows: unknown[][]): CostRow[] {
  const names = columns.map((c, i) => c.name ?? `column${i}`);
  return rows.map((row) => {
    const out: CostRow = {};
    names.forEach((name, i) => {
      out[name] = costCell(row[i]);
    });
    return out;
  });
}

async function followNextLink(client: CostManagementClient, nextLink: string, body: unknown): Promise<Page> {
  const request = createPipelineRequest({
    url: nextLink, // as received: already encoded, never re-encoded
    method: 'POST',
    body: JSON.stringify(body),
    headers: createHttpHeaders({
      'content-type': 'application/json; charset=utf-8',
      accept: 'application/json',
    }),
  });
  const response = await client.sendRequest(request);
  const text = response.bodyAsText ?? '';
  if (response.status !== 200) {
    throw new CostQueryFailed(response.status, text);
  }
  const parsed = JSON.parse(text) as {
    properties?: { nextLink?: string | null; columns?: Page['columns']; rows?: unknown[][] };
  };
  return {
    columns: parsed.properties?.columns ?? [],
    rows: parsed.properties?.rows ?? [],
    nextLink: parsed.properties?.nextLink ?? null,
  };
}

export class CostQueryFailed extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    let message = body.slice(0, 300);
    try {
      const e = JSON.parse(body) as { error?: { code?: string; message?: string } };
      if (e.error?.message) message = `${e.error.code ?? ''} ${e.error.message}`.trim();
    } catch {
      // keep the raw text
    }
    super(`Cost query failed with HTTP ${status}: ${message}`);
    this.name = 'CostQueryFailed';
  }
}

/**
 * Runs one cost query and follows every page. Each page request holds the process-wide cost-query
 * lock (retries and back-off included), so no two cost requests are ever in flight together.
 */
export async function runCostQuery(
  client: CostManagementClient,
  armEndpoint: string,
  type: CostQueryType,
  q: CostQuery,
): Promise<CostQueryResult> {
  const scope = `subscriptions/${q.subscriptionId}`;
  const body = buildQueryBody(type, q);
  const armOrigin = new URL(armEndpoint).origin;
  const rows: CostRow[] = [];
  let columns: string[] = [];
  let rowCount = 0;
  let pages = 0;
  let nextLink: string | null = null;
  do {
    if (q.beforePage) await q.beforePage(pages);
    const link: string | null = nextLink;
    const page: Page = await costQueryMutex.runExclusive(async () => {
      if (link === null) {
        const r = await client.query.usage(scope, toDefinition(body));
        return {
          columns: r.columns ?? [],
          rows: (r.rows ?? []) as unknown[][],
          nextLink: r.nextLink ?? null,
        };
      }
      return followNextLink(client, link, body);
    });
    columns = page.columns.map((c, i) => c.name ?? `column${i}`);
    rowCount += page.rows.length;
    if (q.onRawPage) await q.onRawPage({ columns, rows: page.rows }, pages);
    else {
      const pageRows = rowsByName(page.columns, page.rows);
      if (q.onPage) await q.onPage(pageRows, pages);
      else for (const r of pageRows) rows.push(r);
    }
    pages++;
    nextLink = page.nextLink || null;
    if (nextLink && new URL(nextLink).origin !== armOrigin) {
      // Never send the bearer token anywhere but the ARM endpoint we were configured with.
      throw new Error(`Cost API nextLink points outside ${armOrigin}: ${new URL(nextLink).origin}`);
    }
  } while (nextLink);
  return { columns, rows, rowCount, pages };
}

/** The cost of a row, whatever the aggregation column is called. */
export function costOf(row: CostRow): number {
  const v = row[COST_COLUMN] ?? row['PreTaxCost'] ?? row['CostUSD'] ?? row['PreTaxCostUSD'] ?? 0;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : 0;
}

/** UsageDate (yyyyMMdd number, or an ISO date string) → yyyy-MM-dd. */
export function usageDateOf(row: CostRow): string | null {
  const v = row['UsageDate'];
  if (typeof v === 'number') {
    const s = String(v);
    return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`;
  }
  if (typeof v === 'string') {
    if (/^\d{8}$/.test(v)) return `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}`;
    const m = /^(\d{4}-\d{2}-\d{2})/.exec(v);
    return m ? m[1]! : null;
  }
  return null;
}
