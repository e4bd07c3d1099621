import type { HttpResponseInit } from '@azure/functions';
import { z } from 'zod';
import { badRequest } from '../../../http/problem.js';
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
  idParam,
  listHeaders,
  PAGED_HEADERS_NOTE,
  paging,
  pagingQuery,
  runIdParams,
  STREAMED_NOTE,
  textParam,
  UNPAGED_NOTE,
} from './common.js';
import { keptRunAnswer } from './kept.js';

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
  p: ReturnType<typeof paging>,
): Promise<HttpResponseInit> {
  const { prisma } = ctx.services;
  return keptRunAnswer(ctx, runId, ['resources-unpaged', p.pageSize, f], async (kept) => {
    const streamed = await streamResources(prisma, runId, f, p.pageSize);
    // Only a list longer than one read is heavy: a search that finds ten resources costs what a
    // paged request costs, and the web client does not retry a 429. One that will be kept is
    // built whole (at most KEPT_LIST_ROWS, about 3 MiB); any other is streamed.
    if (streamed.total > RESOURCE_STREAM_PAGE_ROWS) ctx.heavy();
    if (streamed.total > (kept ? KEPT_LIST_ROWS : RESOURCE_STREAM_PAGE_ROWS)) {
      return okStream(streamed.rows, listHeaders(streamed.total, p));
    }
    const body = Buffer.concat(await jsonArrayStream(streamed.rows).toArray());
    return {
      status: 200,
      body,
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...listHeaders(streamed.total, p) },
    };
  });
}

function listRoute(
  name: string,
  path: string,
  summary: string,
  filter: (ctx: RequestContext) => ResourceFilter,
  defaultPageSize?: number,
  query: z.ZodObject = pagingQuery,
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
      params: runIdParams,
      query,
      responses: {
        200: { description: 'ResourceAnalysis[]', schema: list },
        ...(defaultPageSize ? {} : HEAVY_429),
      },
    },
    async handler(ctx) {
      const runId = idParam(ctx.params, 'analysisRunId');
      const f = filter(ctx);
      const p = paging(ctx.query, defaultPageSize);
      if (!p.explicit && defaultPageSize === undefined) {
        // The whole list (up to MAX_UNPAGED_ROWS): streamed, never held, unless one read holds it.
        return unpagedList(ctx, runId, f, p);
      }
      return keptRunAnswer(ctx, runId, ['resources-page', p.skip, p.pageSize, f], async () => {
        const { rows, total } = await findResources(ctx.services.prisma, runId, f, p.skip, p.pageSize);
        return ok(rows, listHeaders(total, p));
      });
    },
  });
}

export const resourcesRoutes: RouteDefinition[] = [
  listRoute(
    'finops-resources-by-run',
    base,
    'Resources of a run by type then name (page=1, pageSize=50)',
    () => ({ kind: 'all' }),
    50,
  ),
  listRoute(
    'finops-resources-by-type',
    `${base}/type/{resourceType}`,
    'Resources of one type (case-insensitive), by name',
    ({ params }) => ({ kind: 'type', type: textParam(params, 'resourceType') }),
  ),
  listRoute(
    'finops-resources-by-group',
    `${base}/resourcegroup/{resourceGroup}`,
    'Resources of one resource group (case-insensitive), by type then name',
    ({ params }) => ({ kind: 'group', group: textParam(params, 'resourceGroup') }),
  ),
  listRoute(
    'finops-resources-flags',
    `${base}/flags`,
    'Resources with non-empty flags, optionally those whose flags contain flagContains (case-insensitive)',
    ({ query }) => ({ kind: 'flags', contains: query.get('flagContains')?.trim() || undefined }),
    undefined,
    pagingQuery.extend({ flagContains: z.string().optional() }),
  ),
  listRoute(
    'finops-resources-search',
    `${base}/search`,
    'Resources whose name, group or type contains searchTerm (case-insensitive, wildcards literal)',
    ({ query }) => {
      const term = query.get('searchTerm')?.trim();
      if (!term) throw badRequest('Search term is required', { searchTerm: ['Search term is required'] });
      return { kind: 'search', term };
    },
    undefined,
    pagingQuery.extend({ searchTerm: z.string().min(1) }),
  ),
  defineRoute({
    name: 'finops-resources-summary-types',
    service: 'finops',
    method: 'GET',
    path: `${base}/summary/types`,
    auth: 'user',
    openapi: {
      summary: 'Resource counts by type, count descending',
      tags,
      params: runIdParams,
      responses: { 200: { description: 'summary', schema: z.array(ResourceTypeSummary) } },
    },
    async handler(ctx) {
      const runId = idParam(ctx.params, 'analysisRunId');
      return keptRunAnswer(ctx, runId, ['resources-summary', 'types'], async () =>
        ok(await resourceTypeSummary(ctx.services.prisma, runId)),
      );
    },
  }),
  defineRoute({
    name: 'finops-resources-summary-groups',
    service: 'finops',
    method: 'GET',
    path: `${base}/summary/resourcegroups`,
    auth: 'user',
    openapi: {
      summary: 'Resource counts by resource group (upper-case), count descending',
      tags,
      params: runIdParams,
      responses: { 200: { description: 'summary', schema: z.array(ResourceGroupSummary) } },
    },
    async handler(ctx) {
      const runId = idParam(ctx.params, 'analysisRunId');
      return keptRunAnswer(ctx, runId, ['resources-summary', 'groups'], async () =>
        ok(await resourceGroupSummary(ctx.services.prisma, runId)),
      );
    },
  }),
];
