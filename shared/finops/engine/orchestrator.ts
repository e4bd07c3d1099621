/**
 * One analysis of one subscription: name → resources (Resource Graph) → cost of the month (by
 * resource group and service, and by resource) → pause → six months of daily history → flags
 * (flag-step.ts) → budget → recommendations (recommend-step.ts: AI agent, or rules) → one
 * all-or-nothing write (run-rows.ts, cost-aggregate.ts). This module only sequences the steps. The history is staged in
 * the database page by page as it arrives (persist.ts), not held: memory is bounded by a cost page.
 */
import type { PrismaClient } from '../../db/generated/client.js';
import type { DatabaseTimeouts } from '../../db/timeouts.js';
import type { Logger } from '../../observability/logger.js';
import type { AzureAccess, AzureResource } from '../azure/index.js';
import { afterRunStored } from '../intel/after-run.js';
import { DEFAULT_DETECT, type DetectSettings } from '../intel/detect.js';
import { collectKubernetesBill } from '../kubernetes/collect.js';
import { detectNamespaceAnomalies } from '../kubernetes/namespace-anomalies.js';
import type { KubernetesUsageSource } from '../kubernetes/usage-source.js';
import type { AiSettings } from './ai.js';
import { budgetStatus } from './budget.js';
import { type Clock, systemClock } from './clock.js';
import { add, costDetailLines, costDetailRows, round4 } from './cost-aggregate.js';
import type { AgeThresholds } from './flag-age.js';
import { flagResources } from './flag-step.js';
import { RESOURCE_GROUP_TYPE } from './inventory.js';
import { type AnalysisPeriod, analysisPeriod, type MonthSelection } from './period.js';
import { openRunWriter, type RunWriter } from './persist.js';
import { advisorFacts, recommend, top } from './recommend-step.js';
import type { AnalysisFacts } from './recommendations.js';
import { resourceRows } from './run-rows.js';

export interface AnalysisDeps {
  azure: AzureAccess;
  prisma: PrismaClient;
  log: Logger;
  costQueryType: string;
  /** PostgreSQL URL: the run is written through a dedicated connection (see persist.ts). */
  postgresUrl?: string | undefined;
  postgresTimeouts?: DatabaseTimeouts | undefined;
  /** Undefined: no AI agent configured (rule-based recommendations). */
  ai?: Omit<AiSettings, 'signal'>;
  /** Minimum ages of age-gated flags (Waste__* settings). */
  ageThresholds?: AgeThresholds;
  /** The engine's clock (default: the system's). */
  now?: Clock;
  /** Anomaly detection settings (defaults when unset). */
  intel?: DetectSettings;
  /** Namespace cost anomalies after the Kubernetes bill is collected (unset: none). */
  kubernetes?: {
    usage: () => KubernetesUsageSource;
    sharedNamespaces: string[];
    shareMode: 'weighted' | 'even';
  };
}

export interface AnalysisInput {
  subscriptionId: string;
  monthSelection: MonthSelection;
}

/** Reports the phase and progress (0–100); may throw to abort the analysis. */
export type ProgressFn = (phase: string, progress: number) => Promise<void>;

export interface AnalysisResult {
  analysisRunId: number;
  subscriptionName: string;
  totalMonthlyCost: number;
  resourcesAnalyzed: number;
  rowsWritten: number;
  /** Time spent writing the run, staging its history included. */
  writeMs: number;
  /** Of which staging the history as its pages arrived. */
  stagingMs: number;
  recommendationSource: 'ai' | 'rules';
  recommendationError: string | null;
  period: AnalysisPeriod;
}

export async function runAnalysis(
  deps: AnalysisDeps,
  input: AnalysisInput,
  progress: ProgressFn,
  signal?: AbortSignal,
): Promise<AnalysisResult> {
  const now = (deps.now ?? systemClock)();
  const { azure, prisma } = deps;
  const subscriptionId = input.subscriptionId;
  const period = analysisPeriod(input.monthSelection, now);

  await progress('subscription', 2);
  const subscriptionName = await azure.getSubscriptionName(subscriptionId);

  await progress('resources', 5);
  const resources: AzureResource[] = [];
  const groups: AzureResource[] = [];
  await azure.listResources(subscriptionId, async (page) => {
    for (const r of page) (r.type === RESOURCE_GROUP_TYPE ? groups : resources).push(r);
    await progress('resources', Math.min(25, 5 + resources.length / 1000));
  });

  // Advisor's cost recommendations: one more Resource Graph request (a union cannot reach AdvisorResources).
  const advisor = (await azure.listAdvisorCostRecommendations?.(subscriptionId)) ?? [];

  await progress('cost: month to date', 28);
  const mtd = await azure.monthToDateByGroupAndService(subscriptionId, period.cost);
  await progress('cost: per resource', 35);
  const perResource = await azure.costByResource(subscriptionId, period.cost);

  await progress('pause before history', 40);
  await azure.pace.betweenMtdAndHistory();

  await progress('cost: history', 45);
  const writer = await openRunWriter(prisma, {
    postgresUrl: deps.postgresUrl,
    postgresTimeouts: deps.postgresTimeouts,
  });
  let result: AnalysisResult;
  try {
    const hist = await azure.dailyHistory(
      subscriptionId,
      period.history.from,
      period.history.to,
      async (rows, page) => {
        await writer.stageHistory(rows);
        await progress('cost: history', Math.min(75, 46 + page * 2));
      },
    );
    result = await analyseAndSave(deps, input, progress, signal, {
      now,
      period,
      subscriptionName,
      resources,
      groups,
      advisor,
      mtd,
      perResource,
      historyCurrency: hist.currency,
      writer,
    });
  } finally {
    await writer.close();
  }
  await afterRunStored(deps, result.analysisRunId);
  if ((await collectKubernetesBill(deps, subscriptionId, resources)) > 0 && deps.kubernetes) {
    await detectNamespaceAnomalies(
      {
        prisma: deps.prisma,
        log: deps.log,
        usage: deps.kubernetes.usage(),
        settings: deps.intel ?? DEFAULT_DETECT,
        costType: deps.costQueryType === 'AmortizedCost' ? 'AmortizedCost' : 'ActualCost',
        sharedNamespaces: deps.kubernetes.sharedNamespaces,
        shareMode: deps.kubernetes.shareMode,
        ...(deps.now ? { now: deps.now } : {}),
      },
      subscriptionId,
    );
  }
  return result;
}

/** What the steps before the history gathered. */
interface Gathered {
  now: Date;
  period: AnalysisPeriod;
  subscriptionName: string;
  resources: AzureResource[];
  groups: AzureResource[];
  advisor: Awaited<ReturnType<NonNullable<AzureAccess['listAdvisorCostRecommendations']>>>;
  mtd: Awaited<ReturnType<AzureAccess['monthToDateByGroupAndService']>>;
  perResource: Awaited<ReturnType<AzureAccess['costByResource']>>;
  historyCurrency: string | null;
  writer: RunWriter;
}

/** Flags, budget, recommendations and the write, once the history is staged (anomalies come after). */
async function analyseAndSave(
  deps: AnalysisDeps,
  input: AnalysisInput,
  progress: ProgressFn,
  signal: AbortSignal | undefined,
  g: Gathered,
): Promise<AnalysisResult> {
  const { prisma, log } = deps;
  const { now, period, subscriptionName, resources, mtd, perResource, writer } = g;
  const clock = deps.now ?? systemClock;
  const subscriptionId = input.subscriptionId;
  const currency = mtd.currency || g.historyCurrency || perResource.currency || 'USD';
  const totalMonthlyCost = mtd.total;

  await progress('flags', 78);
  const { flagsByIndex, flagged, typeCounts } = await flagResources(deps, {
    subscriptionId,
    now,
    period,
    resources,
    groups: g.groups,
    advisor: g.advisor,
    byResourceId: perResource.byResourceId,
    currency,
  });

  const sub = await prisma.subscription.findFirst({
    where: { subscriptionId },
    select: { budget: true },
  });
  const monthlyBudget = sub?.budget === null || sub?.budget === undefined ? null : Number(sub.budget);
  const budget = budgetStatus(totalMonthlyCost, monthlyBudget);

  const lines = costDetailLines(mtd.rows);
  const byServiceOnly = new Map<string, number>();
  for (const r of mtd.rows) add(byServiceOnly, r.serviceName, r.cost);
  const facts: AnalysisFacts = {
    subscriptionId,
    subscriptionName,
    monthSelection: input.monthSelection,
    periodFrom: period.from,
    periodTo: period.to,
    currency,
    totalMonthlyCost,
    monthlyBudget: budget ? monthlyBudget : null,
    budget,
    resourceCount: resources.length,
    resourcesByType: [...typeCounts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([type, count]) => ({ type, count })),
    topResourceGroups: top(lines.byGroup, 10),
    topServices: top(byServiceOnly, 10),
    flagged,
    advisor: advisorFacts(resources, flagsByIndex),
  };

  await progress('recommendations', 82);
  const recordedAt = clock();
  const rec = await recommend(deps, facts, recordedAt, signal);

  await progress('saving', 88);
  const saved = await writer.persist({
    run: {
      subscriptionId,
      subscriptionName,
      runDate: clock(),
      totalMonthlyCost: round4(totalMonthlyCost),
      totalResourcesAnalyzed: resources.length,
      aiModel: rec.aiModel,
      conversationId: rec.conversationId,
      reportFilePath: '',
      currency,
      costQueryType: deps.costQueryType,
      monthSelection: input.monthSelection,
      periodFrom: new Date(`${period.from}T00:00:00.000Z`),
      periodTo: new Date(`${period.to}T00:00:00.000Z`),
      recommendationSource: rec.source,
      recommendationError: rec.error,
    },
    resources: resourceRows(resources, flagsByIndex, perResource.byResourceId, recordedAt),
    costDetails: costDetailRows(lines, currency, recordedAt),
    historicalCosts: { staged: { subscriptionId, currency, recordedAt } },
    recommendations: [rec.recommendation],
  });
  log.info(
    {
      subscriptionId,
      analysisRunId: saved.runId,
      rows: saved.rows,
      stagedCostRows: writer.stagedRows,
      writeMs: Math.round(saved.ms),
    },
    'analysis saved',
  );
  return {
    analysisRunId: saved.runId,
    subscriptionName,
    totalMonthlyCost,
    resourcesAnalyzed: resources.length,
    rowsWritten: saved.rows,
    writeMs: saved.ms,
    stagingMs: saved.stagingMs,
    recommendationSource: rec.source,
    recommendationError: rec.error,
    period,
  };
}
