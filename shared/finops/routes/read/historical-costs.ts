import type { Readable } from 'node:stream';
import type { HttpResponseInit } from '@azure/functions';
import { z } from 'zod';
import { perDatabase } from '../../../app/per-host.js';
import type { AppServices } from '../../../app/services.js';
import { AnswerCache } from '../../../http/answer-cache.js';
import { type ContentCoding, compressStream, negotiateEncoding } from '../../../http/compression.js';
import { dateText, subscriptionKey } from '../../../http/fields.js';
import { keptBytes } from '../../../http/kept-budget.js';
import { ok } from '../../../http/respond.js';
import { defineRoute, type RequestContext, type RouteDefinition } from '../../../http/route.js';
import { okStream, toReadable } from '../../../http/stream-body.js';
import {
  DailyTotal,
  HistoricalByGroup,
  HistoricalByService,
  HistoricalCost,
  TrendAnswer,
} from '../../contract/schemas.js';
import {
  costTrend,
  dailyTotals,
  historicalByGroup,
  historicalByRun,
  historicalByService,
  historicalBySubscription,
  infraOf,
  infraSupportCosts,
  keptServiceTotal,
  runHistoryInputs,
  runHistoryTotal,
  runInfraSupport,
  streamHistoricalByRun,
  streamHistoricalBySubscription,
  subscriptionHistoryTotal,
} from '../../queries/historical.js';
import {
  HEAVY_429,
  okJsonText,
  PAGED_HEADERS_NOTE,
  type Paging,
  pagedHeaders,
  pageOf,
  pagingQuery,
  runIdParams,
  STREAMED_NOTE,
  UNPAGED_NOTE,
} from './common.js';
import { keptAnswer } from './kept.js';

const tags = ['HistoricalCosts'];
const base = 'HistoricalCosts/analysis/{analysisRunId}';
const LIST_NOTE = `${UNPAGED_NOTE} ${PAGED_HEADERS_NOTE}`;
const OVERLAY_NOTE =
  "Each row carries infraSupportCost (added): the subscription's monthly infra support cost (400 without a Subscriptions row).";

/**
 * Compressed unpaged histories, per host, of one run or of a subscription's runs. Runs and the
 * tags their rows carry never change after they are written, so an answer only changes with the
 * subscription's infra support cost (in the key) or the runs it is made of (in the key: a new or
 * deleted run is another key). The web client reads the same history twice per view, and every
 * viewer of a subscription reads the same runs: 51k rows are about 0.7 MiB compressed and take a
 * second of CPU to produce. Uncompressed answers (17 MiB per 51k rows) are never kept.
 */
const historyCacheOf = perDatabase(
  ({ config }: AppServices) => new AnswerCache(keptBytes(config.platform, 'unpagedHistory')),
);

/**
 * The unpaged answer under `key` from the cache, or streamed from `rows()` (and kept under `key`
 * once whole). No key (an answer that cannot be named by immutable runs) or no compression: always
 * streamed. Only an answer that must be produced counts as heavy: bytes in hand cost nothing to
 * send, so a user with the history open in several tabs is not refused what is already made.
 */
async function cachedHistory(
  { services, request, heavy }: RequestContext,
  headers: Record<string, string>,
  key: (coding: ContentCoding) => Promise<string | undefined>,
  rows: () => AsyncIterable<unknown>,
): Promise<HttpResponseInit> {
  const coding = negotiateEncoding(request.headers.get('accept-encoding'));
  const k = coding ? await key(coding) : undefined;
  if (!coding || k === undefined) {
    heavy();
    return okStream(rows(), headers);
  }
  const cache = historyCacheOf(services);
  const compressed = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Encoding': coding,
    Vary: 'Accept-Encoding',
    ...headers,
  };
  const hit = cache.get(k);
  if (hit) return { status: 200, body: hit, headers: compressed };
  heavy();
  const body = toReadable(okStream(rows()).body as Readable);
  return { status: 200, body: cache.fillFrom(k, compressStream(body, coding)), headers: compressed };
}

/**
 * Pages of history (of a run, its daily totals, groups and services, of a subscription's runs) kept per host as
 * bytes, with the br/gzip bytes clients asked for. A page is read from rows that never change once
 * their run is written, so its key holds every input that shapes it (the runs, the filters, the
 * page, the infra support cost), and those are looked up in the database on every request: a
 * deleted run, a new run of the subscription or a new infra support cost is another key. Runs
 * written without their totals (imported, or by hand) are never kept. A history page of 200 rows
 * cost about 3 ms of CPU to build; answering one from memory costs its lookup.
 */
const keptPage = (ctx: RequestContext, key: unknown[] | undefined, build: () => Promise<HttpResponseInit>) =>
  keptAnswer(ctx, 'history', key, build);

async function runHistoryPage(ctx: RequestContext, runId: number, p: Paging): Promise<HttpResponseInit> {
  const { prisma } = ctx.services;
  const run = await runHistoryInputs(prisma, runId);
  const key = run?.kept ? ['run', runId, p.skip, p.pageSize, String(run.infra)] : undefined;
  return keptPage(ctx, key, async () => {
    const { json, total } = await historicalByRun(prisma, runId, p.skip, p.pageSize);
    return okJsonText(json, pagedHeaders(total, p));
  });
}

/** What names a subscription's history, paged or not: its runs, the dates asked and its infra cost. */
function subscriptionHistoryKey(
  subscriptionId: string,
  start: Date | undefined,
  end: Date | undefined,
  runIds: number[],
  infra: unknown,
): unknown[] {
  return [
    'sub',
    subscriptionId,
    start?.toISOString() ?? null,
    end?.toISOString() ?? null,
    runIds.join(','),
    String(infra),
  ];
}

async function subscriptionHistoryPage(
  ctx: RequestContext,
  subscriptionId: string,
  start: Date | undefined,
  end: Date | undefined,
  p: Paging,
): Promise<HttpResponseInit> {
  const { prisma } = ctx.services;
  const [{ total, runIds }, infra] = await Promise.all([
    subscriptionHistoryTotal(prisma, subscriptionId, start, end),
    infraSupportCosts(prisma, [subscriptionId]),
  ]);
  // Named by its runs only when every run keeps its totals (runIds): then the page is read from
  // those runs alone, so a run written meanwhile is not kept under the key of the runs before it.
  const key = runIds
    ? [
        ...subscriptionHistoryKey(subscriptionId, start, end, runIds, infraOf(infra, subscriptionId)),
        p.skip,
        p.pageSize,
      ]
    : undefined;
  return keptPage(ctx, key, async () => {
    const page = await historicalBySubscription(prisma, subscriptionId, start, end, p.skip, p.pageSize, {
      total,
      runIds,
    });
    return okJsonText(page.json, pagedHeaders(page.total, p));
  });
}

async function serviceHistoryPage(
  ctx: RequestContext,
  runId: number,
  service: string | undefined,
  p: Paging,
): Promise<HttpResponseInit> {
  const { prisma } = ctx.services;
  // The totals kept with the run: only a run written with them has them, and its rows never change.
  const kept = (await keptServiceTotal(prisma, runId, service)) ?? null;
  const key = kept ? ['service', runId, service ?? null, p.skip, p.pageSize] : undefined;
  return keptPage(ctx, key, async () => {
    const { json, total } = await historicalByService(prisma, runId, service, p.skip, p.pageSize, kept);
    return okJsonText(json, pagedHeaders(total, p));
  });
}

async function unpagedRunHistory(ctx: RequestContext, runId: number, p: Paging): Promise<HttpResponseInit> {
  const { prisma } = ctx.services;
  const { total, kept } = await runHistoryTotal(prisma, runId);
  // Only a run written with its totals is cached: its rows all carry its own subscription's infra
  // support cost, which the key holds. A deleted run has a total of 0.
  return cachedHistory(
    ctx,
    pagedHeaders(total, p),
    async (coding) =>
      total > 0 && kept
        ? `run|${runId}|${total}|${p.pageSize}|${String(await runInfraSupport(prisma, runId))}|${coding}`
        : undefined,
    () => streamHistoricalByRun(prisma, runId, p.pageSize),
  );
}

async function unpagedSubscriptionHistory(
  ctx: RequestContext,
  subscriptionId: string,
  start: Date | undefined,
  end: Date | undefined,
  p: Paging,
): Promise<HttpResponseInit> {
  const { prisma } = ctx.services;
  const { total, runIds } = await subscriptionHistoryTotal(prisma, subscriptionId, start, end);
  // Named by its runs (every run keeps its totals): the rows are read from those runs alone.
  const named = total > 0 && runIds !== undefined;
  return cachedHistory(
    ctx,
    pagedHeaders(total, p),
    async (coding) => {
      if (!named) return undefined;
      const infra = infraOf(await infraSupportCosts(prisma, [subscriptionId]), subscriptionId);
      const runs = subscriptionHistoryKey(subscriptionId, start, end, runIds, infra);
      return JSON.stringify([...runs, total, p.pageSize, coding]);
    },
    () =>
      streamHistoricalBySubscription(
        prisma,
        subscriptionId,
        start,
        end,
        p.pageSize,
        named ? runIds : undefined,
      ),
  );
}

export const historicalCostsRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-historical-by-run',
    service: 'finops',
    method: 'GET',
    path: base,
    auth: 'user',
    openapi: {
      summary: 'Historical rows of a run (Total, ResourceGroup, Service), costDate ascending, with tags',
      description: `${LIST_NOTE} ${STREAMED_NOTE} ${OVERLAY_NOTE}`,
      tags,
      responses: { 200: { description: 'HistoricalCost[]', schema: z.array(HistoricalCost) }, ...HEAVY_429 },
    },
    input: { params: runIdParams, query: pagingQuery },
    async handler(ctx) {
      const { input } = ctx;
      const runId = input.params.analysisRunId;
      const p = pageOf(input.query);
      // Unpaged (the web client's call): tens of thousands of rows, streamed, never held.
      if (!p.explicit) return unpagedRunHistory(ctx, runId, p);
      return runHistoryPage(ctx, runId, p);
    },
  }),
  defineRoute({
    name: 'finops-historical-by-subscription',
    service: 'finops',
    method: 'GET',
    path: 'HistoricalCosts/subscription/{subscriptionId}',
    auth: 'user',
    openapi: {
      summary:
        'Historical rows of a subscription across its runs, optionally between startDate and endDate (inclusive)',
      description: `${LIST_NOTE} ${STREAMED_NOTE} ${OVERLAY_NOTE}`,
      tags,
      responses: { 200: { description: 'HistoricalCost[]', schema: z.array(HistoricalCost) }, ...HEAVY_429 },
    },
    input: {
      params: z.object({ subscriptionId: subscriptionKey() }),
      query: pagingQuery.extend({
        startDate: dateText().optional().describe('from this date (inclusive)'),
        endDate: dateText().optional().describe('to this date (inclusive)'),
      }),
    },
    async handler(ctx) {
      const { subscriptionId } = ctx.input.params;
      const { startDate: start, endDate: end } = ctx.input.query;
      const p = pageOf(ctx.input.query);
      // Unpaged (the web client's call): streamed, or the compressed answer already made.
      if (!p.explicit) return unpagedSubscriptionHistory(ctx, subscriptionId, start, end, p);
      return subscriptionHistoryPage(ctx, subscriptionId, start, end, p);
    },
  }),
  defineRoute({
    name: 'finops-historical-daily-totals',
    service: 'finops',
    method: 'GET',
    path: `${base}/daily-totals`,
    auth: 'user',
    openapi: {
      summary: 'Daily totals of a run, ascending',
      description: `${LIST_NOTE} ${OVERLAY_NOTE}`,
      tags,
      responses: { 200: { description: '[{date, cost, currency}]', schema: z.array(DailyTotal) } },
    },
    input: { params: runIdParams, query: pagingQuery },
    async handler(ctx) {
      const runId = ctx.input.params.analysisRunId;
      const p = pageOf(ctx.input.query);
      const { prisma } = ctx.services;
      const run = await runHistoryInputs(prisma, runId);
      const key = run?.kept ? ['daily', runId, p.skip, p.pageSize, String(run.infra)] : undefined;
      return keptPage(ctx, key, async () => {
        const { json, total } = await dailyTotals(prisma, runId, p.skip, p.pageSize);
        return okJsonText(json, pagedHeaders(total, p));
      });
    },
  }),
  defineRoute({
    name: 'finops-historical-by-group',
    service: 'finops',
    method: 'GET',
    path: `${base}/by-resourcegroup`,
    auth: 'user',
    openapi: {
      summary:
        'Daily cost per resource group (upper-case), by date then group; resourceGroup filters (case-insensitive)',
      description: LIST_NOTE,
      tags,
      responses: { 200: { description: 'rows', schema: z.array(HistoricalByGroup) } },
    },
    input: {
      params: runIdParams,
      query: pagingQuery.extend({ resourceGroup: z.string().trim().max(1000).optional() }),
    },
    async handler(ctx) {
      const runId = ctx.input.params.analysisRunId;
      const group = ctx.input.query.resourceGroup || undefined;
      const p = pageOf(ctx.input.query);
      const { prisma } = ctx.services;
      const run = await runHistoryInputs(prisma, runId);
      const key = run?.kept ? ['group', runId, group ?? null, p.skip, p.pageSize] : undefined;
      return keptPage(ctx, key, async () => {
        const { json, total } = await historicalByGroup(prisma, runId, group, p.skip, p.pageSize);
        return okJsonText(json, pagedHeaders(total, p));
      });
    },
  }),
  defineRoute({
    name: 'finops-historical-by-service',
    service: 'finops',
    method: 'GET',
    path: `${base}/by-service`,
    auth: 'user',
    openapi: {
      summary: 'Daily cost per service, by date then service; serviceName filters (case-insensitive)',
      description: LIST_NOTE,
      tags,
      responses: { 200: { description: 'rows', schema: z.array(HistoricalByService) } },
    },
    input: {
      params: runIdParams,
      query: pagingQuery.extend({ serviceName: z.string().trim().max(1000).optional() }),
    },
    async handler(ctx) {
      const runId = ctx.input.params.analysisRunId;
      const service = ctx.input.query.serviceName || undefined;
      return serviceHistoryPage(ctx, runId, service, pageOf(ctx.input.query));
    },
  }),
  defineRoute({
    name: 'finops-historical-trend',
    service: 'finops',
    method: 'GET',
    path: `${base}/trend`,
    auth: 'user',
    openapi: {
      summary: 'Trend of the daily totals (first, last, average, max, min, changePercent)',
      description:
        'Fewer than 2 points: {message, dataPoints}. Added: currency, infraSupportCost and months ' +
        '[{month, cost, infraSupportCost, totalWithInfraSupport, currency}] for the overlay.',
      tags,
      responses: { 200: { description: 'trend', schema: TrendAnswer } },
    },
    input: { params: runIdParams },
    async handler({ services, input }) {
      return ok(await costTrend(services.prisma, input.params.analysisRunId));
    },
  }),
];
