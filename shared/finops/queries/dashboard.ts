import { LRUCache } from 'lru-cache';
import { perHost } from '../../app/per-host.js';
import type { PrismaClient } from '../../db/client.js';
import type { Prisma } from '../../db/generated/client.js';
import { Prisma as P } from '../../db/generated/client.js';
import { groupName, offsetFree, toCount } from './format.js';
import { DEFAULT_INFRA_SUPPORT_COST } from './mappers.js';
import { latestRun } from './runs.js';

type Decimal = Prisma.Decimal;

/** The run's resource and flagged counts: from its totals when written with it, else counted. */
function resourceFigures(run: { id: number; totalsWrittenAt: Date | null }) {
  return run.totalsWrittenAt
    ? P.sql`(SELECT coalesce(sum(resources), 0) FROM "RunResourceTotals" WHERE "analysisRunId" = ${run.id}) AS resources,
      (SELECT coalesce(sum(flagged), 0) FROM "RunResourceTotals" WHERE "analysisRunId" = ${run.id}) AS issues`
    : P.sql`(SELECT count(*) FROM "ResourceAnalyses" WHERE "analysisRunId" = ${run.id}) AS resources,
      (SELECT count(*) FROM "ResourceAnalyses" WHERE "analysisRunId" = ${run.id} AND flags IS NOT NULL AND flags <> '') AS issues`;
}

/**
 * The dashboard reads the newest run across all subscriptions, as the original did; an optional
 * `subscriptionId` scopes every dashboard route to one subscription instead (W13).
 */
export async function dashboardSummary(prisma: PrismaClient, subscriptionId?: string) {
  const run = await latestRun(prisma, subscriptionId);
  if (!run) return null;
  // One round trip for the figures: under load a request holding one pooled connection beats
  // seven small queries queuing for the pool.
  const scope = subscriptionId ? P.sql`WHERE "subscriptionId" = ${subscriptionId}` : P.empty;
  const top = (
    costType: string,
  ) => P.sql`(SELECT coalesce(json_agg(json_build_object('name', name, 'cost', cost)
      ORDER BY cost DESC, id), '[]'::json)::text FROM (SELECT id, name, cost FROM "CostDetails"
      WHERE "analysisRunId" = ${run.id} AND "costType" = ${costType} ORDER BY cost DESC, id LIMIT 5) t)`;
  const [figures] = await prisma.$queryRaw<
    Array<{
      runs: bigint;
      resources: bigint;
      issues: bigint;
      byGroup: string;
      byService: string;
      hasRec: boolean;
    }>
  >`SELECT (SELECT count(*) FROM "AnalysisRuns" ${scope}) AS runs,
      ${resourceFigures(run)},
      ${top('ResourceGroup')} AS "byGroup", ${top('Service')} AS "byService",
      EXISTS (SELECT 1 FROM "AiRecommendations" WHERE "analysisRunId" = ${run.id}) AS "hasRec"`;
  // json_agg writes numeric values as JSON numbers: the exact decimal text, parsed once here.
  const costs = (text: string | undefined) =>
    (JSON.parse(text ?? '[]') as Array<{ name: string; cost: number }>).map((c) => ({
      name: c.name,
      cost: c.cost,
    }));
  return {
    latestRun: {
      id: run.id,
      runDate: offsetFree(run.runDate),
      subscriptionName: run.subscriptionName,
      totalMonthlyCost: run.totalMonthlyCost,
      totalResourcesAnalyzed: run.totalResourcesAnalyzed,
      subscriptionId: run.subscriptionId,
      currency: run.currency,
    },
    totalAnalysisRuns: toCount(figures?.runs),
    resourcesAnalyzed: toCount(figures?.resources),
    resourcesWithIssues: toCount(figures?.issues),
    topCostsByResourceGroup: costs(figures?.byGroup).map((c) => ({ name: groupName(c.name), cost: c.cost })),
    topCostsByService: costs(figures?.byService),
    hasAiRecommendations: figures?.hasRec === true,
  };
}

/** now minus `months` calendar months, the day clamped to the target month (as .NET AddMonths). */
export function monthsBefore(now: Date, months: number): Date {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() - months;
  const target = new Date(Date.UTC(y, m, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(now.getUTCDate(), lastDay));
  target.setUTCHours(now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds(), now.getUTCMilliseconds());
  return target;
}

/** Runs of the last `months` months, runDate ascending, each with its subscription's infra support cost. */
export async function costTrends(prisma: PrismaClient, months: number, cap: number, subscriptionId?: string) {
  const cutoff = monthsBefore(new Date(), months);
  const scope = subscriptionId ? P.sql`AND r."subscriptionId" = ${subscriptionId}` : P.empty;
  const rows = await prisma.$queryRaw<
    Array<{
      runDate: Date;
      totalMonthlyCost: Decimal;
      totalResourcesAnalyzed: number;
      subscriptionId: string;
      currency: string;
      infra: Decimal;
    }>
  >`
    SELECT r."runDate", r."totalMonthlyCost", r."totalResourcesAnalyzed", r."subscriptionId", r.currency,
           COALESCE(s."infraSupportCost", ${DEFAULT_INFRA_SUPPORT_COST}) AS infra
    FROM "AnalysisRuns" r LEFT JOIN "Subscriptions" s ON s."subscriptionId" = r."subscriptionId"
    WHERE r."runDate" >= ${cutoff} ${scope}
    ORDER BY r."runDate", r.id LIMIT ${cap}`;
  return {
    period: `Last ${months} months`,
    dataPoints: rows.length,
    trends: rows.map((r) => ({
      runDate: offsetFree(r.runDate),
      totalMonthlyCost: r.totalMonthlyCost,
      totalResourcesAnalyzed: r.totalResourcesAnalyzed,
      subscriptionId: r.subscriptionId,
      currency: r.currency,
      infraSupportCost: r.infra,
    })),
  };
}

export async function resourceDistribution(prisma: PrismaClient, subscriptionId?: string) {
  const run = await latestRun(prisma, subscriptionId);
  if (!run) return null;
  type Row = { resourceType: string; count: bigint; percentage: Decimal };
  const rows = run.totalsWrittenAt
    ? await prisma.$queryRaw<Row[]>`
      SELECT "resourceType", sum(resources) AS count,
             round(sum(resources) * 100.0 / sum(sum(resources)) OVER (), 2) AS percentage
      FROM "RunResourceTotals" WHERE "analysisRunId" = ${run.id}
      GROUP BY "resourceType" ORDER BY sum(resources) DESC, "resourceType"`
    : await prisma.$queryRaw<Row[]>`
      SELECT "resourceType", count(*) AS count,
             round(count(*) * 100.0 / sum(count(*)) OVER (), 2) AS percentage
      FROM "ResourceAnalyses" WHERE "analysisRunId" = ${run.id}
      GROUP BY "resourceType" ORDER BY count(*) DESC, "resourceType"`;
  const distribution = rows.map((r) => ({
    resourceType: r.resourceType,
    count: toCount(r.count),
    percentage: Number(r.percentage),
  }));
  return {
    analysisRunId: run.id,
    runDate: offsetFree(run.runDate),
    totalResources: distribution.reduce((s, d) => s + d.count, 0),
    distribution,
  };
}

/**
 * Flagged resources of the latest run by type (count descending, then type; issues by name).
 * Counts are exact; the issue lists hold at most `cap` resources in all (W6), and
 * `issuesTruncated` (added) says when some were left out.
 */
export async function optimizationOpportunities(prisma: PrismaClient, cap: number, subscriptionId?: string) {
  const run = await latestRun(prisma, subscriptionId);
  if (!run) return null;
  const kept = opportunityCacheOf(prisma);
  const key = `${run.id}|${cap}`;
  let answer = kept.get(key);
  if (!answer) {
    answer = await runOpportunities(prisma, run, cap);
    kept.set(key, answer);
  }
  return answer;
}

/**
 * optimizationOpportunities with its JSON text (made once per kept answer: up to 5,000 issues,
 * 150 KiB for the read bench's run, were serialised again on every request).
 */
export async function optimizationOpportunitiesJson(
  prisma: PrismaClient,
  cap: number,
  subscriptionId?: string,
) {
  const answer = await optimizationOpportunities(prisma, cap, subscriptionId);
  if (!answer) return null;
  let json = opportunityTexts.get(answer);
  if (json === undefined) {
    json = JSON.stringify(answer);
    opportunityTexts.set(answer, json);
  }
  return { analysisRunId: answer.analysisRunId, json };
}

/** The JSON text of each kept answer, for as long as the answer is kept. */
const opportunityTexts = new WeakMap<object, string>();

/**
 * Opportunities per run, per host: a run's resources never change once written, and finding its
 * flagged ones reads every resource of the run (10,000 for the bench's subscription) to answer up
 * to `cap` of them. Bounded by entries; a deleted run is never the latest, so never looked up.
 */
const OPPORTUNITY_RUNS = 16;
type Opportunities = Awaited<ReturnType<typeof runOpportunities>>;
const opportunityCacheOf = perHost(() => new LRUCache<string, Opportunities>({ max: OPPORTUNITY_RUNS }));

async function runOpportunities(
  prisma: PrismaClient,
  run: NonNullable<Awaited<ReturnType<typeof latestRun>>>,
  cap: number,
) {
  const flagged = P.sql`"analysisRunId" = ${run.id} AND flags IS NOT NULL AND flags <> ''`;
  const [counts, issues] = await Promise.all([
    run.totalsWrittenAt
      ? prisma.$queryRaw<Array<{ resourceType: string; count: bigint }>>`
        SELECT "resourceType", sum(flagged) AS count FROM "RunResourceTotals"
        WHERE "analysisRunId" = ${run.id} AND flagged > 0
        GROUP BY "resourceType" ORDER BY sum(flagged) DESC, "resourceType"`
      : prisma.$queryRaw<Array<{ resourceType: string; count: bigint }>>`
        SELECT "resourceType", count(*) AS count FROM "ResourceAnalyses" WHERE ${flagged}
        GROUP BY "resourceType" ORDER BY count(*) DESC, "resourceType"`,
    prisma.$queryRaw<Array<{ resourceType: string; resourceName: string; flags: string | null }>>`
      SELECT "resourceType", "resourceName", flags FROM "ResourceAnalyses" WHERE ${flagged}
      ORDER BY "resourceType", "resourceName", id LIMIT ${cap}`,
  ]);
  const byType = new Map<string, Array<{ resourceName: string; flags: string | null }>>();
  for (const i of issues) {
    const list = byType.get(i.resourceType) ?? [];
    list.push({ resourceName: i.resourceName, flags: i.flags });
    byType.set(i.resourceType, list);
  }
  const total = counts.reduce((s, c) => s + toCount(c.count), 0);
  return {
    analysisRunId: run.id,
    runDate: offsetFree(run.runDate),
    totalOpportunities: total,
    byResourceType: counts.map((c) => ({
      resourceType: c.resourceType,
      count: toCount(c.count),
      issues: byType.get(c.resourceType) ?? [],
    })),
    issuesTruncated: issues.length < total,
  };
}
