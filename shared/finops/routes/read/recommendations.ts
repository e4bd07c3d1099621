import { z } from 'zod';
import { notFound } from '../../../http/problem.js';
import { ok } from '../../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../../http/route.js';
import { AiRecommendation, FormattedRecommendation, Problem } from '../../contract/schemas.js';
import {
  formattedRecommendation,
  latestRecommendation,
  listRecommendations,
  recommendationsByRun,
} from '../../queries/recommendations.js';
import {
  idParams,
  PAGED_HEADERS_NOTE,
  pagedHeaders,
  pageOf,
  pagingQuery,
  runIdParams,
  UNPAGED_NOTE,
} from './common.js';

const tags = ['Recommendations'];
const list = z.array(AiRecommendation);
const notFoundDoc = { description: 'problem+json', schema: Problem };

export const recommendationsRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-recommendations-list',
    service: 'finops',
    method: 'GET',
    path: 'Recommendations',
    auth: 'user',
    openapi: {
      summary: 'Every recommendation, newest first (page=1, pageSize=10); analysisRun is null (W1)',
      description: PAGED_HEADERS_NOTE,
      tags,
      responses: { 200: { description: 'AiRecommendation[]', schema: list } },
    },
    input: { query: pagingQuery },
    async handler({ services, input }) {
      const p = pageOf(input.query, 10);
      const { rows, total } = await listRecommendations(services.prisma, p.skip, p.pageSize);
      return ok(rows, pagedHeaders(total, p));
    },
  }),
  defineRoute({
    name: 'finops-recommendations-by-run',
    service: 'finops',
    method: 'GET',
    path: 'Recommendations/analysis/{analysisRunId}',
    auth: 'user',
    openapi: {
      summary: 'Recommendations of a run, recordedAt descending',
      description: `${UNPAGED_NOTE} ${PAGED_HEADERS_NOTE}`,
      tags,
      responses: { 200: { description: 'AiRecommendation[]', schema: list } },
    },
    input: { params: runIdParams, query: pagingQuery },
    async handler({ services, input }) {
      const runId = input.params.analysisRunId;
      const p = pageOf(input.query);
      const { rows, total } = await recommendationsByRun(services.prisma, runId, p.skip, p.pageSize);
      return ok(rows, pagedHeaders(total, p));
    },
  }),
  defineRoute({
    name: 'finops-recommendations-latest',
    service: 'finops',
    method: 'GET',
    path: 'Recommendations/analysis/{analysisRunId}/latest',
    auth: 'user',
    openapi: {
      summary: 'The newest recommendation of a run',
      tags,
      responses: { 200: { description: 'AiRecommendation', schema: AiRecommendation }, 404: notFoundDoc },
    },
    input: { params: runIdParams },
    async handler({ services, input }) {
      const r = await latestRecommendation(services.prisma, input.params.analysisRunId);
      if (!r) throw notFound('No recommendation found for this analysis run');
      return ok(r);
    },
  }),
  defineRoute({
    name: 'finops-recommendations-formatted',
    service: 'finops',
    method: 'GET',
    path: 'Recommendations/{id}/formatted',
    auth: 'user',
    openapi: {
      summary: 'One recommendation with escaped line breaks turned into newlines, and its summary',
      tags,
      responses: { 200: { description: 'formatted', schema: FormattedRecommendation }, 404: notFoundDoc },
    },
    input: { params: idParams },
    async handler({ services, input }) {
      const r = await formattedRecommendation(services.prisma, input.params.id);
      if (!r) throw notFound('Recommendation not found');
      return ok(r);
    },
  }),
];
