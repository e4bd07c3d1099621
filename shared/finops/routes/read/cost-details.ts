import { z } from 'zod';
import { intText, text } from '../../../http/fields.js';
import { defineRoute, type RouteDefinition } from '../../../http/route.js';
import { CostDetail, CostGroupSummary, CostServiceSummary } from '../../contract/schemas.js';
import { costSummary, findCostDetails } from '../../queries/cost-details.js';
import {
  okJsonText,
  PAGED_HEADERS_NOTE,
  pagedHeaders,
  pageOf,
  pagingQuery,
  runIdParams,
  UNPAGED_NOTE,
} from './common.js';
import { keptRunAnswer, runSummaryRoute } from './kept.js';

const tags = ['CostDetails'];
// A run's cost lines never change once written with it: its lists are kept (keptRunAnswer).
const base = 'CostDetails/analysis/{analysisRunId}';
const list = z.array(CostDetail);
export const MAX_TOP_COUNT = 1000;

export const costDetailsRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-costdetails-by-run',
    service: 'finops',
    method: 'GET',
    path: base,
    auth: 'user',
    openapi: {
      summary: 'Cost lines of a run, cost descending, with merged resource-group tags',
      description: `${UNPAGED_NOTE} ${PAGED_HEADERS_NOTE}`,
      tags,
      responses: { 200: { description: 'CostDetail[]', schema: list } },
    },
    input: { params: runIdParams, query: pagingQuery },
    async handler(ctx) {
      const runId = ctx.input.params.analysisRunId;
      const p = pageOf(ctx.input.query);
      return keptRunAnswer(ctx, runId, ['costs', null, p.skip, p.pageSize], async () => {
        const { json, total } = await findCostDetails(
          ctx.services.prisma,
          runId,
          undefined,
          p.skip,
          p.pageSize,
        );
        return okJsonText(json, pagedHeaders(total, p));
      });
    },
  }),
  defineRoute({
    name: 'finops-costdetails-by-type',
    service: 'finops',
    method: 'GET',
    path: `${base}/type/{costType}`,
    auth: 'user',
    openapi: {
      summary: 'Cost lines of one cost type (ResourceGroup or Service, case-insensitive)',
      description: `${UNPAGED_NOTE} ${PAGED_HEADERS_NOTE}`,
      tags,
      responses: { 200: { description: 'CostDetail[]', schema: list } },
    },
    input: { params: runIdParams.extend({ costType: text(100) }), query: pagingQuery },
    async handler(ctx) {
      const { analysisRunId: runId, costType } = ctx.input.params;
      const p = pageOf(ctx.input.query);
      return keptRunAnswer(ctx, runId, ['costs', costType, p.skip, p.pageSize], async () => {
        const { json, total } = await findCostDetails(
          ctx.services.prisma,
          runId,
          costType,
          p.skip,
          p.pageSize,
        );
        return okJsonText(json, pagedHeaders(total, p));
      });
    },
  }),
  defineRoute({
    name: 'finops-costdetails-top',
    service: 'finops',
    method: 'GET',
    path: `${base}/top/{count}`,
    auth: 'user',
    openapi: {
      summary: `The first count cost lines by cost (count 1–${MAX_TOP_COUNT}, else 400)`,
      tags,
      responses: { 200: { description: 'CostDetail[]', schema: list } },
    },
    input: { params: runIdParams.extend({ count: intText(1, MAX_TOP_COUNT) }) },
    async handler(ctx) {
      const { analysisRunId: runId, count } = ctx.input.params;
      return keptRunAnswer(ctx, runId, ['costs-top', count], async () =>
        okJsonText((await findCostDetails(ctx.services.prisma, runId, undefined, 0, count)).json),
      );
    },
  }),
  runSummaryRoute({
    name: 'finops-costdetails-summary-groups',
    path: `${base}/summary/resourcegroups`,
    summary: 'Sum of the ResourceGroup lines by group, totalCost descending',
    tags,
    schema: z.array(CostGroupSummary),
    key: ['costs-summary', 'ResourceGroup'],
    read: (services, runId) => costSummary(services.prisma, runId, 'ResourceGroup'),
  }),
  runSummaryRoute({
    name: 'finops-costdetails-summary-services',
    path: `${base}/summary/services`,
    summary: 'Sum of the Service lines by service, totalCost descending',
    tags,
    schema: z.array(CostServiceSummary),
    key: ['costs-summary', 'Service'],
    read: (services, runId) => costSummary(services.prisma, runId, 'Service'),
  }),
];
