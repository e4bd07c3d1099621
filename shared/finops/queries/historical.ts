import type { PrismaClient } from '../../db/client.js';
import type { HistoricalCost, Prisma } from '../../db/generated/client.js';
import { Prisma as P } from '../../db/generated/client.js';
import { JsonText } from '../../http/stream-body.js';
import { groupName, offsetFree, pageTotal, toCount } from './format.js';
import { DEFAULT_INFRA_SUPPORT_COST, historicalOut } from './mappers.js';
import { mergedGroupTags, tagKey } from './tags.js';

type Decimal = Prisma.Decimal;

/**
 * The infra support overlay: each subscription's monthly `infraSupportCost` from its
 * Subscriptions row (400 when it has none), keyed by the lower-cased subscription id.
 */
export async function infraSupportCosts(prisma: PrismaClient, subscriptionIds: string[]) {
  const ids = [...new Set(subscriptionIds.map((s) => s.trim().toLowerCase()))];
  const out = new Map<string, Decimal | number>();
  if (ids.length === 0) return out;
  const rows = await prisma.subscription.findMany({
    where: { subscriptionId: { in: ids } },
    select: { subscriptionId: true, infraSupportCost: true },
  });
  for (const r of rows) out.set(r.subscriptionId, r.infraSupportCost);
  return out;
}

/** The overlay value of a subscription in an infraSupportCosts map (400 when it has none). */
export const infraOf = (map: Map<string, Decimal | number>, subscriptionId: string) =>
  map.get(subscriptionId.trim().toLowerCase()) ?? DEFAULT_INFRA_SUPPORT_COST;

/** The overlay value for one run's subscription (400 for an unknown run or subscription). */
export async function runInfraSupport(prisma: PrismaClient, runId: number) {
  const rows = await prisma.$queryRaw<Array<{ subscriptionId: string; infra: Decimal }>>`
    SELECT r."subscriptionId", COALESCE(s."infraSupportCost", ${DEFAULT_INFRA_SUPPORT_COST}) AS infra
    FROM "AnalysisRuns" r LEFT JOIN "Subscriptions" s ON s."subscriptionId" = lower(trim(r."subscriptionId"))
    WHERE r.id = ${runId}`;
  return rows[0]?.infra ?? DEFAULT_INFRA_SUPPORT_COST;
}

/** What a page of rows is decorated with: its groups' merged tags and its subscriptions' overlay. */
async function pageExtras(prisma: PrismaClient, rows: HistoricalCost[]) {
  const runIds = [...new Set(rows.map((r) => r.analysisRunId))];
  const [tags, infra] = await Promise.all([
    mergedGroupTags(
      prisma,
      runIds,
      rows.map((r) => r.resourceGroup),
    ),
    infraSupportCosts(prisma, [...new Set(rows.map((r) => r.subscriptionId))]),
  ]);
  return { tags, infra };
}

async function decorate(prisma: PrismaClient, rows: HistoricalCost[]) {
  const { tags, infra } = await pageExtras(prisma, rows);
  return rows.map((h) =>
    historicalOut(
      h,
      h.resourceGroup ? tags.get(tagKey(h.analysisRunId, h.resourceGroup)) : undefined,
      infraOf(infra, h.subscriptionId),
    ),
  );
}

const jsonString = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));
const jsonMoney = (v: Decimal | number) => JSON.stringify(Number(String(v)));

/**
 * The JSON text of historicalOut(h, tags, infra) as stringify writes it, member for member, built
 * directly: a streamed answer writes tens of thousands of rows, and building an object per row
 * and serialising it through stringify's replacer doubled the CPU an answer costs. The streaming
 * test compares this text with the paged answers' byte for byte.
 */
function historicalJson(h: HistoricalCost, tagsJson: string, infraJson: string): string {
  return (
    `{"id":${h.id},"analysisRunId":${h.analysisRunId},"subscriptionId":${JSON.stringify(h.subscriptionId)},` +
    `"costDate":"${offsetFree(h.costDate)}","costType":${JSON.stringify(h.costType)},` +
    `"resourceGroup":${jsonString(groupName(h.resourceGroup))},"name":${jsonString(h.name)},` +
    `"cost":${jsonMoney(h.cost)},"currency":${JSON.stringify(h.currency)},` +
    `"recordedAt":"${offsetFree(h.recordedAt)}","tags":${tagsJson},"analysisRun":null,` +
    `"infraSupportCost":${infraJson}}`
  );
}

/** A page of rows as JSON texts, with the same tags and overlay as decorate. */
async function decorateAsJson(prisma: PrismaClient, rows: HistoricalCost[]): Promise<JsonText[]> {
  const { tags, infra } = await pageExtras(prisma, rows);
  const tagTexts = new Map<string, string>();
  const tagText = (h: HistoricalCost) => {
    if (!h.resourceGroup) return 'null';
    const key = tagKey(h.analysisRunId, h.resourceGroup);
    let text = tagTexts.get(key);
    if (text === undefined) {
      const t = tags.get(key);
      text = t && Object.keys(t).length > 0 ? JSON.stringify(t) : 'null';
      tagTexts.set(key, text);
    }
    return text;
  };
  return rows.map(
    (h) => new JsonText(historicalJson(h, tagText(h), jsonMoney(infraOf(infra, h.subscriptionId)))),
  );
}

const BY_DATE: Prisma.HistoricalCostOrderByWithRelationInput[] = [{ costDate: 'asc' }, { id: 'asc' }];

/** Historical rows of a run (all three cost types), costDate ascending, with tags and overlay. */
export async function historicalByRun(prisma: PrismaClient, runId: number, skip: number, take: number) {
  const where = { analysisRunId: runId };
  const rows = await prisma.historicalCost.findMany({ where, orderBy: BY_DATE, skip, take });
  const total = await pageTotal(rows, skip, take, () => countHistoricalByRun(prisma, runId));
  return { rows: await decorate(prisma, rows), total };
}

/** Historical rows of a subscription across its runs, optionally within [start, end]. */
export async function historicalBySubscription(
  prisma: PrismaClient,
  subscriptionId: string,
  start: Date | undefined,
  end: Date | undefined,
  skip: number,
  take: number,
) {
  const where: Prisma.HistoricalCostWhereInput = {
    subscriptionId,
    ...(start || end ? { costDate: { ...(start ? { gte: start } : {}), ...(end ? { lte: end } : {}) } } : {}),
  };
  const rows = await prisma.historicalCost.findMany({ where, orderBy: BY_DATE, skip, take });
  const total = await pageTotal(rows, skip, take, () =>
    countHistoricalBySubscription(prisma, subscriptionId, start, end),
  );
  return { rows: await decorate(prisma, rows), total };
}

/** Rows read per keyset page of a streamed answer: the most a streamed answer holds at once. */
export const STREAM_PAGE_ROWS = 2000;

const HISTORY_COLUMNS = P.sql`id, "analysisRunId", "subscriptionId", "costDate", "costType", "resourceGroup",
  name, cost, currency, "recordedAt"`;

/** A timestamp(3) literal of the stored wall-clock value (Date's UTC fields), with no zone to shift it. */
const wallClock = (d: Date) => P.sql`${d.toISOString().slice(0, 23)}::timestamp(3)`;

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
    const rows = await prisma.$queryRaw<HistoricalCost[]>`SELECT ${HISTORY_COLUMNS} FROM "HistoricalCosts"
      WHERE ${where} AND id <= ${last} ${from} ORDER BY "costDate", id LIMIT ${take}`;
    yield* await decorateAsJson(prisma, rows);
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
  const run = await prisma.analysisRun.findUnique({
    where: { id: runId },
    select: { historicalCostCount: true },
  });
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
  const [untotalled, runs] = await Promise.all([
    prisma.analysisRun.count({ where: { historicalCostCount: null } }),
    prisma.analysisRun.findMany({
      where: { subscriptionId },
      select: { id: true, historicalCostCount: true, historyFrom: true, historyTo: true },
      orderBy: { id: 'asc' },
    }),
  ]);
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
  const where = P.sql`"subscriptionId" = ${subscriptionId}
    ${runIds ? P.sql`AND "analysisRunId" IN (${runIds.length ? P.join(runIds) : P.sql`NULL`})` : P.empty}
    ${start ? P.sql`AND "costDate" >= ${wallClock(start)}` : P.empty}
    ${end ? P.sql`AND "costDate" <= ${wallClock(end)}` : P.empty}`;
  return keysetHistory(prisma, where, limit);
}

/** [{date, cost, currency, infraSupportCost}] from the run's Total rows, ascending. */
export async function dailyTotals(prisma: PrismaClient, runId: number, skip: number, take: number) {
  const where = { analysisRunId: runId, costType: 'Total' };
  const [rows, infra] = await Promise.all([
    prisma.historicalCost.findMany({
      where,
      orderBy: BY_DATE,
      skip,
      take,
      select: { costDate: true, cost: true, currency: true },
    }),
    runInfraSupport(prisma, runId),
  ]);
  const total = await pageTotal(rows, skip, take, () => prisma.historicalCost.count({ where }));
  return {
    rows: rows.map((r) => ({
      date: offsetFree(r.costDate),
      cost: r.cost,
      currency: r.currency,
      infraSupportCost: infra,
    })),
    total,
  };
}

/** [{date, resourceGroup, cost, currency}] of ResourceGroup rows, by date then group; filter case-insensitive. */
export async function historicalByGroup(
  prisma: PrismaClient,
  runId: number,
  group: string | undefined,
  skip: number,
  take: number,
) {
  const filter = group ? P.sql`AND upper("resourceGroup") = upper(${group})` : P.empty;
  const rows = await prisma.$queryRaw<
    Array<{ costDate: Date; resourceGroup: string | null; cost: Decimal; currency: string }>
  >`
      SELECT "costDate", "resourceGroup", cost, currency FROM "HistoricalCosts"
      WHERE "analysisRunId" = ${runId} AND "costType" = 'ResourceGroup' ${filter}
      ORDER BY "costDate", upper("resourceGroup"), id LIMIT ${take} OFFSET ${skip}`;
  const total = await pageTotal(rows, skip, take, () =>
    prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM "HistoricalCosts"
      WHERE "analysisRunId" = ${runId} AND "costType" = 'ResourceGroup' ${filter}`.then((c) =>
      toCount(c[0]?.n),
    ),
  );
  return {
    rows: rows.map((r) => ({
      date: offsetFree(r.costDate),
      resourceGroup: groupName(r.resourceGroup),
      cost: r.cost,
      currency: r.currency,
    })),
    total,
  };
}

/**
 * [{date, service, resourceGroup, cost, currency}] of Service rows, by date then service name. The
 * name matches exactly first, then case-insensitively when nothing matches exactly (as the type
 * filter of the resources): an exact name is known to the statistics, so the page is an ordered
 * read of the run's (costType, costDate) index that stops at the page, where lower(name) read
 * and sorted every Service row of the run (44k for 40 groups × 6 services × 183 days).
 */
export async function historicalByService(
  prisma: PrismaClient,
  runId: number,
  service: string | undefined,
  skip: number,
  take: number,
) {
  const page = async (filter: Prisma.Sql) => {
    const rows = await prisma.$queryRaw<
      Array<{
        costDate: Date;
        name: string | null;
        resourceGroup: string | null;
        cost: Decimal;
        currency: string;
      }>
    >`
      SELECT "costDate", name, "resourceGroup", cost, currency FROM "HistoricalCosts"
      WHERE "analysisRunId" = ${runId} AND "costType" = 'Service' ${filter}
      ORDER BY "costDate", name, upper("resourceGroup"), id LIMIT ${take} OFFSET ${skip}`;
    const total = await pageTotal(rows, skip, take, () =>
      prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM "HistoricalCosts"
        WHERE "analysisRunId" = ${runId} AND "costType" = 'Service' ${filter}`.then((c) => toCount(c[0]?.n)),
    );
    return { rows, total };
  };
  let r = await page(service ? P.sql`AND name = ${service}` : P.empty);
  if (service && r.total === 0) r = await page(P.sql`AND lower(name) = lower(${service})`);
  return {
    rows: r.rows.map((row) => ({
      date: offsetFree(row.costDate),
      service: row.name,
      resourceGroup: groupName(row.resourceGroup),
      cost: row.cost,
      currency: row.currency,
    })),
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
