import type { PrismaClient } from '../../db/client.js';
import type { CostDetail, Prisma } from '../../db/generated/client.js';
import { Prisma as P } from '../../db/generated/client.js';
import { groupName, offsetFree, pageTotal, toCount } from './format.js';
import { mergedGroupTags, tagKey } from './tags.js';

/** The cost types of CostDetails rows; a path value matches one case-insensitively. */
export const COST_TYPES = ['ResourceGroup', 'Service'] as const;

type CostRow = Pick<
  CostDetail,
  'id' | 'analysisRunId' | 'costType' | 'name' | 'resourceGroup' | 'currency' | 'recordedAt'
> & { cost: number };

const text = (v: string) => JSON.stringify(v);
const textOrNull = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));

/**
 * Cost lines with the merged tags of their resource group, as the JSON text of costDetailOut's
 * shape, member for member (stringify's replacer called back for every member of every row).
 */
async function withTagsJson(prisma: PrismaClient, runId: number, rows: CostRow[]): Promise<string> {
  const tags = await mergedGroupTags(
    prisma,
    [runId],
    rows.map((r) => r.resourceGroup),
  );
  const tagTexts = new Map<string, string>();
  const tagText = (group: string | null) => {
    if (!group) return 'null';
    const key = tagKey(runId, group);
    let t = tagTexts.get(key);
    if (t === undefined) {
      const merged = tags.get(key);
      t = merged && Object.keys(merged).length > 0 ? JSON.stringify(merged) : 'null';
      tagTexts.set(key, t);
    }
    return t;
  };
  const out = rows.map(
    (c) =>
      `{"id":${c.id},"analysisRunId":${c.analysisRunId},"costType":${text(c.costType)},` +
      // ResourceGroup rows name the group: upper-cased like resourceGroup.
      `"name":${text(c.costType === 'ResourceGroup' ? c.name.toUpperCase() : c.name)},` +
      `"resourceGroup":${textOrNull(groupName(c.resourceGroup))},"cost":${JSON.stringify(c.cost)},` +
      `"currency":${text(c.currency)},"recordedAt":"${offsetFree(c.recordedAt)}",` +
      `"tags":${tagText(c.resourceGroup)},"analysisRun":null}`,
  );
  return `[${out.join(',')}]`;
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
