import type { PrismaClient } from '../../db/client.js';
import { Prisma } from '../../db/generated/client.js';
import { escapeLike, groupName, toCount } from './format.js';
import { type ResourceRow, resourceOut } from './mappers.js';

const COLUMNS = Prisma.sql`id, "analysisRunId", "resourceType", "resourceName", "resourceGroup", location,
  "propertiesJson", "tagsJson", "metricsJson", flags, "recordedAt"`;
const HAS_FLAGS = Prisma.sql`(flags IS NOT NULL AND flags <> '')`;

export type ResourceFilter =
  | { kind: 'all' }
  /** Resource types compare case-insensitively: Azure APIs disagree on their casing. */
  | { kind: 'type'; type: string }
  | { kind: 'group'; group: string }
  | { kind: 'flags'; contains?: string | undefined }
  | { kind: 'search'; term: string };

function condition(f: ResourceFilter): Prisma.Sql {
  switch (f.kind) {
    case 'all':
      return Prisma.empty;
    case 'type':
      return Prisma.sql`AND lower("resourceType") = lower(${f.type})`;
    case 'group':
      return Prisma.sql`AND upper("resourceGroup") = upper(${f.group})`;
    case 'flags':
      return f.contains
        ? Prisma.sql`AND ${HAS_FLAGS} AND flags ILIKE ${`%${escapeLike(f.contains)}%`} ESCAPE '\\'`
        : Prisma.sql`AND ${HAS_FLAGS}`;
    case 'search': {
      const like = `%${escapeLike(f.term)}%`;
      return Prisma.sql`AND ("resourceName" ILIKE ${like} ESCAPE '\\' OR "resourceGroup" ILIKE ${like} ESCAPE '\\'
        OR "resourceType" ILIKE ${like} ESCAPE '\\')`;
    }
  }
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
  const where = condition(filter);
  const order =
    filter.kind === 'type'
      ? Prisma.sql`ORDER BY "resourceName", id`
      : Prisma.sql`ORDER BY "resourceType", "resourceName", id`;
  const [rows, count] = await Promise.all([
    prisma.$queryRaw<ResourceRow[]>`SELECT ${COLUMNS} FROM "ResourceAnalyses"
      WHERE "analysisRunId" = ${runId} ${where} ${order} LIMIT ${take} OFFSET ${skip}`,
    prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM "ResourceAnalyses"
      WHERE "analysisRunId" = ${runId} ${where}`,
  ]);
  return { rows: rows.map(resourceOut), total: toCount(count[0]?.n) };
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
