import type { PrismaClient } from '../../db/client.js';
import { type AnalysisRun, Prisma } from '../../db/generated/client.js';
import { offsetFree } from './format.js';
import {
  costDetailOut,
  DEFAULT_INFRA_SUPPORT_COST,
  recommendationOut,
  resourceOut,
  runOut,
} from './mappers.js';
import { rawPage } from './raw-page.js';
import { mergedGroupTags, tagKey } from './tags.js';

// The run lists and the newest run are read raw: they answer the dashboard and the run lists on every
// request, and a model query costs several times its SQL in the client (the read bench's run lists
// took 1.2-1.6 ms of CPU per request with a model query and a count, 0.7-1.0 ms raw).
const NEWEST_FIRST = Prisma.sql`ORDER BY "runDate" DESC, id DESC`;
const runsOf = (subscriptionId?: string) =>
  subscriptionId ? Prisma.sql`WHERE "subscriptionId" = ${subscriptionId}` : Prisma.empty;

/** A page of runs, newest first, and how many there are. */
export async function listRuns(prisma: PrismaClient, skip: number, take: number, subscriptionId?: string) {
  const from = Prisma.sql`"AnalysisRuns" ${runsOf(subscriptionId)}`;
  const { rows, total } = await rawPage<AnalysisRun>(prisma, from, NEWEST_FIRST, skip, take);
  return { rows: rows.map(runOut), total };
}

/** The newest run (ties broken by the highest id), optionally of one subscription. */
export async function latestRun(prisma: PrismaClient, subscriptionId?: string): Promise<AnalysisRun | null> {
  const [run] = await prisma.$queryRaw<AnalysisRun[]>`
    SELECT * FROM "AnalysisRuns" ${runsOf(subscriptionId)} ${NEWEST_FIRST} LIMIT 1`;
  return run ?? null;
}

/**
 * A run with its cost details (cost descending, with merged group tags), resources (type, name)
 * and recommendations (newest first); `historicalCosts` stays [] as in the original, and every
 * child carries `analysisRun: null` instead of the back-reference that broke serialisation (W1).
 * Each child list is capped at `cap` rows; `childCounts` (a finwatch addition) gives the totals.
 */
export async function runWithChildren(prisma: PrismaClient, id: number | null, cap: number) {
  const run =
    id === null
      ? await latestRun(prisma)
      : await prisma.analysisRun.findUnique({
          where: { id },
        });
  if (!run) return null;
  const [costs, resources, recs, counts] = await Promise.all([
    prisma.costDetail.findMany({
      where: { analysisRunId: run.id },
      orderBy: [{ cost: 'desc' }, { id: 'asc' }],
      take: cap,
    }),
    prisma.resourceAnalysis.findMany({
      where: { analysisRunId: run.id },
      orderBy: [{ resourceType: 'asc' }, { resourceName: 'asc' }, { id: 'asc' }],
      take: cap,
    }),
    prisma.aiRecommendation.findMany({
      where: { analysisRunId: run.id },
      orderBy: [{ recordedAt: 'desc' }, { id: 'desc' }],
      take: cap,
    }),
    prisma.analysisRun.findUnique({
      where: { id: run.id },
      select: { _count: { select: { costDetails: true, resources: true, aiRecommendations: true } } },
    }),
  ]);
  const tags = await mergedGroupTags(
    prisma,
    [run.id],
    costs.map((c) => c.resourceGroup),
  );
  return {
    ...runOut(run),
    costDetails: costs.map((c) =>
      costDetailOut(c, c.resourceGroup ? tags.get(tagKey(run.id, c.resourceGroup)) : undefined),
    ),
    resources: resources.map(resourceOut),
    aiRecommendations: recs.map(recommendationOut),
    historicalCosts: [],
    childCounts: counts?._count ?? { costDetails: 0, resources: 0, aiRecommendations: 0 },
  };
}

interface LatestRow {
  id: number;
  subscriptionId: string;
  subscriptionName: string;
  description: string | null;
  budget: Prisma.Decimal | null;
  infraSupportCost: Prisma.Decimal | null;
  runDate: Date;
  totalMonthlyCost: Prisma.Decimal;
  totalResourcesAnalyzed: number;
  aiModel: string;
  conversationId: string;
  reportFilePath: string;
  createdAt: Date;
  currency: string;
}

/**
 * The newest run of each subscription, exactly one per subscription even when two runs share the
 * newest runDate (W12: the original matched runDate = max and duplicated ties), with the
 * Subscriptions row left-joined in (description "" and infraSupportCost 400 when there is none).
 * Sorted by subscriptionName, then subscriptionId.
 */
export async function latestPerSubscription(prisma: PrismaClient) {
  const rows = await prisma.$queryRaw<LatestRow[]>`
    SELECT r.id, r."subscriptionId", r."subscriptionName", s.description, s.budget, s."infraSupportCost",
           r."runDate", r."totalMonthlyCost", r."totalResourcesAnalyzed", r."aiModel", r."conversationId",
           r."reportFilePath", r."createdAt", r.currency
    FROM (
      SELECT DISTINCT ON ("subscriptionId") *
      FROM "AnalysisRuns"
      ORDER BY "subscriptionId", "runDate" DESC, id DESC
    ) r
    LEFT JOIN "Subscriptions" s ON s."subscriptionId" = r."subscriptionId"
    ORDER BY r."subscriptionName", r."subscriptionId"`;
  return rows.map((r) => ({
    id: r.id,
    subscriptionId: r.subscriptionId,
    subscriptionName: r.subscriptionName,
    description: r.description ?? '',
    budget: r.budget,
    infraSupportCost: r.infraSupportCost ?? DEFAULT_INFRA_SUPPORT_COST,
    runDate: offsetFree(r.runDate),
    totalMonthlyCost: r.totalMonthlyCost,
    totalResourcesAnalyzed: r.totalResourcesAnalyzed,
    aiModel: r.aiModel,
    conversationId: r.conversationId,
    reportFilePath: r.reportFilePath,
    createdAt: offsetFree(r.createdAt),
    currency: r.currency,
  }));
}

/** GET /Subscription: one row per subscription seen in runs, named after its newest run. */
export async function subscriptionSummaries(prisma: PrismaClient) {
  return prisma.$queryRaw<Array<{ subscriptionId: string; subscriptionName: string }>>`
    SELECT "subscriptionId", "subscriptionName" FROM (
      SELECT DISTINCT ON ("subscriptionId") "subscriptionId", "subscriptionName"
      FROM "AnalysisRuns"
      ORDER BY "subscriptionId", "runDate" DESC, id DESC
    ) latest
    ORDER BY "subscriptionName", "subscriptionId"`;
}

/** Deletes a run; its cost details, resources, recommendations and history go by cascade. */
export async function deleteRun(prisma: PrismaClient, id: number): Promise<boolean> {
  const r = await prisma.analysisRun.deleteMany({ where: { id } });
  return r.count > 0;
}

/** Whether the run exists. Raw: a model query costs several times its SQL in the client, and the run routes ask this per request. */
export async function runExists(prisma: PrismaClient, id: number): Promise<boolean> {
  const rows = await prisma.$queryRaw<Array<{ id: number }>>`SELECT id FROM "AnalysisRuns" WHERE id = ${id}`;
  return rows.length > 0;
}
