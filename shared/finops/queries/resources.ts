import type { PrismaClient } from '../../db/client.js';
import { Prisma } from '../../db/generated/client.js';
import { groupName, pageTotal, toCount } from './format.js';
import { type ResourceRow, resourceOut } from './mappers.js';

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

/** Case-insensitive literal substring test: no LIKE pattern is built, so % and _ match themselves. */
const contains = (column: Prisma.Sql, term: string) =>
  Prisma.sql`strpos(lower(${column}), ${term.toLowerCase()}) > 0`;

function condition(f: ResourceFilter, exact: boolean): Prisma.Sql {
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
  if (filter.kind === 'all') {
    // The whole run: the count is an index-only scan, the page an ordered index scan.
    const rows = await prisma.$queryRaw<ResourceRow[]>`SELECT ${COLUMNS} FROM "ResourceAnalyses"
        WHERE "analysisRunId" = ${runId} ${order} LIMIT ${take} OFFSET ${skip}`;
    return { rows, total: await pageTotal(rows, skip, take, count) };
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

/** [{resourceType, count, withFlags}], count descending (then type). */
export async function resourceTypeSummary(prisma: PrismaClient, runId: number) {
  const rows = await prisma.$queryRaw<Array<{ resourceType: string; count: bigint; withFlags: bigint }>>`
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
  const rows = await prisma.$queryRaw<
    Array<{ resourceGroup: string; count: bigint; types: bigint; withFlags: bigint }>
  >`
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
