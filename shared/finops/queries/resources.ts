import type { PrismaClient } from '../../db/client.js';
import { Prisma } from '../../db/generated/client.js';
import { pageTotal } from '../../http/paging.js';
import { groupName, toCount } from './format.js';
import { type ResourceRow, resourceOut } from './mappers.js';
import { hasRunTotals } from './run-totals.js';

const COLUMNS = Prisma.sql`id, "analysisRunId", "resourceType", "resourceName", "resourceGroup", location,
  "propertiesJson", "tagsJson", "metricsJson", flags, "recordedAt", "resourceId", "flagDetails", "monthToDateCost"`;
const HAS_FLAGS = Prisma.sql`(flags IS NOT NULL AND flags <> '')`;

export type ResourceFilter =
  | { kind: 'all' }
  /** Resource types compare case-insensitively: Azure APIs disagree on their casing. */
  | { kind: 'type'; type: string }
  | { kind: 'group'; group: string }
  | { kind: 'flags'; contains?: string | undefined }
  | { kind: 'search'; term: string };

/** The term as an ILIKE pattern matching it anywhere, its own %, _ and backslash escaped to match themselves. */
export const substringPattern = (term: string) => `%${term.replace(/[\\%_]/g, '\\$&')}%`;

/**
 * Case-insensitive literal substring test. ILIKE rather than strpos(lower(...)): the same answers,
 * and the trigram indexes (pg_trgm) on name, group and type can serve it, where strpos reads every
 * row of the run.
 */
const contains = (column: Prisma.Sql, term: string) =>
  Prisma.sql`${column} ILIKE ${substringPattern(term)} ESCAPE '\\'`;

/** The WHERE fragment (after the run's own condition) of a filter; exported for the EXPLAIN tests. */
export function condition(f: ResourceFilter, exact: boolean): Prisma.Sql {
  switch (f.kind) {
    case 'all':
      return Prisma.empty;
    // Exact first (served by the indexes; the engine stores types as Azure returns them and groups
    // upper-case), then case-insensitively when the exact match finds nothing.
    case 'type':
      return exact
        ? Prisma.sql`AND "resourceType" = ${f.type}`
        : Prisma.sql`AND lower("resourceType") = lower(${f.type})`;
    case 'group':
      return exact
        ? Prisma.sql`AND "resourceGroup" = ${f.group.toUpperCase()}`
        : Prisma.sql`AND upper("resourceGroup") = upper(${f.group})`;
    case 'flags':
      return f.contains
        ? Prisma.sql`AND ${HAS_FLAGS} AND ${contains(Prisma.sql`flags`, f.contains)}`
        : Prisma.sql`AND ${HAS_FLAGS}`;
    case 'search':
      return Prisma.sql`AND (${contains(Prisma.sql`"resourceName"`, f.term)} OR ${contains(Prisma.sql`"resourceGroup"`, f.term)}
        OR ${contains(Prisma.sql`"resourceType"`, f.term)})`;
  }
}

type CountedRow = ResourceRow & { total: bigint };

/** The run's resource (or flagged resource) count from its totals; undefined without totals. */
async function runResourceCount(prisma: PrismaClient, runId: number, flagged: boolean) {
  const [r] = await prisma.$queryRaw<Array<{ has: boolean; n: bigint }>>`
    SELECT r."totalsWrittenAt" IS NOT NULL AS has,
      (SELECT coalesce(sum(${flagged ? Prisma.sql`flagged` : Prisma.sql`resources`}), 0) FROM "RunResourceTotals" t
       WHERE t."analysisRunId" = r.id) AS n
    FROM "AnalysisRuns" r WHERE r.id = ${runId}`;
  return r?.has ? toCount(r.n) : undefined;
}

async function page(
  prisma: PrismaClient,
  runId: number,
  filter: ResourceFilter,
  exact: boolean,
  skip: number,
  take: number,
) {
  const where = condition(filter, exact);
  const order =
    filter.kind === 'type'
      ? Prisma.sql`ORDER BY "resourceName", id`
      : Prisma.sql`ORDER BY "resourceType", "resourceName", id`;
  const count = () =>
    prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM "ResourceAnalyses"
      WHERE "analysisRunId" = ${runId} ${where}`.then((r) => toCount(r[0]?.n));
  const kept =
    filter.kind === 'all' || (filter.kind === 'flags' && !filter.contains)
      ? await runResourceCount(prisma, runId, filter.kind === 'flags')
      : undefined;
  if (filter.kind === 'all' || kept !== undefined) {
    // The whole run, or its flagged resources with their count kept with the run: an ordered
    // index scan that stops at the page, and no count over the rest.
    const rows = await prisma.$queryRaw<ResourceRow[]>`SELECT ${COLUMNS} FROM "ResourceAnalyses"
        WHERE "analysisRunId" = ${runId} ${where} ${order} LIMIT ${take} OFFSET ${skip}`;
    return { rows, total: kept ?? (await pageTotal(rows, skip, take, count)) };
  }
  // Filtered: one scan gives the page and, through the window, the number of matches.
  const rows = await prisma.$queryRaw<CountedRow[]>`SELECT ${COLUMNS}, count(*) OVER () AS total
    FROM "ResourceAnalyses" WHERE "analysisRunId" = ${runId} ${where} ${order} LIMIT ${take} OFFSET ${skip}`;
  const total = rows.length > 0 ? toCount(rows[0]!.total) : skip > 0 ? await count() : 0;
  return { rows, total };
}

/**
 * Resources of a run matching a filter, ordered by type then name (by name alone for the type
 * filter, where the type is fixed), one page of them and the total count.
 */
export async function findResources(
  prisma: PrismaClient,
  runId: number,
  filter: ResourceFilter,
  skip: number,
  take: number,
) {
  let r = await page(prisma, runId, filter, true, skip, take);
  if (r.total === 0 && (filter.kind === 'type' || filter.kind === 'group')) {
    r = await page(prisma, runId, filter, false, skip, take);
  }
  return {
    rows: r.rows.map((row) => {
      const { total: _t, ...rest } = row as CountedRow;
      return resourceOut(rest);
    }),
    total: r.total,
  };
}

/** Rows read per keyset page of a streamed resource list. */
export const RESOURCE_STREAM_PAGE_ROWS = 2000;

/** The count kept with the run for the whole list or its flagged resources; undefined otherwise. */
function runResourceCountFor(prisma: PrismaClient, runId: number, filter: ResourceFilter) {
  return filter.kind === 'all' || (filter.kind === 'flags' && !filter.contains)
    ? runResourceCount(prisma, runId, filter.kind === 'flags')
    : Promise.resolve(undefined);
}

/**
 * The whole list findResources pages (same filter, same order, same wire shape), for an unpaged
 * request: the total first (for X-Total-Count), then the rows read in keyset pages of
 * RESOURCE_STREAM_PAGE_ROWS, each starting after the last (type, name, id) of the one before, so the
 * answer never holds more than a page. At most `limit` rows. A filtered list reads its first page
 * before answering: when that page is the whole list (a search, most type and group filters) its
 * length is the total, and the matching rows are not read a second time to be counted.
 */
export async function streamResources(
  prisma: PrismaClient,
  runId: number,
  filter: ResourceFilter,
  limit: number,
): Promise<{ total: number; rows: AsyncIterable<unknown> }> {
  const byName = filter.kind === 'type';
  const order = byName
    ? Prisma.sql`ORDER BY "resourceName", id`
    : Prisma.sql`ORDER BY "resourceType", "resourceName", id`;
  const read = (where: Prisma.Sql, after: ResourceRow | undefined, take: number) => {
    const from = !after
      ? Prisma.empty
      : byName
        ? Prisma.sql`AND ("resourceName", id) > (${after.resourceName}, ${after.id})`
        : Prisma.sql`AND ("resourceType", "resourceName", id) > (${after.resourceType}, ${after.resourceName}, ${after.id})`;
    return prisma.$queryRaw<ResourceRow[]>`SELECT ${COLUMNS} FROM "ResourceAnalyses"
      WHERE "analysisRunId" = ${runId} ${where} ${from} ${order} LIMIT ${take}`;
  };
  const firstTake = Math.min(RESOURCE_STREAM_PAGE_ROWS, limit);
  let where = condition(filter, true);
  let first: ResourceRow[] | undefined;
  let total = await runResourceCountFor(prisma, runId, filter);
  if (total === undefined) {
    first = firstTake > 0 ? await read(where, undefined, firstTake) : [];
    if (first.length === 0 && (filter.kind === 'type' || filter.kind === 'group')) {
      where = condition(filter, false);
      first = firstTake > 0 ? await read(where, undefined, firstTake) : [];
    }
    total =
      first.length < firstTake
        ? first.length
        : toCount(
            (
              await prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM "ResourceAnalyses"
                WHERE "analysisRunId" = ${runId} ${where}`
            )[0]?.n,
          );
  }
  async function* rows() {
    let after: ResourceRow | undefined;
    let left = limit;
    let page = first;
    while (left > 0) {
      const take = Math.min(RESOURCE_STREAM_PAGE_ROWS, left);
      page ??= await read(where, after, take);
      for (const row of page) yield resourceOut(row);
      if (page.length < take) return;
      left -= page.length;
      after = page[page.length - 1];
      page = undefined;
    }
  }
  return { total, rows: rows() };
}

/** [{resourceType, count, withFlags}], count descending (then type). */
export async function resourceTypeSummary(prisma: PrismaClient, runId: number) {
  type Row = { resourceType: string; count: bigint; withFlags: bigint };
  const rows = (await hasRunTotals(prisma, runId))
    ? await prisma.$queryRaw<Row[]>`
      SELECT "resourceType", sum(resources) AS count, sum(flagged) AS "withFlags"
      FROM "RunResourceTotals" WHERE "analysisRunId" = ${runId}
      GROUP BY "resourceType" ORDER BY sum(resources) DESC, "resourceType"`
    : await prisma.$queryRaw<Row[]>`
      SELECT "resourceType", count(*) AS count, count(*) FILTER (WHERE ${HAS_FLAGS}) AS "withFlags"
      FROM "ResourceAnalyses" WHERE "analysisRunId" = ${runId}
      GROUP BY "resourceType" ORDER BY count(*) DESC, "resourceType"`;
  return rows.map((r) => ({
    resourceType: r.resourceType,
    count: toCount(r.count),
    withFlags: toCount(r.withFlags),
  }));
}

/** [{resourceGroup, count, types (distinct), withFlags}], count descending; groups upper-case. */
export async function resourceGroupSummary(prisma: PrismaClient, runId: number) {
  type Row = { resourceGroup: string; count: bigint; types: bigint; withFlags: bigint };
  const rows = (await hasRunTotals(prisma, runId))
    ? await prisma.$queryRaw<Row[]>`
      SELECT "resourceGroup", sum(resources) AS count, count(*) AS types, sum(flagged) AS "withFlags"
      FROM "RunResourceTotals" WHERE "analysisRunId" = ${runId}
      GROUP BY "resourceGroup" ORDER BY sum(resources) DESC, "resourceGroup"`
    : await prisma.$queryRaw<Row[]>`
      SELECT upper("resourceGroup") AS "resourceGroup", count(*) AS count,
             count(DISTINCT "resourceType") AS types, count(*) FILTER (WHERE ${HAS_FLAGS}) AS "withFlags"
      FROM "ResourceAnalyses" WHERE "analysisRunId" = ${runId}
      GROUP BY upper("resourceGroup") ORDER BY count(*) DESC, upper("resourceGroup")`;
  return rows.map((r) => ({
    resourceGroup: groupName(r.resourceGroup),
    count: toCount(r.count),
    types: toCount(r.types),
    withFlags: toCount(r.withFlags),
  }));
}
