import type { HttpResponseInit } from '@azure/functions';
import { z } from 'zod';
import { subscriptionKey } from '../../../http/fields.js';
import { notFound } from '../../../http/problem.js';
import { noContent, ok, stringify } from '../../../http/respond.js';
import { defineRoute, type RequestContext, type RouteDefinition } from '../../../http/route.js';
import { AnalysisRun, AnalysisRunList, AnalysisRunWithDescription, Problem } from '../../contract/schemas.js';
import {
  deleteRun,
  latestPerSubscription,
  latestRun,
  listRuns,
  runExists,
  runWithChildren,
} from '../../queries/runs.js';
import { idParams, PAGED_HEADERS_NOTE, pagedHeaders, pageOf, pagingQuery } from './common.js';
import { keptAnswer } from './kept.js';

const tags = ['AnalysisRuns'];
const RUN_NOT_FOUND = 'Analysis run not found';
const notFoundDoc = { description: 'problem+json', schema: Problem };
/**
 * Child rows embedded in a run's detail: at most this many of each kind (W6). The full lists are
 * the paged child routes (Resources/analysis/{id}, CostDetails/analysis/{id}, ...).
 */
export const DETAIL_CHILD_ROWS = 1000;
const DETAIL_NOTE =
  `Children carry analysisRun: null (W1); historicalCosts stays [] as in the original. Each child list holds at most ` +
  `${DETAIL_CHILD_ROWS} rows; childCounts (added) gives the true counts, the child routes page through all of them.`;

/**
 * Run details (about 0.6 MiB of JSON for a run of 10,000 resources: four queries and a thousand
 * resources serialised; 14 KiB and several ms of CPU more to compress for a browser) kept per host
 * as bytes with their br/gzip bytes. A run and its children never change once written, so the
 * detail of a run id is the same answer until the run is deleted, and the routes look the run up
 * before every answer, so a deleted run is 404 at once.
 */
function runDetail(ctx: RequestContext, runId: number | undefined): Promise<HttpResponseInit> {
  if (runId === undefined) throw notFound(RUN_NOT_FOUND);
  return keptAnswer(ctx, 'details', [runId, DETAIL_CHILD_ROWS], async () => {
    const run = await runWithChildren(ctx.services.prisma, runId, DETAIL_CHILD_ROWS);
    if (!run) throw notFound(RUN_NOT_FOUND);
    return {
      status: 200,
      body: stringify(run),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    };
  });
}

export const analysisRunsRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-analysisruns-list',
    service: 'finops',
    method: 'GET',
    path: 'AnalysisRuns',
    auth: 'user',
    openapi: {
      summary: 'Runs, newest runDate first (page=1, pageSize=10)',
      description: PAGED_HEADERS_NOTE,
      tags,
      responses: { 200: { description: 'AnalysisRun[] with empty child arrays', schema: AnalysisRunList } },
    },
    input: { query: pagingQuery },
    async handler({ services, input }) {
      const p = pageOf(input.query, 10);
      const { rows, total } = await listRuns(services.prisma, p.skip, p.pageSize);
      return ok(rows, pagedHeaders(total, p));
    },
  }),
  defineRoute({
    name: 'finops-analysisruns-latest',
    service: 'finops',
    method: 'GET',
    path: 'AnalysisRuns/latest',
    auth: 'user',
    openapi: {
      summary: 'The newest run across all subscriptions, with its children',
      description: DETAIL_NOTE,
      tags,
      responses: { 200: { description: 'AnalysisRun', schema: AnalysisRun }, 404: notFoundDoc },
    },
    async handler(ctx) {
      const latest = await latestRun(ctx.services.prisma);
      if (!latest) throw notFound('No analysis runs found');
      return runDetail(ctx, latest.id);
    },
  }),
  defineRoute({
    name: 'finops-analysisruns-latest-per-subscription',
    service: 'finops',
    method: 'GET',
    path: 'AnalysisRuns/latest-per-subscription',
    auth: 'user',
    openapi: {
      summary: 'The newest run of each subscription with description, budget, infraSupportCost and MTD cost',
      description:
        'Exactly one row per subscription, ties on runDate broken by id (W12); sorted by subscriptionName.',
      tags,
      responses: {
        200: { description: 'AnalysisRunWithDescriptionDto[]', schema: z.array(AnalysisRunWithDescription) },
      },
    },
    async handler({ services }) {
      return ok(await latestPerSubscription(services.prisma));
    },
  }),
  defineRoute({
    name: 'finops-analysisruns-by-subscription',
    service: 'finops',
    method: 'GET',
    path: 'AnalysisRuns/subscription/{subscriptionId}',
    auth: 'user',
    openapi: {
      summary: 'Runs of one subscription, newest first (page=1, pageSize=10)',
      description: PAGED_HEADERS_NOTE,
      tags,
      responses: { 200: { description: 'AnalysisRun[]', schema: AnalysisRunList } },
    },
    input: { params: z.object({ subscriptionId: subscriptionKey() }), query: pagingQuery },
    async handler({ services, input }) {
      const { subscriptionId } = input.params;
      const p = pageOf(input.query, 10);
      const { rows, total } = await listRuns(services.prisma, p.skip, p.pageSize, subscriptionId);
      return ok(rows, pagedHeaders(total, p));
    },
  }),
  defineRoute({
    name: 'finops-analysisruns-get',
    service: 'finops',
    method: 'GET',
    path: 'AnalysisRuns/{id}',
    auth: 'user',
    openapi: {
      summary: 'A run with its cost details, resources and recommendations',
      description: DETAIL_NOTE,
      tags,
      responses: { 200: { description: 'AnalysisRun', schema: AnalysisRun }, 404: notFoundDoc },
    },
    input: { params: idParams },
    async handler(ctx) {
      const runId = ctx.input.params.id;
      return runDetail(ctx, (await runExists(ctx.services.prisma, runId)) ? runId : undefined);
    },
  }),
  defineRoute({
    name: 'finops-analysisruns-delete',
    service: 'finops',
    method: 'DELETE',
    path: 'AnalysisRuns/{id}',
    auth: 'admin',
    openapi: {
      summary: 'Delete a run and its rows (administrators only, W16)',
      tags,
      responses: { 204: { description: 'Deleted' }, 404: notFoundDoc },
    },
    input: { params: idParams },
    async handler({ services, input }) {
      if (!(await deleteRun(services.prisma, input.params.id))) throw notFound(RUN_NOT_FOUND);
      return noContent();
    },
  }),
];
