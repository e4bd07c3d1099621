import { z } from 'zod';
import { recordAudit } from '../../audit/record.js';
import { GUID } from '../../config/fields.js';
import { subscriptionId } from '../../http/fields.js';
import { notFound } from '../../http/problem.js';
import { json, ok } from '../../http/respond.js';
import { defineRoute, type RequestContext, type RouteDefinition } from '../../http/route.js';
import { toJobDto } from '../engine/jobs.js';
import type { MonthSelection } from '../engine/period.js';

const TAGS = ['Analysis'];

/** 202 with the job and its Location: start-async's answer, and start's when it runs long. */
export function accepted(ctx: RequestContext, jobId: string, subscriptionId: string, status: string) {
  // From configuration, never the request's Host header (a client could point it anywhere).
  const base = (ctx.services.config.platform.PUBLIC_BASE_URL ?? '').replace(/\/+$/, '');
  return json(
    202,
    { jobId, subscriptionId, status },
    { Location: `${base}/finops/api/Analysis/jobs/${jobId}` },
  );
}

/** The subscription id of a start body, lower-cased; the messages are the original's. */
const startId = subscriptionId({
  required: 'Subscription ID is required',
  notGuid: 'Subscription ID must be a GUID',
});

/** The start routes' body: a JSON string "<guid>" (the original's) or { "subscriptionId": "<guid>" }. */
const startBody = z
  .union([
    z.string().transform((subscriptionId) => ({ subscriptionId })),
    z.object({ subscriptionId: z.unknown() }),
  ])
  // Either shape is checked as the object, so a problem is always named `subscriptionId`.
  .pipe(z.object({ subscriptionId: startId }))
  .transform((b) => b.subscriptionId);

const monthQuery = z.object({
  monthSelection: z
    .string()
    .trim()
    .toLowerCase()
    // Blank is the default, as the original bound a missing value.
    .pipe(z.enum(['', 'current', 'previous'], { error: 'must be current or previous' }))
    .transform((v): MonthSelection => v || 'current')
    .optional()
    .describe('current (default) or previous'),
});
const startInput = { body: startBody, query: monthQuery };

/** /finops/api/Analysis/*: start, start-async, jobs, settings, cleanup. */
export const analysisRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-analysis-start',
    service: 'finops',
    method: 'POST',
    path: 'Analysis/start',
    auth: 'user',
    openapi: {
      summary: 'Run an analysis now and answer its summary',
      description:
        'Runs after any analysis ahead of it (one at a time). When it cannot finish within AnalysisStart__MaxWaitSeconds (200 s by default, under the 230 s Azure gives an HTTP response), answers 202 with the job, as start-async does, and the job goes on. Prefer start-async: a full analysis takes minutes.',
      tags: TAGS,
      responses: {
        200: { description: 'Sync summary (success may be false)' },
        202: {
          description:
            'Still running after the bound: { jobId, subscriptionId, status } and a Location header',
        },
        400: { description: 'Invalid id' },
      },
    },
    input: startInput,
    async handler(ctx) {
      const { body: subscriptionId, query } = ctx.input;
      const monthSelection = query.monthSelection ?? 'current';
      // Recorded as it starts: a synchronous run takes minutes and its job is the engine's to write.
      await recordAudit(ctx.services.prisma, {
        actor: ctx.caller ?? null,
        action: 'analysis.started',
        target: { type: 'subscription', id: subscriptionId },
        details: { mode: 'sync', monthSelection },
        request: ctx.request,
      });
      const maxWaitMs = ctx.services.config.finops.AnalysisStart__MaxWaitSeconds * 1000;
      const result = await ctx.services.finops.engine.startSync(subscriptionId, monthSelection, maxWaitMs);
      if (result.kind === 'summary') return ok(result.summary);
      // Azure would cut the response at 230 s: answer as start-async does; the job goes on.
      return accepted(ctx, result.job.id, subscriptionId, result.job.status);
    },
  }),
  defineRoute({
    name: 'finops-analysis-start-async',
    service: 'finops',
    method: 'POST',
    path: 'Analysis/start-async',
    auth: 'user',
    openapi: {
      summary: 'Queue an analysis',
      tags: TAGS,
      responses: { 202: { description: '{ jobId, subscriptionId, status } and a Location header' } },
    },
    input: startInput,
    async handler(ctx) {
      const { body: subscriptionId, query } = ctx.input;
      const monthSelection = query.monthSelection ?? 'current';
      const job = await ctx.services.finops.engine.startAsync(subscriptionId, monthSelection);
      await recordAudit(ctx.services.prisma, {
        actor: ctx.caller ?? null,
        action: 'analysis.started',
        target: { type: 'subscription', id: subscriptionId },
        details: { mode: 'async', monthSelection, jobId: job.id },
        request: ctx.request,
      });
      return accepted(ctx, job.id, subscriptionId, job.status);
    },
  }),
  defineRoute({
    name: 'finops-analysis-job',
    service: 'finops',
    method: 'GET',
    path: 'Analysis/jobs/{jobId}',
    auth: 'user',
    openapi: {
      summary:
        'Status of an analysis or cost import job (an import job adds `import`, its summary, or `imports`)',
      tags: TAGS,
      params: z.object({ jobId: z.uuid() }),
      responses: { 200: { description: 'Job status' }, 404: { description: 'Unknown or expired job id' } },
    },
    async handler(ctx) {
      // Not a route input: a job id that is not a GUID is a plain 404, as the original's {jobId:guid}
      // route constraint answered, not a 400.
      const id = ctx.params.jobId ?? '';
      if (!GUID.test(id)) throw notFound('Unknown or expired job id');
      const job = await ctx.services.finops.engine.jobs.get(id.toLowerCase());
      if (!job) throw notFound('Unknown or expired job id');
      // An import job adds what it produced (its summary) to the job's fields.
      const result =
        job.result && typeof job.result === 'object' && !Array.isArray(job.result) ? job.result : {};
      return ok({ ...toJobDto(job), ...result });
    },
  }),
  defineRoute({
    name: 'finops-analysis-settings',
    service: 'finops',
    method: 'GET',
    path: 'Analysis/settings',
    auth: 'user',
    openapi: { summary: 'Active analysis settings (cost query type)', tags: TAGS },
    async handler(ctx) {
      return ok(ctx.services.finops.engine.settings());
    },
  }),
  defineRoute({
    name: 'finops-analysis-cleanup',
    service: 'finops',
    method: 'POST',
    path: 'Analysis/cleanup',
    auth: 'admin',
    openapi: {
      summary: 'Delete old analysis runs, keeping the latest run of each subscription (administrators only)',
      tags: TAGS,
    },
    async handler(ctx) {
      const result = await ctx.services.finops.engine.cleanup();
      await recordAudit(ctx.services.prisma, {
        actor: ctx.caller ?? null,
        action: 'analysis.cleanup',
        details: {
          analysisRunsDeleted: result.analysisRunsDeleted,
          analysisRunsKept: result.analysisRunsKept,
        },
        request: ctx.request,
      });
      return ok(result);
    },
  }),
];
