import type { HttpResponseInit } from '@azure/functions';
import type { z } from 'zod';
import { perDatabase } from '../../../app/per-host.js';
import type { AppServices } from '../../../app/services.js';
import { KeptAnswers } from '../../../http/kept-answers.js';
import { type KeptStore, keptBytes } from '../../../http/kept-budget.js';
import { ok } from '../../../http/respond.js';
import { defineRoute, type RequestContext, type RouteDefinition } from '../../../http/route.js';
import { hasRunTotals } from '../../queries/run-totals.js';
import { runIdParams } from './common.js';

/**
 * The per-host stores of answers made of runs (see KeptAnswers), each bounded apart so one kind
 * of answer cannot push out all of another: history pages, lists of a run's rows (resources,
 * cost lines), run details. Their bounds are shares of Http__KeptAnswersMiB (kept-budget.ts).
 */
const poolsOf = perDatabase(({ config }: AppServices) => {
  const { platform } = config;
  const pool = (store: KeptStore) =>
    new KeptAnswers(keptBytes(platform, store), platform.Http__CompressionMinBytes);
  return { history: pool('historyPages'), lists: pool('lists'), details: pool('details') };
});
export type Pool = keyof ReturnType<typeof poolsOf>;

/**
 * The answer kept under `key` in `pool`, or build()'s (kept when in hand). The caller has looked
 * up, on this request, every input that shapes the answer and put it in the key; no key: built.
 * Stores hang off the host's PrismaClient, so hosts sharing a process never share one.
 */
export function keptAnswer(
  ctx: RequestContext,
  pool: Pool,
  key: unknown[] | undefined,
  build: () => Promise<HttpResponseInit>,
): Promise<HttpResponseInit> {
  const { services, request } = ctx;
  const cache = poolsOf(services)[pool];
  return cache.answer(key && JSON.stringify([pool, ...key]), request.headers.get('accept-encoding'), build);
}

/**
 * An answer read from one run's own rows alone (resources, cost lines), kept when the run was
 * written with its totals: then its rows were written whole, in the run's transaction, and never
 * change. The run is looked up on every request, so a deleted run is not answered from memory.
 */
export async function keptRunAnswer(
  ctx: RequestContext,
  runId: number,
  key: unknown[],
  build: (kept: boolean) => Promise<HttpResponseInit>,
): Promise<HttpResponseInit> {
  const kept = await hasRunTotals(ctx.services.prisma, runId);
  return keptAnswer(ctx, 'lists', kept ? [runId, ...key] : undefined, () => build(kept));
}

/**
 * A GET of one run's summary (a list computed from the run's rows alone, kept as keptRunAnswer
 * keeps it): the cost-line sums by group or service, the resource counts by type or group.
 */
export function runSummaryRoute(route: {
  name: string;
  path: string;
  summary: string;
  tags: string[];
  schema: z.ZodType;
  /** What tells this summary from the run's others in the kept store. */
  key: unknown[];
  read(services: AppServices, runId: number): Promise<unknown>;
}): RouteDefinition {
  return defineRoute({
    name: route.name,
    service: 'finops',
    method: 'GET',
    path: route.path,
    auth: 'user',
    openapi: {
      summary: route.summary,
      tags: route.tags,
      responses: { 200: { description: 'summary', schema: route.schema } },
    },
    input: { params: runIdParams },
    async handler(ctx) {
      const runId = ctx.input.params.analysisRunId;
      return keptRunAnswer(ctx, runId, route.key, async () => ok(await route.read(ctx.services, runId)));
    },
  });
}
