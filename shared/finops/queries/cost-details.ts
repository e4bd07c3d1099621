import type { PrismaClient } from '../../db/client.js';
import type { CostDetail, Prisma } from '../../db/generated/client.js';
import { Prisma as P } from '../../db/generated/client.js';
import { groupName, pageTotal, toCount } from './format.js';
import { costDetailOut } from './mappers.js';
import { mergedGroupTags, tagKey } from './tags.js';

/** The cost types of CostDetails rows; a path value matches one case-insensitively. */
export const COST_TYPES = ['ResourceGroup', 'Service'] as const;

async function withTags(prisma: PrismaClient, runId: number, rows: CostDetail[]) {
  const tags = await mergedGroupTags(
    prisma,
    [runId],
    rows.map((r) => r.resourceGroup),
  );
  return rows.map((c) =>
    costDetailOut(c, c.resourceGroup ? tags.get(tagKey(runId, c.resourceGroup)) : undefined),
  );
}

/**
 * Cost lines of a run, cost descending (ties by id), optionally of one cost type
 * (case-insensitive: ResourceGroup or Service), with the merged tags of their resource group.
 */
export async function findCostDetails(
  prisma: PrismaClient,
  runId: number,
  costType: string | undefined,
  skip: number,
  take: number,
) {
  let type: string | undefined;
  if (costType !== undefined) {
    type = COST_TYPES.find((t) => t.toLowerCase() === costType.toLowerCase());
    if (!type) return { rows: [], total: 0 };
  }
  const where: Prisma.CostDetailWhereInput = { analysisRunId: runId, ...(type ? { costType: type } : {}) };
  const rows = await prisma.costDetail.findMany({
    where,
    orderBy: [{ cost: 'desc' }, { id: 'asc' }],
    skip,
    take,
  });
  const total = await pageTotal(rows, skip, take, () => prisma.costDetail.count({ where }));
  return { rows: await withTags(prisma, runId, rows), total };
}

/** Sums by resource group (ResourceGroup rows) or by service (Service rows), in SQL, cost descending. */
export async function costSummary(prisma: PrismaClient, runId: number, by: 'ResourceGroup' | 'Service') {
  const key = by === 'ResourceGroup' ? P.sql`upper(name)` : P.sql`name`;
  const rows = await prisma.$queryRaw<
    Array<{ name: string; totalCost: Prisma.Decimal; itemCount: bigint; currency: string }>
  >`SELECT ${key} AS name, sum(cost) AS "totalCost", count(*) AS "itemCount", currency
    FROM "CostDetails" WHERE "analysisRunId" = ${runId} AND "costType" = ${by}
    GROUP BY ${key}, currency ORDER BY sum(cost) DESC, ${key}`;
  return rows.map((r) =>
    by === 'ResourceGroup'
      ? {
          resourceGroup: groupName(r.name),
          totalCost: r.totalCost,
          itemCount: toCount(r.itemCount),
          currency: r.currency,
        }
      : { service: r.name, totalCost: r.totalCost, itemCount: toCount(r.itemCount), currency: r.currency },
  );
}
