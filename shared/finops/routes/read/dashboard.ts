import { z } from 'zod';
import { intText, subscriptionKey } from '../../../http/fields.js';
import { notFound } from '../../../http/problem.js';
import { ok, stringify } from '../../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../../http/route.js';
import {
  CostTrends,
  DashboardSummaryAnswer,
  OptimizationOpportunities,
  Problem,
  ResourceDistribution,
} from '../../contract/schemas.js';
import {
  costTrends,
  dashboardSummary,
  optimizationOpportunitiesJson,
  resourceDistribution,
} from '../../queries/dashboard.js';
import { runSummary } from '../../waste/items.js';
import { MAX_LIST_ROWS, okJsonText } from './common.js';

const tags = ['Dashboard'];
const NO_RUNS = 'No analysis runs found';
const scopeQuery = z.object({
  subscriptionId: subscriptionKey()
    .optional()
    .describe(
      'Added (W13): scope to one subscription; by default the newest run across all, as the original',
    ),
});
const noRunsDoc = { description: `problem+json, detail "${NO_RUNS}"`, schema: Problem };
export const MAX_TREND_MONTHS = 120;

export const dashboardRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-dashboard-summary',
    service: 'finops',
    method: 'GET',
    path: 'Dashboard/summary',
    auth: 'user',
    openapi: {
      summary: 'Key figures of the newest run; {message, totalRuns:0} when there is none',
      tags,
      responses: { 200: { description: 'summary', schema: DashboardSummaryAnswer } },
    },
    input: { query: scopeQuery },
    async handler({ services, input }) {
      const s = await dashboardSummary(services.prisma, input.query.subscriptionId);
      return ok(s ?? { message: 'No analysis runs found. Start a new analysis to see data.', totalRuns: 0 });
    },
  }),
  defineRoute({
    name: 'finops-dashboard-cost-trends',
    service: 'finops',
    method: 'GET',
    path: 'Dashboard/cost-trends',
    auth: 'user',
    openapi: {
      summary: `Runs of the last months (default 6, 1–${MAX_TREND_MONTHS}), runDate ascending`,
      description: `Each point carries (added) subscriptionId, currency and its subscription's monthly infraSupportCost. At most ${MAX_LIST_ROWS} points.`,
      tags,
      responses: { 200: { description: 'trends', schema: CostTrends } },
    },
    input: {
      query: scopeQuery.extend({
        months: intText(1, MAX_TREND_MONTHS).optional().describe('how many months back (default 6)'),
      }),
    },
    async handler({ services, input }) {
      const months = input.query.months ?? 6;
      return ok(await costTrends(services.prisma, months, MAX_LIST_ROWS, input.query.subscriptionId));
    },
  }),
  defineRoute({
    name: 'finops-dashboard-resource-distribution',
    service: 'finops',
    method: 'GET',
    path: 'Dashboard/resource-distribution',
    auth: 'user',
    openapi: {
      summary: 'Resource types of the newest run with counts and percentages (2 dp), count descending',
      tags,
      responses: { 200: { description: 'distribution', schema: ResourceDistribution }, 404: noRunsDoc },
    },
    input: { query: scopeQuery },
    async handler({ services, input }) {
      const d = await resourceDistribution(services.prisma, input.query.subscriptionId);
      if (!d) throw notFound(NO_RUNS);
      return ok(d);
    },
  }),
  defineRoute({
    name: 'finops-dashboard-optimization-opportunities',
    service: 'finops',
    method: 'GET',
    path: 'Dashboard/optimization-opportunities',
    auth: 'user',
    openapi: {
      summary: 'Flagged resources of the newest run grouped by type (count descending)',
      description: `The issue lists hold at most ${MAX_LIST_ROWS} resources in all; issuesTruncated (added) tells when some were left out.`,
      tags,
      responses: { 200: { description: 'opportunities', schema: OptimizationOpportunities }, 404: noRunsDoc },
    },
    input: { query: scopeQuery },
    async handler({ services, input }) {
      const o = await optimizationOpportunitiesJson(
        services.prisma,
        MAX_LIST_ROWS,
        input.query.subscriptionId,
      );
      if (!o) throw notFound(NO_RUNS);
      const waste = await runSummary(services.prisma, o.analysisRunId);
      if (!waste) return okJsonText(o.json); // the run is gone: no summary to add
      return okJsonText(opportunitiesWithWaste(o.json, waste));
    },
  }),
];

/**
 * {...opportunities, waste} as bytes, made once per kept waste summary (runSummary hands the same
 * object while the run and the decisions in force are the same) and opportunities text: the answer
 * is 150 KiB for the bench's run, and joining and encoding it cost more than the lookups.
 */
const withWaste = new WeakMap<object, { opportunities: string; bytes: Buffer }>();
function opportunitiesWithWaste(opportunities: string, waste: object): Buffer {
  const kept = withWaste.get(waste);
  if (kept && kept.opportunities === opportunities) return kept.bytes;
  const bytes = Buffer.from(`${opportunities.slice(0, -1)},"waste":${stringify(waste)}}`);
  withWaste.set(waste, { opportunities, bytes });
  return bytes;
}
