import type { HttpResponseInit } from '@azure/functions';
import { z } from 'zod';
import { text } from '../../../http/fields.js';
import { ok } from '../../../http/respond.js';
import { defineRoute, type RequestContext, type RouteDefinition } from '../../../http/route.js';
import { jsonArrayStream, okStream } from '../../../http/stream-body.js';
import { ResourceAnalysis, ResourceGroupSummary, ResourceTypeSummary } from '../../contract/schemas.js';
import {
  findResources,
  RESOURCE_STREAM_PAGE_ROWS,
  type ResourceFilter,
  resourceGroupSummary,
  resourceTypeSummary,
  streamResources,
} from '../../queries/resources.js';
import {
  HEAVY_429,
  PAGED_HEADERS_NOTE,
  type Paging,
  pagedHeaders,
  pageOf,
  pagingQuery,
  runIdParams,
  STREAMED_NOTE,
  UNPAGED_NOTE,
} from './common.js';
import { keptRunAnswer, runSummaryRoute } from './kept.js';

const tags = ['Resources'];
const base = 'Resources/analysis/{analysisRunId}';
const list = z.array(ResourceAnalysis);

/**
 * Resource lists of runs written with their totals (pages, and unpaged lists of up to
 * KEPT_LIST_ROWS rows: a type, a group, a search, the flagged resources), kept per host as JSON
 * bytes with their headers and the br/gzip bytes clients asked for. Building one costs reading its
 * rows and up to 3 MiB of JSON (and compressing it, for a browser), and a run's resources never
 * change once the engine has written them with their totals; a run without totals (rows inserted
 * by other means) is never kept (keptRunAnswer). The key is the run, the filter, the page and the
 * row limit.
 */
/** The longest list kept: a run's flagged resources (2,208 of 10,000 in the bench) fit. */
const KEPT_LIST_ROWS = 5000;

function unpagedList(
  ctx: RequestContext,
  runId: number,
  f: ResourceFilter,
  p: Paging,
): Promise<HttpResponseInit> {
  const { prisma } = ctx.services;
  return keptRunAnswer(ctx, runId, ['resources-unpaged', p.pageSize, f], async (kept) => {
    const streamed = await streamResources(prisma, runId, f, p.pageSize);
    // Only a list longer than one read is heavy: a search that finds ten resources costs what a
    // paged request costs, and the web client does not retry a 429. One that will be kept is
    // built whole (at most KEPT_LIST_ROWS, about 3 MiB); any other is streamed.
    if (streamed.total > RESOURCE_STREAM_PAGE_ROWS) ctx.heavy();
    if (streamed.total > (kept ? KEPT_LIST_ROWS : RESOURCE_STREAM_PAGE_ROWS)) {
      return okStream(streamed.rows, pagedHeaders(streamed.total, p));
    }
    const body = Buffer.concat(await jsonArrayStream(streamed.rows).toArray());
    return {
      status: 200,
      body,
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...pagedHeaders(streamed.total, p) },
    };
  });
}

/** The path and query of a resource list: the run, its own values, and the paging values. */
interface ListInput<P, Q> {
  params: z.ZodType<P & { analysisRunId: number }>;
  query: z.ZodType<Q & { page?: number | undefined; pageSize?: number | undefined }>;
}

function listRoute<P, Q>(
  name: string,
  path: string,
  summary: string,
  input: ListInput<P, Q>,
  filter: (input: { params: P; query: Q }) => ResourceFilter,
  defaultPageSize?: number,
): RouteDefinition {
  return defineRoute({
    name,
    service: 'finops',
    method: 'GET',
    path,
    auth: 'user',
    openapi: {
      summary,
      description: defaultPageSize
        ? PAGED_HEADERS_NOTE
        : `${UNPAGED_NOTE} ${STREAMED_NOTE} ${PAGED_HEADERS_NOTE}`,
      tags,
      responses: {
        200: { description: 'ResourceAnalysis[]', schema: list },
        ...(defaultPageSize ? {} : HEAVY_429),
      },
    },
    input,
    async handler(ctx) {
      const runId = ctx.input.params.analysisRunId;
      const f = filter(ctx.input);
      const p = pageOf(ctx.input.query, defaultPageSize);
      if (!p.explicit && defaultPageSize === undefined) {
        // The whole list (up to MAX_UNPAGED_ROWS): streamed, never held, unless one read holds it.
        return unpagedList(ctx, runId, f, p);
      }
      return keptRunAnswer(ctx, runId, ['resources-page', p.skip, p.pageSize, f], async () => {
        const { rows, total } = await findResources(ctx.services.prisma, runId, f, p.skip, p.pageSize);
        return ok(rows, pagedHeaders(total, p));
      });
    },
  });
}

const searchTerm = z
  .string({ error: 'Search term is required' })
  .trim()
  .min(1, 'Search term is required')
  .max(1000, 'Search term must be at most 1000 characters');

export const resourcesRoutes: RouteDefinition[] = [
  listRoute(
    'finops-resources-by-run',
    base,
    'Resources of a run by type then name (page=1, pageSize=50)',
    { params: runIdParams, query: pagingQuery },
    () => ({ kind: 'all' }),
    50,
  ),
  listRoute(
    'finops-resources-by-type',
    `${base}/type/{resourceType}`,
    'Resources of one type (case-insensitive), by name',
    { params: runIdParams.extend({ resourceType: text(1000) }), query: pagingQuery },
    ({ params }) => ({ kind: 'type', type: params.resourceType }),
  ),
  listRoute(
    'finops-resources-by-group',
    `${base}/resourcegroup/{resourceGroup}`,
    'Resources of one resource group (case-insensitive), by type then name',
    { params: runIdParams.extend({ resourceGroup: text(1000) }), query: pagingQuery },
    ({ params }) => ({ kind: 'group', group: params.resourceGroup }),
  ),
  listRoute(
    'finops-resources-flags',
    `${base}/flags`,
    'Resources with non-empty flags, optionally those whose flags contain flagContains (case-insensitive)',
    {
      params: runIdParams,
      query: pagingQuery.extend({ flagContains: z.string().trim().max(1000).optional() }),
    },
    ({ query }) => ({ kind: 'flags', contains: query.flagContains || undefined }),
  ),
  listRoute(
    'finops-resources-search',
    `${base}/search`,
    'Resources whose name, group or type contains searchTerm (case-insensitive, wildcards literal)',
    { params: runIdParams, query: pagingQuery.extend({ searchTerm }) },
    ({ query }) => ({ kind: 'search', term: query.searchTerm }),
  ),
  runSummaryRoute({
    name: 'finops-resources-summary-types',
    path: `${base}/summary/types`,
    summary: 'Resource counts by type, count descending',
    tags,
    schema: z.array(ResourceTypeSummary),
    key: ['resources-summary', 'types'],
    read: (services, runId) => resourceTypeSummary(services.prisma, runId),
  }),
  runSummaryRoute({
    name: 'finops-resources-summary-groups',
    path: `${base}/summary/resourcegroups`,
    summary: 'Resource counts by resource group (upper-case), count descending',
    tags,
    schema: z.array(ResourceGroupSummary),
    key: ['resources-summary', 'groups'],
    read: (services, runId) => resourceGroupSummary(services.prisma, runId),
  }),
];
