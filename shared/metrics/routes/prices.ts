/**
 * Cluster prices (per node, written when a price changes) and the Azure price lookup the web
 * client calls (anonymous as in the original, but bounded: a validated body of known
 * fields, 4 KB, a per-client rate, answers shared through the price cache).
 */
import { z } from 'zod';
import { perHost } from '../../app/per-host.js';
import type { MetricsSettings } from '../../config/metrics.js';
import { clientAddressOf } from '../../http/client.js';
import { intText } from '../../http/fields.js';
import { pagedHeaders, pageOf, pagingQuery } from '../../http/paging.js';
import { badRequest, HttpError, serviceUnavailable } from '../../http/problem.js';
import { json, ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { clusterAccess } from '../access.js';
import { listClusterPrices } from '../alerts/queries.js';
import { PerMinuteLimit } from '../prices/client-rate.js';
import { PricesUnavailable } from '../prices/price-lookup.js';
import { priceRequestSchema } from '../prices/retail-api.js';

const tags = ['ClusterPrices'];

const ClusterPriceOut = z.object({
  timestamp: z.string().describe('when this price took effect for the node (ISO 8601, UTC)'),
  clusterName: z.string(),
  nodeName: z.string(),
  region: z.string().nullable(),
  instanceType: z.string().nullable(),
  operatingSystem: z.string().nullable(),
  cloudProvider: z.string().nullable(),
  currencyCode: z.string(),
  unitPrice: z.number(),
  retailPrice: z.number().describe('per hour, as Azure lists it'),
  meterName: z.string(),
  productName: z.string(),
  skuName: z.string(),
  serviceName: z.string(),
  armRegionName: z.string(),
  effectiveStartDate: z.string(),
});

const text = (what: string) => z.string().trim().min(1, 'must not be empty').max(256).describe(what);
const minutes = intText(1, 366 * 1440)
  .optional()
  .describe('prices in effect during the last n minutes (default 1440)');

const PRICE_NOTE =
  'A row is written when a node first reports or its price changes; the answer holds the rows of the window and, for each node that reported in it, the price in effect when it began. Newest first, at most 100,000 rows unpaged (page, pageSize; X-Total-Count).';

async function priceList(
  services: Parameters<RouteDefinition['handler']>[0]['services'],
  caller: { userId: string; isAdmin: boolean },
  q: {
    clusterName?: string | undefined;
    nodeName?: string | undefined;
    region?: string | undefined;
    instanceType?: string | undefined;
    minutes?: number | undefined;
    page?: number;
    pageSize?: number;
  },
) {
  const { visible, clusterName } = await clusterAccess(services, caller, q.clusterName);
  const p = pageOf(q);
  const { rows, total } = await listClusterPrices(
    services.prisma,
    {
      clusters: visible,
      clusterName,
      nodeName: q.nodeName,
      region: q.region,
      instanceType: q.instanceType,
      since: new Date(Date.now() - (q.minutes ?? 1440) * 60_000),
    },
    p.skip,
    p.pageSize,
  );
  return ok(rows, pagedHeaders(total, p));
}

const priceListResponses = {
  200: { description: 'ClusterPriceDto[]', schema: z.array(ClusterPriceOut) },
  403: { description: 'the named cluster is not assigned to the caller' },
};

const rateOf = perHost((m: MetricsSettings) => new PerMinuteLimit(m.Metrics__AzurePricesPerClientPerMinute));

const AzurePriceResponse = z.object({
  BillingCurrency: z.string(),
  CustomerEntityId: z.string(),
  CustomerEntityType: z.string(),
  Items: z
    .array(z.record(z.string(), z.unknown()))
    .describe("Azure's items (camelCase, as Azure answers them)"),
  NextPageLink: z.string().nullable().describe('set only when more pages than finwatch reads were left'),
  Count: z.number().int(),
});

export const metricsPriceRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'metrics-cluster-prices',
    service: 'metrics',
    method: 'GET',
    path: 'cluster-prices',
    auth: 'user',
    input: {
      query: pagingQuery.extend({
        clusterName: text('only this cluster (any case)').optional(),
        nodeName: text('only this node (exact)').optional(),
        region: text('only this region (exact)').optional(),
        instanceType: text('only this node size (exact)').optional(),
        minutes,
      }),
    },
    openapi: {
      summary: 'Node prices of the clusters the caller may see',
      description: PRICE_NOTE,
      tags,
      responses: priceListResponses,
    },
    handler: ({ services, caller, input: { query } }) => priceList(services, caller, query),
  }),
  defineRoute({
    name: 'metrics-cluster-prices-cluster',
    service: 'metrics',
    method: 'GET',
    path: 'cluster-prices/cluster/{clusterName}',
    auth: 'user',
    input: {
      params: z.object({ clusterName: text('the cluster (any case)') }),
      query: pagingQuery.extend({
        nodeName: text('only this node (exact)').optional(),
        region: text('only this region (exact)').optional(),
        instanceType: text('only this node size (exact)').optional(),
        minutes,
      }),
    },
    openapi: {
      summary: "A cluster's node prices",
      description: PRICE_NOTE,
      tags,
      responses: priceListResponses,
    },
    handler: ({ services, caller, input: { params, query } }) =>
      priceList(services, caller, { ...query, clusterName: params.clusterName }),
  }),
  defineRoute({
    name: 'metrics-cluster-prices-node',
    service: 'metrics',
    method: 'GET',
    path: 'cluster-prices/cluster/{clusterName}/node/{nodeName}',
    auth: 'user',
    input: {
      params: z.object({ clusterName: text('the cluster (any case)'), nodeName: text('the node (exact)') }),
      query: pagingQuery.extend({ minutes }),
    },
    openapi: { summary: "A node's prices", description: PRICE_NOTE, tags, responses: priceListResponses },
    handler: ({ services, caller, input: { params, query } }) =>
      priceList(services, caller, { ...query, clusterName: params.clusterName, nodeName: params.nodeName }),
  }),
  defineRoute({
    name: 'metrics-azure-prices',
    service: 'metrics',
    method: 'POST',
    path: 'azure-prices',
    auth: 'none',
    maxBodyBytes: 4096,
    openapi: {
      summary: 'Azure retail prices for a VM size and region (anonymous, as the web client calls it)',
      description:
        'Body: currencyCode (default USD), serviceName, armSkuName, skuName, productName, armRegionName, type, operatingSystem (Linux | Windows). A raw OData `filter` is not accepted. Spot and Low Priority prices are left out. Answers are cached and shared; each client address may ask Metrics__AzurePricesPerClientPerMinute times a minute.',
      tags: ['AzurePrices'],
      responses: {
        200: { description: "Azure's answer (PascalCase envelope)", schema: AzurePriceResponse },
        400: { description: "a null body ('Request body is required') or an invalid field" },
        413: { description: 'a body over 4 KB' },
        429: { description: 'past the per-client rate (Retry-After)' },
        503: { description: 'Azure could not be reached and nothing is cached, or lookups are off' },
      },
    },
    // Counted before the body is read: invalid requests cost the client as much as valid ones.
    before({ services, request }) {
      const wait = rateOf(services.config.metrics).take(clientAddressOf(request));
      if (wait !== undefined) {
        throw new HttpError(429, 'Too many price requests from this address; try again shortly.', {
          headers: { 'Retry-After': String(wait) },
        });
      }
    },
    input: { body: priceRequestSchema.nullable() },
    async handler({ services, input: { body } }) {
      if (body === null) throw badRequest('Request body is required', { $: ['Request body is required'] });
      try {
        return json(200, await services.metricsAlerts.prices.get(body));
      } catch (err) {
        if (err instanceof PricesUnavailable) throw serviceUnavailable(err.message, 60);
        throw err;
      }
    },
  }),
];
