import type { PrismaClient } from '../../db/client.js';
import type { CostDetail, Prisma } from '../../db/generated/client.js';
import { Prisma as P } from '../../db/generated/client.js';
import { jsonArray } from '../../http/json-rows.js';
import { pageTotal } from '../../http/paging.js';
import { CostDetail as CostDetailOut } from '../contract/schemas.js';
import { compileSerializer } from '../contract/serialize.js';
import { groupName, offsetFree, toCount } from './format.js';
import { mergedGroupTags, tagKey } from './tags.js';

/** The cost types of CostDetails rows; a path value matches one case-insensitively. */
export const COST_TYPES = ['ResourceGroup', 'Service'] as const;

type CostRow = Pick<
  CostDetail,
  'id' | 'analysisRunId' | 'costType' | 'name' | 'resourceGroup' | 'currency' | 'recordedAt'
> & { cost: number };

/** Cost lines as the wire shape's JSON text, compiled from the contract schema. */
const costDetailText = compileSerializer(CostDetailOut);

/** Cost lines with the merged tags of their resource group, as the JSON text of a page. */
async function withTagsJson(prisma: PrismaClient, runId: number, rows: CostRow[]): Promise<string> {
  const tags = await mergedGroupTags(
    prisma,
    [runId],
    rows.map((r) => r.resourceGroup),
  );
  const tagsOf = (group: string | null) => {
    if (!group) return null;
    const merged = tags.get(tagKey(runId, group));
    return merged && Object.keys(merged).length > 0 ? merged : null;
  };
  const out = rows.map((c) =>
    costDetailText({
      id: c.id,
      analysisRunId: c.analysisRunId,
      costType: c.costType,
      // ResourceGroup rows name the group: upper-cased like resourceGroup.
      name: c.costType === 'ResourceGroup' ? c.name.toUpperCase() : c.name,
      resourceGroup: groupName(c.resourceGroup),
      cost: c.cost,
      currency: c.currency,
      recordedAt: offsetFree(c.recordedAt),
      tags: tagsOf(c.resourceGroup),
      analysisRun: null,
    }),
  );
  return jsonArray(out);
}

/**
 * Cost lines of a run, cost descending (ties by id), optionally of one cost type
 * (case-insensitive: ResourceGroup or Service), with the merged tags of their resource group: the
 * page as JSON text, and the total.
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
    if (!type) return { json: '[]', total: 0 };
  }
  const filter = type ? P.sql`AND "costType" = ${type}` : P.empty;
  const rows = await prisma.$queryRaw<CostRow[]>`
    SELECT id, "analysisRunId", "costType", name, "resourceGroup", cost::float8 AS cost, currency, "recordedAt"
    FROM "CostDetails" WHERE "analysisRunId" = ${runId} ${filter}
    ORDER BY cost DESC, id LIMIT ${take} OFFSET ${skip}`;
  const [json, total] = await Promise.all([
    withTagsJson(prisma, runId, rows),
    pageTotal(rows, skip, take, () =>
      prisma.costDetail.count({ where: { analysisRunId: runId, ...(type ? { costType: type } : {}) } }),
    ),
  ]);
  return { json, total };
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
