import type { z } from 'zod';
import type { PrismaClient } from '../../db/client.js';
import type { HistoricalCost as HistoricalCostRow, Prisma } from '../../db/generated/client.js';
import { Prisma as P } from '../../db/generated/client.js';
import { jsonArray } from '../../http/json-rows.js';
import { pageTotal } from '../../http/paging.js';
import { JsonText } from '../../http/stream-body.js';
import { DailyTotal, HistoricalByGroup, HistoricalByService, HistoricalCost } from '../contract/schemas.js';
import { compileSerializer } from '../contract/serialize.js';
import { groupName, offsetFree, toCount } from './format.js';
import { DEFAULT_INFRA_SUPPORT_COST } from './mappers.js';
import { mergedGroupTags, tagKey } from './tags.js';

type Decimal = Prisma.Decimal;
type HistoricalCostOut = z.output<typeof HistoricalCost>;

/**
 * The infra support overlay: each subscription's monthly `infraSupportCost` from its
 * Subscriptions row (400 when it has none), keyed by the subscription id (stored in lower case).
 */
export async function infraSupportCosts(prisma: PrismaClient, subscriptionIds: string[]) {
  const ids = [...new Set(subscriptionIds)];
  const out = new Map<string, Decimal | number>();
  if (ids.length === 0) return out;
  // Raw: a model query costs several times its SQL in the client, on every page of history.
  const rows = await prisma.$queryRaw<Array<{ subscriptionId: string; infraSupportCost: Decimal }>>`
    SELECT "subscriptionId", "infraSupportCost" FROM "Subscriptions" WHERE "subscriptionId" IN (${P.join(ids)})`;
  for (const r of rows) out.set(r.subscriptionId, r.infraSupportCost);
  return out;
}

/** The overlay value of a subscription in an infraSupportCosts map (400 when it has none). */
export const infraOf = (map: Map<string, Decimal | number>, subscriptionId: string) =>
  map.get(subscriptionId) ?? DEFAULT_INFRA_SUPPORT_COST;

/** The overlay value for one run's subscription (400 for an unknown run or subscription). */
export async function runInfraSupport(prisma: PrismaClient, runId: number) {
  return (await runHistoryInputs(prisma, runId))?.infra ?? DEFAULT_INFRA_SUPPORT_COST;
}

/** A stored history row as the read queries select it (HISTORY_COLUMNS). */
type HistoryRow = Pick<
  HistoricalCostRow,
  | 'id'
  | 'analysisRunId'
  | 'subscriptionId'
  | 'costDate'
  | 'costType'
  | 'resourceGroup'
  | 'name'
  | 'currency'
  | 'recordedAt'
> & { cost: number };

const HISTORY_COLUMNS = P.sql`id, "analysisRunId", "subscriptionId", "costDate", "costType", "resourceGroup",
  name, cost::float8 AS cost, currency, "recordedAt"`;

/**
 * offsetFree, remembered per instant for one answer: a page's rows share a few dozen dates (one
 * per day, and the run's recordedAt), and formatting each row's anew was a tenth of a page's CPU.
 */
function dateTexts() {
  const seen = new Map<number, string>();
  return (d: Date) => {
    const t = d.getTime();
    let text = seen.get(t);
    if (text === undefined) {
      text = offsetFree(d);
      seen.set(t, text);
    }
    return text;
  };
}
/** A money value (a Decimal from a model query, a float8 from a raw one) as the number it writes. */
const money = (v: Decimal | number | string) => (typeof v === 'number' ? v : Number(String(v)));

/*
 * The row serializers, compiled from the contract schemas: a streamed answer writes tens of
 * thousands of rows, and JSON.stringify of each row object cost about twice the CPU. Paged and
 * streamed answers both go through historicalText.
 */
const historicalText = compileSerializer(HistoricalCost);
const dailyTotalText = compileSerializer(DailyTotal);
const byGroupText = compileSerializer(HistoricalByGroup);
const byServiceText = compileSerializer(HistoricalByService);

/**
 * Rows as the JSON texts of the wire shape: each with its group's merged tags (per run) and its
 * subscription's infra support cost.
 */
async function rowsAsJson(prisma: PrismaClient, rows: HistoryRow[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const [tags, infra] = await Promise.all([
    mergedGroupTags(
      prisma,
      [...new Set(rows.map((r) => r.analysisRunId))],
      rows.map((r) => r.resourceGroup),
    ),
    infraSupportCosts(prisma, [...new Set(rows.map((r) => r.subscriptionId))]),
  ]);
  const tagsOf = (h: HistoryRow) => {
    if (!h.resourceGroup) return null;
    const t = tags.get(tagKey(h.analysisRunId, h.resourceGroup));
    return t && Object.keys(t).length > 0 ? t : null;
  };
  const infraAmounts = new Map<string, number>();
  const infraAmount = (subscriptionId: string) => {
    let amount = infraAmounts.get(subscriptionId);
    if (amount === undefined) {
      amount = money(infraOf(infra, subscriptionId));
      infraAmounts.set(subscriptionId, amount);
    }
    return amount;
  };
  const date = dateTexts();
  // One row object filled anew for each row (the serializer keeps nothing): a page of rows
  // allocated as objects was a tenth more CPU, mostly garbage collection.
  const out: HistoricalCostOut = {
    id: 0,
    analysisRunId: 0,
    subscriptionId: '',
    costDate: '',
    costType: 'Total',
    resourceGroup: null,
    name: null,
    cost: 0,
    currency: '',
    recordedAt: '',
    tags: null,
    analysisRun: null,
    infraSupportCost: 0,
  };
  return rows.map((h) => {
    out.id = h.id;
    out.analysisRunId = h.analysisRunId;
    out.subscriptionId = h.subscriptionId;
    out.costDate = date(h.costDate);
    out.costType = h.costType as HistoricalCostOut['costType'];
    out.resourceGroup = groupName(h.resourceGroup);
    out.name = h.name;
    out.cost = money(h.cost);
    out.currency = h.currency;
    out.recordedAt = date(h.recordedAt);
    out.tags = tagsOf(h);
    out.infraSupportCost = infraAmount(h.subscriptionId);
    return historicalText(out);
  });
}

/**
 * Historical rows of a run (all three cost types), costDate ascending, with tags and overlay: the
 * page as JSON text, and the total.
 */
export async function historicalByRun(prisma: PrismaClient, runId: number, skip: number, take: number) {
  const rows = await prisma.$queryRaw<HistoryRow[]>`SELECT ${HISTORY_COLUMNS} FROM "HistoricalCosts"
    WHERE "analysisRunId" = ${runId} ORDER BY "costDate", id LIMIT ${take} OFFSET ${skip}`;
  const [json, total] = await Promise.all([
    rowsAsJson(prisma, rows),
    pageTotal(rows, skip, take, () => countHistoricalByRun(prisma, runId)),
  ]);
  return { json: jsonArray(json), total };
}

/**
 * Historical rows of a subscription across its runs, optionally within [start, end], as JSON text.
 * With `known` (subscriptionHistoryTotal's answer) the total is not counted again, and when it
 * names the runs only their rows are read, so a run written meanwhile cannot slip into a page
 * named by the runs before it.
 */
export async function historicalBySubscription(
  prisma: PrismaClient,
  subscriptionId: string,
  start: Date | undefined,
  end: Date | undefined,
  skip: number,
  take: number,
  known?: { total: number; runIds: number[] | undefined },
) {
  const rows = await prisma.$queryRaw<HistoryRow[]>`SELECT ${HISTORY_COLUMNS} FROM "HistoricalCosts"
    WHERE ${subscriptionWhere(subscriptionId, start, end, known?.runIds)}
    ORDER BY "costDate", id LIMIT ${take} OFFSET ${skip}`;
  const [json, total] = await Promise.all([
    rowsAsJson(prisma, rows),
    known
      ? known.total
      : pageTotal(rows, skip, take, () => countHistoricalBySubscription(prisma, subscriptionId, start, end)),
  ]);
  return { json: jsonArray(json), total };
}

/**
 * What a page of a run's history is made of besides the run's own rows: whether the run was
 * written with its totals (then all its rows name its subscription, and its rows never change)
 * and that subscription's infra support cost. Undefined for an unknown run.
 */
export async function runHistoryInputs(
  prisma: PrismaClient,
  runId: number,
): Promise<{ kept: boolean; infra: Decimal | number } | undefined> {
  const [run] = await prisma.$queryRaw<Array<{ kept: boolean; infra: Decimal }>>`
    SELECT r."historicalCostCount" IS NOT NULL AS kept,
      COALESCE(s."infraSupportCost", ${DEFAULT_INFRA_SUPPORT_COST}) AS infra
    FROM "AnalysisRuns" r LEFT JOIN "Subscriptions" s ON s."subscriptionId" = r."subscriptionId"
    WHERE r.id = ${runId}`;
  return run;
}

/** A timestamp(3) literal of the stored wall-clock value (Date's UTC fields), with no zone to shift it. */
const wallClock = (d: Date) => P.sql`${d.toISOString().slice(0, 23)}::timestamp(3)`;

/** A subscription's rows, optionally within [start, end] and only of `runIds`. */
function subscriptionWhere(subscriptionId: string, start?: Date, end?: Date, runIds?: number[]) {
  return P.sql`"subscriptionId" = ${subscriptionId}
    ${runIds ? P.sql`AND "analysisRunId" IN (${runIds.length ? P.join(runIds) : P.sql`NULL`})` : P.empty}
    ${start ? P.sql`AND "costDate" >= ${wallClock(start)}` : P.empty}
    ${end ? P.sql`AND "costDate" <= ${wallClock(end)}` : P.empty}`;
}

/** Rows read per keyset page of a streamed answer: the most a streamed answer holds at once. */
export const STREAM_PAGE_ROWS = 2000;

/**
 * Historical rows matching `where` in costDate then id order, at most `limit` of them, read in
 * keyset pages of STREAM_PAGE_ROWS (each page starts after the last row of the one before, served
 * by the (…, costDate, id) indexes; no OFFSET, so every page costs the same) and decorated page by
 * page. Rows inserted after the first page (a newer run) are left out, so the answer is the table
 * as it stood when the request began.
 */
async function* keysetHistory(prisma: PrismaClient, where: Prisma.Sql, limit: number) {
  const [top] = await prisma.$queryRaw<
    Array<{ id: number | null }>
  >`SELECT max(id) AS id FROM "HistoricalCosts"`;
  const last = top?.id ?? 0;
  let after: { costDate: Date; id: number } | undefined;
  let left = limit;
  while (left > 0) {
    const take = Math.min(STREAM_PAGE_ROWS, left);
    const from = after ? P.sql`AND ("costDate", id) > (${wallClock(after.costDate)}, ${after.id})` : P.empty;
    const rows = await prisma.$queryRaw<HistoryRow[]>`SELECT ${HISTORY_COLUMNS} FROM "HistoricalCosts"
      WHERE ${where} AND id <= ${last} ${from} ORDER BY "costDate", id LIMIT ${take}`;
    for (const text of await rowsAsJson(prisma, rows)) yield new JsonText(text);
    if (rows.length < take) return;
    left -= rows.length;
    const end = rows[rows.length - 1]!;
    after = { costDate: end.costDate, id: end.id };
  }
}

/**
 * How many historical rows a run has: the total kept with the run when it was written, counted
 * only for a run written without one.
 */
export async function countHistoricalByRun(prisma: PrismaClient, runId: number): Promise<number> {
  return (await runHistoryTotal(prisma, runId)).total;
}

/**
 * A run's history row count, and whether it was kept with the run: only then are all its rows
 * known to name the run's own subscription (so one infra support cost covers them all).
 */
export async function runHistoryTotal(
  prisma: PrismaClient,
  runId: number,
): Promise<{ total: number; kept: boolean }> {
  const [run] = await prisma.$queryRaw<Array<{ historicalCostCount: number | null }>>`
    SELECT "historicalCostCount" FROM "AnalysisRuns" WHERE id = ${runId}`;
  if (!run) return { total: 0, kept: false };
  if (run.historicalCostCount !== null) return { total: run.historicalCostCount, kept: true };
  return { total: await prisma.historicalCost.count({ where: { analysisRunId: runId } }), kept: false };
}

/**
 * How many historical rows a subscription has, optionally within [start, end], from the totals
 * kept with each run: a run whose history lies wholly inside the dates gives its total, one wholly
 * outside gives 0, and only a run the dates cut is counted, over its own index range. When any
 * run lacks totals the rows are counted the plain way, which is exact whatever the data.
 */
export async function countHistoricalBySubscription(
  prisma: PrismaClient,
  subscriptionId: string,
  start: Date | undefined,
  end: Date | undefined,
): Promise<number> {
  return (await subscriptionHistoryTotal(prisma, subscriptionId, start, end)).total;
}

/**
 * The subscription's row count (as countHistoricalBySubscription) and, when every run keeps its
 * totals, the runs whose rows make the answer (ascending ids): runs never change once written,
 * so these ids with the dates name the answer exactly, and a new or deleted run changes them.
 */
export async function subscriptionHistoryTotal(
  prisma: PrismaClient,
  subscriptionId: string,
  start: Date | undefined,
  end: Date | undefined,
): Promise<{ total: number; runIds: number[] | undefined }> {
  const plainCount = () =>
    prisma.historicalCost.count({
      where: {
        subscriptionId,
        ...(start || end
          ? { costDate: { ...(start ? { gte: start } : {}), ...(end ? { lte: end } : {}) } }
          : {}),
      },
    });
  // One statement: how many runs lack their totals, beside the subscription's runs (none: one
  // row of NULLs).
  const found = await prisma.$queryRaw<
    Array<{
      untotalled: bigint;
      id: number | null;
      historicalCostCount: number | null;
      historyFrom: Date | null;
      historyTo: Date | null;
    }>
  >`SELECT u.n AS untotalled, r.id, r."historicalCostCount", r."historyFrom", r."historyTo"
    FROM (SELECT count(*) AS n FROM "AnalysisRuns" WHERE "historicalCostCount" IS NULL) u
    LEFT JOIN "AnalysisRuns" r ON r."subscriptionId" = ${subscriptionId}
    ORDER BY r.id`;
  const untotalled = toCount(found[0]?.untotalled);
  const runs = found.filter((r): r is (typeof found)[number] & { id: number } => r.id !== null);
  // Each run with totals has rows of its own subscription only, so with every run totalled the
  // subscription's rows are exactly the rows of its runs.
  if (untotalled > 0) return { total: await plainCount(), runIds: undefined };
  let total = 0;
  const cut: number[] = [];
  const runIds: number[] = [];
  for (const r of runs) {
    const n = r.historicalCostCount ?? 0;
    if (n === 0 || !r.historyFrom || !r.historyTo) continue;
    const outside = (start && r.historyTo < start) || (end && r.historyFrom > end);
    const inside = (!start || r.historyFrom >= start) && (!end || r.historyTo <= end);
    if (outside) continue;
    runIds.push(r.id);
    if (inside) total += n;
    else cut.push(r.id);
  }
  if (cut.length > 0) {
    total += await prisma.historicalCost.count({
      where: {
        analysisRunId: { in: cut },
        costDate: { ...(start ? { gte: start } : {}), ...(end ? { lte: end } : {}) },
      },
    });
  }
  return { total, runIds };
}

/** A run's historical rows as historicalByRun orders them, streamed: at most `limit` rows. */
export function streamHistoricalByRun(prisma: PrismaClient, runId: number, limit: number) {
  return keysetHistory(prisma, P.sql`"analysisRunId" = ${runId}`, limit);
}

/**
 * A subscription's historical rows as historicalBySubscription orders them, streamed; with
 * `runIds` (from subscriptionHistoryTotal), only those runs' rows, so a run written meanwhile
 * cannot slip into an answer named by the runs before it.
 */
export function streamHistoricalBySubscription(
  prisma: PrismaClient,
  subscriptionId: string,
  start: Date | undefined,
  end: Date | undefined,
  limit: number,
  runIds?: number[],
) {
  return keysetHistory(prisma, subscriptionWhere(subscriptionId, start, end, runIds), limit);
}

/** [{date, cost, currency, infraSupportCost}] from the run's Total rows, ascending, as JSON text. */
export async function dailyTotals(prisma: PrismaClient, runId: number, skip: number, take: number) {
  const [rows, infra] = await Promise.all([
    prisma.$queryRaw<Array<{ costDate: Date; cost: number; currency: string }>>`
      SELECT "costDate", cost::float8 AS cost, currency FROM "HistoricalCosts"
      WHERE "analysisRunId" = ${runId} AND "costType" = 'Total'
      ORDER BY "costDate", id LIMIT ${take} OFFSET ${skip}`,
    runInfraSupport(prisma, runId),
  ]);
  const total = await pageTotal(rows, skip, take, () =>
    prisma.historicalCost.count({ where: { analysisRunId: runId, costType: 'Total' } }),
  );
  const infraSupportCost = money(infra);
  const date = dateTexts();
  return {
    json: jsonArray(
      rows.map((r) =>
        dailyTotalText({ date: date(r.costDate), cost: r.cost, currency: r.currency, infraSupportCost }),
      ),
    ),
    total,
  };
}

/**
 * [{date, resourceGroup, cost, currency}] of ResourceGroup rows, by date then group, as JSON text;
 * filter case-insensitive.
 */
export async function historicalByGroup(
  prisma: PrismaClient,
  runId: number,
  group: string | undefined,
  skip: number,
  take: number,
) {
  const filter = group ? P.sql`AND upper("resourceGroup") = upper(${group})` : P.empty;
  const rows = await prisma.$queryRaw<
    Array<{ costDate: Date; resourceGroup: string | null; cost: number; currency: string }>
  >`
      SELECT "costDate", "resourceGroup", cost::float8 AS cost, currency FROM "HistoricalCosts"
      WHERE "analysisRunId" = ${runId} AND "costType" = 'ResourceGroup' ${filter}
      ORDER BY "costDate", upper("resourceGroup"), id LIMIT ${take} OFFSET ${skip}`;
  const total = await pageTotal(rows, skip, take, () =>
    prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM "HistoricalCosts"
      WHERE "analysisRunId" = ${runId} AND "costType" = 'ResourceGroup' ${filter}`.then((c) =>
      toCount(c[0]?.n),
    ),
  );
  const date = dateTexts();
  return {
    json: jsonArray(
      rows.map((r) =>
        byGroupText({
          date: date(r.costDate),
          resourceGroup: groupName(r.resourceGroup),
          cost: r.cost,
          currency: r.currency,
        }),
      ),
    ),
    total,
  };
}

/**
 * How many Service rows of a run a by-service filter matches, from the totals kept with the run
 * (RunServiceTotals), and the filter that matches them: the exact name when any row has it, else
 * the name case-insensitively. Undefined for a run without them (or no run): count instead.
 */
export async function keptServiceTotal(
  prisma: PrismaClient,
  runId: number,
  service: string | undefined,
): Promise<{ total: number; filter: Prisma.Sql } | undefined> {
  const [t] = await prisma.$queryRaw<
    Array<{ all: number | null; exact: number | null; folded: bigint | null }>
  >`
    SELECT r."historyServiceCount" AS all,
      (SELECT rows FROM "RunServiceTotals" s WHERE s."analysisRunId" = r.id AND s.name = ${service ?? null}) AS exact,
      (SELECT sum(rows) FROM "RunServiceTotals" s
       WHERE s."analysisRunId" = r.id AND lower(s.name) = lower(${service ?? null})) AS folded
    FROM "AnalysisRuns" r WHERE r.id = ${runId}`;
  if (!t || t.all === null) return undefined;
  if (!service) return { total: t.all, filter: P.empty };
  if (t.exact) return { total: t.exact, filter: P.sql`AND name = ${service}` };
  return { total: toCount(t.folded), filter: P.sql`AND lower(name) = lower(${service})` };
}

/**
 * [{date, service, resourceGroup, cost, currency}] of Service rows, by date then service name, as
 * JSON text. The name matches exactly first, then case-insensitively when nothing matches exactly
 * (as the type filter of the resources): an exact name is known to the statistics, so the page is
 * an ordered read of the run's (costType, costDate) index that stops at the page, where lower(name)
 * read and sorted every Service row of the run (44k for 40 groups × 6 services × 183 days). The
 * total is the one kept with the run; only a run without it counts the matching rows.
 */
export async function historicalByService(
  prisma: PrismaClient,
  runId: number,
  service: string | undefined,
  skip: number,
  take: number,
  /** keptServiceTotal's answer when the caller has already asked (null: the run keeps none). */
  known?: { total: number; filter: Prisma.Sql } | null,
) {
  type Row = {
    costDate: Date;
    name: string | null;
    resourceGroup: string | null;
    cost: number;
    currency: string;
  };
  const read = (filter: Prisma.Sql) => prisma.$queryRaw<Row[]>`
      SELECT "costDate", name, "resourceGroup", cost::float8 AS cost, currency FROM "HistoricalCosts"
      WHERE "analysisRunId" = ${runId} AND "costType" = 'Service' ${filter}
      ORDER BY "costDate", name, upper("resourceGroup"), id LIMIT ${take} OFFSET ${skip}`;
  const counted = async (filter: Prisma.Sql) => {
    const rows = await read(filter);
    const total = await pageTotal(rows, skip, take, () =>
      prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM "HistoricalCosts"
        WHERE "analysisRunId" = ${runId} AND "costType" = 'Service' ${filter}`.then((c) => toCount(c[0]?.n)),
    );
    return { rows, total };
  };
  const kept = known === undefined ? await keptServiceTotal(prisma, runId, service) : known;
  let r: { rows: Row[]; total: number };
  if (kept) r = { rows: kept.total > skip ? await read(kept.filter) : [], total: kept.total };
  else {
    r = await counted(service ? P.sql`AND name = ${service}` : P.empty);
    if (service && r.total === 0) r = await counted(P.sql`AND lower(name) = lower(${service})`);
  }
  const date = dateTexts();
  return {
    json: jsonArray(
      r.rows.map((row) =>
        byServiceText({
          date: date(row.costDate),
          service: row.name,
          resourceGroup: groupName(row.resourceGroup),
          cost: row.cost,
          currency: row.currency,
        }),
      ),
    ),
    total: r.total,
  };
}

/**
 * Month totals of a run's Total rows (summed in SQL) with the subscription's infra support cost
 * stacked on each month: the overlay charts draw (the web client hard-coded $400).
 */
export async function monthlyWithInfraSupport(prisma: PrismaClient, runId: number) {
  const [rows, infra] = await Promise.all([
    prisma.$queryRaw<Array<{ month: string; cost: Decimal; currency: string }>>`
      SELECT to_char(date_trunc('month', "costDate"), 'YYYY-MM') AS month, sum(cost) AS cost, currency
      FROM "HistoricalCosts" WHERE "analysisRunId" = ${runId} AND "costType" = 'Total'
      GROUP BY 1, currency ORDER BY 1, currency`,
    runInfraSupport(prisma, runId),
  ]);
  const infraD = new P.Decimal(infra.toString());
  return {
    infraSupportCost: infra,
    months: rows.map((r) => ({
      month: r.month,
      cost: r.cost,
      infraSupportCost: infra,
      totalWithInfraSupport: new P.Decimal(r.cost.toString()).plus(infraD),
      currency: r.currency,
    })),
  };
}

interface TrendRow {
  n: bigint;
  avg: Decimal | null;
  max: Decimal | null;
  min: Decimal | null;
  first: Decimal | null;
  last: Decimal | null;
  startDate: Date | null;
  endDate: Date | null;
  currency: string | null;
}

/** The original's trend payload over the run's daily totals, aggregated in SQL, plus the overlay. */
export async function costTrend(prisma: PrismaClient, runId: number) {
  const rows = await prisma.$queryRaw<TrendRow[]>`
    WITH t AS (
      SELECT id, "costDate", cost, currency FROM "HistoricalCosts"
      WHERE "analysisRunId" = ${runId} AND "costType" = 'Total'
    )
    SELECT count(*) AS n, avg(cost) AS avg, max(cost) AS max, min(cost) AS min,
      (SELECT cost FROM t ORDER BY "costDate", id LIMIT 1) AS first,
      (SELECT cost FROM t ORDER BY "costDate" DESC, id DESC LIMIT 1) AS last,
      min("costDate") AS "startDate", max("costDate") AS "endDate", min(currency) AS currency
    FROM t`;
  const t = rows[0];
  const n = toCount(t?.n);
  if (!t || n < 2 || !t.first || !t.last || !t.startDate || !t.endDate) {
    return { message: 'Not enough data for trend analysis', dataPoints: n };
  }
  const first = new P.Decimal(t.first.toString());
  const last = new P.Decimal(t.last.toString());
  const trend = last.greaterThan(first) ? 'Increasing' : last.lessThan(first) ? 'Decreasing' : 'Stable';
  const changePercent = first.greaterThan(0)
    ? last.minus(first).dividedBy(first).times(100).toDecimalPlaces(2, P.Decimal.ROUND_HALF_EVEN)
    : new P.Decimal(0);
  const overlay = await monthlyWithInfraSupport(prisma, runId);
  return {
    startDate: offsetFree(t.startDate),
    endDate: offsetFree(t.endDate),
    firstCost: t.first,
    lastCost: t.last,
    averageCost: t.avg,
    maxCost: t.max,
    minCost: t.min,
    trend,
    changePercent,
    dataPoints: n,
    currency: t.currency ?? 'USD',
    ...overlay,
  };
}
