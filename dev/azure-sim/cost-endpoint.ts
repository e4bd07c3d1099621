/**
 * Cost Management's Query endpoint: the query is run once and paged through `$skiptoken`s that name
 * the kept result, as the service does; the tenant QPU quota is charged when it is switched on.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { CostQueryError, type CostTable, parseCostQuery, reorderColumns, runCostQuery } from './cost.js';
import { type CostQuota, monthsSpanned } from './cost-quota.js';
import type { FaultState } from './faults.js';
import { sendJson } from './http-io.js';
import type { SimSubscription } from './subscription.js';

export interface CostEndpointDeps {
  quota: CostQuota | undefined;
  faults: FaultState;
  now: () => Date;
  subscription: (id: string) => SimSubscription;
  /** Rows per page. */
  pageSize: number;
  /** The simulator's base URL (known once it listens), for nextLink. */
  baseUrl: () => string;
}

export type CostHandler = (
  res: ServerResponse,
  url: URL,
  subscriptionId: string,
  body: string,
  clientType: string,
) => void;

export function costEndpoint(deps: CostEndpointDeps): CostHandler {
  const { quota, faults, now, subscription } = deps;
  const costResults = new Map<string, { subscriptionId: string; result: CostTable }>();
  return (res, url, subscriptionId, body, clientType) => {
    const apiVersion = url.searchParams.get('api-version');
    if (!apiVersion)
      return sendJson(res, 400, { error: { code: 'MissingApiVersionParameter', message: 'api-version' } });
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(body);
    } catch {
      return sendJson(res, 400, {
        error: { code: 'BadRequest', message: 'The request body is not valid JSON.' },
      });
    }
    let quotaHeaders: Record<string, string> | undefined;
    if (quota) {
      let qpu = 1;
      try {
        const q = parseCostQuery(parsedBody, now());
        qpu = monthsSpanned(q.fromDay, q.toDay);
      } catch {
        // an invalid query is answered 400 below and costs 1 QPU
      }
      const decision = quota.charge(clientType, qpu);
      if (!decision.ok) {
        return sendJson(
          res,
          429,
          { error: { code: '429', message: 'Too many requests. Please retry.' } },
          {
            ...decision.headers,
            'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after': String(decision.retryAfterSeconds),
          },
        );
      }
      quotaHeaders = decision.headers;
    }
    let result: CostTable;
    let offset = 0;
    let cacheId: string;
    const skipToken = url.searchParams.get('$skiptoken');
    if (skipToken !== null) {
      // URLSearchParams decodes once, as the service does: a token that was encoded twice no longer
      // matches, and neither does one whose '+' was sent raw (it decodes to a space).
      const m = /^sk\+([0-9a-f]+)\/(\d+)==$/.exec(skipToken);
      const cached = m ? costResults.get(m[1]!) : undefined;
      if (!m || !cached || cached.subscriptionId.toLowerCase() !== subscriptionId.toLowerCase()) {
        return sendJson(res, 400, {
          error: { code: 'BadRequest', message: `Invalid $skiptoken '${skipToken}'.` },
        });
      }
      cacheId = m[1]!;
      offset = Number(m[2]);
      result = cached.result;
    } else {
      try {
        const q = parseCostQuery(parsedBody, now());
        result = runCostQuery(subscription(subscriptionId), q);
      } catch (err) {
        if (err instanceof CostQueryError)
          return sendJson(res, 400, { error: { code: err.code, message: err.message } });
        throw err;
      }
      cacheId = randomBytes(8).toString('hex');
      if (costResults.size >= 64) costResults.delete(costResults.keys().next().value as string);
      costResults.set(cacheId, { subscriptionId, result });
    }
    const end = offset + deps.pageSize;
    const nextLink =
      end < result.length
        ? `${deps.baseUrl()}/subscriptions/${subscriptionId}/providers/Microsoft.CostManagement/query?api-version=${apiVersion}&$skiptoken=${encodeURIComponent(`sk+${cacheId}/${end}==`)}`
        : null;
    const page = { columns: result.columns, rows: result.slice(offset, end) };
    const shown = faults.columnOrder === 'real' ? page : reorderColumns(page, faults.columnOrder);
    return sendJson(
      res,
      200,
      {
        id: `subscriptions/${subscriptionId}/providers/Microsoft.CostManagement/query/${cacheId}`,
        name: cacheId,
        type: 'Microsoft.CostManagement/query',
        location: null,
        sku: null,
        eTag: null,
        tags: null,
        properties: { nextLink, columns: shown.columns, rows: shown.rows },
      },
      {
        'x-ms-ratelimit-microsoft.costmanagement-qpu-consumed': '1',
        'x-ms-ratelimit-microsoft.costmanagement-qpu-remaining':
          'QueriesPerHour:597,QueriesPerMin:57,QueriesPer10Sec:9',
        'x-ms-ratelimit-remaining-microsoft.costmanagement-entity-requests': '29',
        'x-ms-ratelimit-remaining-microsoft.costmanagement-tenant-requests': '199',
        ...quotaHeaders,
      },
    );
  };
}
