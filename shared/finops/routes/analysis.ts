import { z } from 'zod';
import { recordAudit } from '../../audit/record.js';
import { GUID } from '../../config/fields.js';
import { badRequest, notFound } from '../../http/problem.js';
import { json, ok } from '../../http/respond.js';
import { defineRoute, type RequestContext, type RouteDefinition } from '../../http/route.js';
import { toJobDto } from '../engine/jobs.js';
import { type MonthSelection, parseMonthSelection } from '../engine/period.js';

const TAGS = ['Analysis'];

/** The start routes' body: a JSON string "<guid>" (the original's) or { "subscriptionId": "<guid>" }. */
async function subscriptionIdFrom(ctx: RequestContext): Promise<string> {
  const body = await ctx.body(z.unknown());
  let value: unknown = body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const key = Object.keys(body).find((k) => k.toLowerCase() === 'subscriptionid');
    value = key ? (body as Record<string, unknown>)[key] : undefined;
  }
  const id = typeof value === 'string' ? value.trim() : '';
  if (!id)
    throw badRequest('Subscription ID is required', { subscriptionId: ['Subscription ID is required'] });
  if (!GUID.test(id)) {
    throw badRequest('Subscription ID must be a GUID', { subscriptionId: ['must be a subscription GUID'] });
  }
  return id;
}

function monthSelectionFrom(ctx: RequestContext): MonthSelection {
  const m = parseMonthSelection(ctx.query.get('monthSelection'));
  if (!m)
    throw badRequest('monthSelection must be current or previous', {
      monthSelection: ['must be current or previous'],
    });
  return m;
}

const startBody = z.union([z.string(), z.object({ subscriptionId: z.string() })]);
const monthQuery = z.object({ monthSelection: z.enum(['current', 'previous']).optional() });

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
        'Runs after any analysis ahead of it (one at a time). Prefer start-async: a full analysis takes minutes.',
      tags: TAGS,
      body: startBody,
      query: monthQuery,
      responses: {
        200: { description: 'Sync summary (success may be false)' },
        400: { description: 'Invalid id' },
      },
    },
    async handler(ctx) {
      const subscriptionId = await subscriptionIdFrom(ctx);
      const monthSelection = monthSelectionFrom(ctx);
      // Recorded as it starts: a synchronous run takes minutes and its job is the engine's to write.
      await recordAudit(ctx.services.prisma, {
        actor: ctx.caller ?? null,
        action: 'analysis.started',
        target: { type: 'subscription', id: subscriptionId.toLowerCase() },
        details: { mode: 'sync', monthSelection },
        request: ctx.request,
      });
      return ok(await ctx.services.finops.engine.startSync(subscriptionId, monthSelection));
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
      body: startBody,
      query: monthQuery,
      responses: { 202: { description: '{ jobId, subscriptionId, status } and a Location header' } },
    },
    async handler(ctx) {
      const subscriptionId = await subscriptionIdFrom(ctx);
      const monthSelection = monthSelectionFrom(ctx);
      const job = await ctx.services.finops.engine.startAsync(subscriptionId, monthSelection);
      await recordAudit(ctx.services.prisma, {
        actor: ctx.caller ?? null,
        action: 'analysis.started',
        target: { type: 'subscription', id: subscriptionId.toLowerCase() },
        details: { mode: 'async', monthSelection, jobId: job.id },
        request: ctx.request,
      });
      // From configuration, never the request's Host header (a client could point it anywhere).
      const base = (ctx.services.config.platform.PUBLIC_BASE_URL ?? '').replace(/\/+$/, '');
      return json(
        202,
        { jobId: job.id, subscriptionId, status: job.status },
        { Location: `${base}/finops/api/Analysis/jobs/${job.id}` },
      );
    },
  }),
  defineRoute({
    name: 'finops-analysis-job',
    service: 'finops',
    method: 'GET',
    path: 'Analysis/jobs/{jobId}',
    auth: 'user',
    openapi: {
      summary: 'Status of an analysis job',
      tags: TAGS,
      params: z.object({ jobId: z.uuid() }),
      responses: { 200: { description: 'Job status' }, 404: { description: 'Unknown or expired job id' } },
    },
    async handler(ctx) {
      const id = ctx.params.jobId ?? '';
      if (!GUID.test(id)) throw notFound('Unknown or expired job id');
      const job = await ctx.services.finops.engine.jobs.get(id.toLowerCase());
      if (!job) throw notFound('Unknown or expired job id');
      return ok(toJobDto(job));
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
