/**
 * One analysis of one subscription: name → resources (Resource Graph) → cost of the month (by
 * resource group and service, and by resource) → pause → six months of daily history → flags →
 * budget → recommendations (AI agent, or rules) → one all-or-nothing write. The history is staged in
 * the database page by page as it arrives (persist.ts), not held: memory is bounded by a cost page.
 */
import type { PrismaClient } from '../../db/generated/client.js';
import type { DatabaseTimeouts } from '../../db/timeouts.js';
import type { Logger } from '../../observability/logger.js';
import type { AzureAccess, AzureResource, DailyCost } from '../azure/index.js';
import { afterRunStored } from '../intel/after-run.js';
import { DEFAULT_DETECT, type DetectSettings } from '../intel/detect.js';
import { collectKubernetesBill } from '../kubernetes/collect.js';
import { detectNamespaceAnomalies } from '../kubernetes/namespace-anomalies.js';
import type { KubernetesUsageSource } from '../kubernetes/usage-source.js';
import { type MergedFlag, mergeAdvisor } from './advisor-merge.js';
import { type AiSettings, requestRecommendation } from './ai.js';
import { budgetStatus } from './budget.js';
import { shortReason } from './errors.js';
import { type AgeThresholds, applyAge, DEFAULT_AGE_THRESHOLDS, loadFirstSeen } from './flag-age.js';
import { computeFlags, flagsText } from './flags.js';
import { buildInventory, RESOURCE_GROUP_TYPE } from './inventory.js';
import { type AnalysisPeriod, analysisPeriod, type MonthSelection } from './period.js';
import { openRunWriter, type RecommendationRow, type RunWriter } from './persist.js';
import {
  type AnalysisFacts,
  buildPrompt,
  type FlaggedResource,
  ruleBasedRecommendation,
  summarize,
} from './recommendations.js';

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
  now?: () => Date;
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

const SEP = '\u0000';
const upper = (s: string) => s.toUpperCase();
const round4 = (n: number) => Math.round(n * 10000) / 10000;

function add<K>(map: Map<K, number>, key: K, value: number) {
  map.set(key, (map.get(key) ?? 0) + value);
}

/** Month-to-date (or previous month) cost lines: one per resource group, one per service and group. */
export function costDetailLines(rows: Array<{ resourceGroup: string; serviceName: string; cost: number }>) {
  const byGroup = new Map<string, number>();
  const byService = new Map<string, number>();
  for (const r of rows) {
    const g = upper(r.resourceGroup);
    add(byGroup, g, r.cost);
    add(byService, `${r.serviceName}${SEP}${g}`, r.cost);
  }
  return { byGroup, byService };
}

/** The CostDetails rows of those lines, as a run stores them (groups first, then services). */
export function* costDetailRows(
  lines: ReturnType<typeof costDetailLines>,
  currency: string,
  recordedAt: Date,
) {
  for (const [g, cost] of lines.byGroup) {
    yield { costType: 'ResourceGroup', name: g, resourceGroup: g, cost: round4(cost), currency, recordedAt };
  }
  for (const [key, cost] of lines.byService) {
    const [service, g] = key.split(SEP) as [string, string];
    yield { costType: 'Service', name: service, resourceGroup: g, cost: round4(cost), currency, recordedAt };
  }
}

/**
 * Daily history aggregated per day (Total), per day and group, per day, group and service. Compact on
 * purpose (a 10,000-resource subscription has ~600,000 day × group × service cells): groups and
 * services are interned to small integers and each day holds a Map keyed by one small integer, so
 * no per-cell string is kept.
 */
export class HistoryAggregate {
  private readonly groups: string[] = [];
  private readonly services: string[] = [];
  private readonly groupIds = new Map<string, number>();
  private readonly serviceIds = new Map<string, number>();
  /** yyyy-MM-dd → (group id × SERVICE_SPAN + service id) → cost. */
  private readonly days = new Map<string, Map<number, number>>();
  private static readonly SERVICE_SPAN = 1 << 13;
  rows = 0;

  private intern(list: string[], ids: Map<string, number>, name: string): number {
    let id = ids.get(name);
    if (id === undefined) {
      id = list.length;
      list.push(name);
      ids.set(name, id);
    }
    return id;
  }

  add(rows: readonly DailyCost[]) {
    for (const r of rows) {
      if (!r.date) continue;
      const g = this.intern(this.groups, this.groupIds, upper(r.resourceGroup));
      const sv = this.intern(this.services, this.serviceIds, r.serviceName);
      if (sv >= HistoryAggregate.SERVICE_SPAN)
        throw new Error('too many distinct services in the cost history');
      let day = this.days.get(r.date);
      if (!day) {
        day = new Map();
        this.days.set(r.date, day);
      }
      add(day, g * HistoryAggregate.SERVICE_SPAN + sv, r.cost);
      this.rows++;
    }
  }

  /** HistoricalCost rows (without analysisRunId), generated lazily. costDate has no offset (UTC midnight). */
  *historicalRows(subscriptionId: string, currency: string, recordedAt: Date) {
    const dates = [...this.days.keys()].sort();
    const span = HistoryAggregate.SERVICE_SPAN;
    const row = (
      costDate: Date,
      costType: string,
      resourceGroup: string | null,
      name: string | null,
      cost: number,
    ) => ({
      subscriptionId,
      costDate,
      costType,
      resourceGroup,
      name,
      cost: round4(cost),
      currency,
      recordedAt,
    });
    for (const date of dates) {
      let total = 0;
      for (const cost of this.days.get(date)!.values()) total += cost;
      yield row(new Date(`${date}T00:00:00.000Z`), 'Total', null, null, total);
    }
    for (const date of dates) {
      const byGroup = new Map<number, number>();
      for (const [key, cost] of this.days.get(date)!) add(byGroup, Math.floor(key / span), cost);
      const costDate = new Date(`${date}T00:00:00.000Z`);
      for (const [g, cost] of byGroup) yield row(costDate, 'ResourceGroup', this.groups[g]!, null, cost);
    }
    for (const date of dates) {
      const costDate = new Date(`${date}T00:00:00.000Z`);
      for (const [key, cost] of this.days.get(date)!) {
        yield row(
          costDate,
          'Service',
          this.groups[Math.floor(key / span)]!,
          this.services[key % span]!,
          cost,
        );
      }
    }
  }
}

function propertiesJson(r: AzureResource): string {
  const extra: Record<string, unknown> = {};
  if (r.sku && !('sku' in r.properties)) extra.sku = r.sku;
  if (r.kind && !('kind' in r.properties)) extra.kind = r.kind;
  if (r.managedBy && !('managedBy' in r.properties)) extra.managedBy = r.managedBy;
  return JSON.stringify({ ...r.properties, ...extra });
}

/** Period cost × this = monthly run-rate: the month's days over the days covered (1 for a full month). */
export function runRateFactor(from: string, to: string): number {
  const start = Date.parse(`${from}T00:00:00Z`);
  const covered = (Date.parse(`${to}T00:00:00Z`) - start) / 86_400_000 + 1;
  const d = new Date(start);
  const monthDays = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  return covered > 0 ? monthDays / covered : 1;
}

function top(map: Map<string, number>, n: number) {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, cost]) => ({ name, cost: Math.round(cost * 100) / 100 }));
}

export async function runAnalysis(
  deps: AnalysisDeps,
  input: AnalysisInput,
  progress: ProgressFn,
  signal?: AbortSignal,
): Promise<AnalysisResult> {
  const now = deps.now?.() ?? new Date();
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
  const { now, period, subscriptionName, resources, groups, advisor, mtd, perResource, writer } = g;
  const subscriptionId = input.subscriptionId;
  const currency = mtd.currency || g.historyCurrency || perResource.currency || 'USD';
  const totalMonthlyCost = mtd.total;

  await progress('flags', 78);
  const flagsByIndex = new Map<number, MergedFlag[]>();
  const flagged: FlaggedResource[] = [];
  const typeCounts = new Map<string, number>();
  const flagContext = {
    now,
    inventory: buildInventory(resources),
    runRateFactor: runRateFactor(period.from, period.to),
    costOf: (id: string) => perResource.byResourceId.get(id),
  };
  const firstSeen = await loadFirstSeen(prisma, subscriptionId);
  const thresholds = deps.ageThresholds ?? DEFAULT_AGE_THRESHOLDS;
  // Resource groups are rows only when flagged (an empty group): they are containers, not resources.
  for (const g of groups) if (computeFlags(g, undefined, flagContext).length) resources.push(g);
  const snapshotSize = resources.length;
  resources.forEach((r, i) => {
    const flags = computeFlags(r, perResource.byResourceId.get(r.id.toLowerCase()), flagContext);
    if (flags.length) flagsByIndex.set(i, flags);
  });
  const advisorMerge = mergeAdvisor(resources, flagsByIndex, advisor, currency, flagContext.costOf);
  log.debug({ subscriptionId, ...advisorMerge }, 'Advisor cost recommendations merged');
  resources.forEach((r, i) => {
    if (i < snapshotSize && r.type !== RESOURCE_GROUP_TYPE)
      typeCounts.set(r.type, (typeCounts.get(r.type) ?? 0) + 1);
    const cost = perResource.byResourceId.get(r.id.toLowerCase());
    const flags = flagsByIndex.get(i) ?? [];
    applyAge(r, flags, firstSeen, now, thresholds);
    if (flags.length) {
      flagged.push({
        name: r.name,
        type: r.type,
        resourceGroup: upper(r.resourceGroup),
        flags,
        monthToDateCost: cost !== undefined && cost > 0 ? round4(cost) : null,
      });
    }
  });
  flagged.sort((a, b) => (b.monthToDateCost ?? 0) - (a.monthToDateCost ?? 0));

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
    advisor: resources.flatMap((r, i) =>
      (flagsByIndex.get(i) ?? []).flatMap((f) =>
        f.advisor
          ? [
              {
                resourceName: r.name,
                resourceType: r.type,
                problem: f.advisor.problem,
                solution: f.advisor.solution,
                annualSavings: f.advisor.annualSavings,
                currency: f.advisor.currency,
              },
            ]
          : [],
      ),
    ),
  };

  await progress('recommendations', 82);
  const recordedAt = new Date();
  let recommendationSource: 'ai' | 'rules' = 'rules';
  let recommendationError: string | null = null;
  let aiModel = 'N/A';
  let conversationId = 'N/A';
  let recommendation: RecommendationRow;
  const rules = () => {
    const r = ruleBasedRecommendation(facts);
    return {
      recommendationText: r.text,
      summary: r.summary,
      messageId: '',
      conversationId: '',
      model: 'rules',
      timestamp: recordedAt.getTime() / 1000,
      source: 'rules',
      recordedAt,
    };
  };
  if (deps.ai) {
    try {
      const answer = await requestRecommendation(
        { ...deps.ai, ...(signal ? { signal } : {}) },
        buildPrompt(facts),
      );
      recommendationSource = 'ai';
      aiModel = answer.model || 'unknown';
      conversationId = answer.conversationId || 'N/A';
      recommendation = {
        recommendationText: answer.content,
        summary: summarize(answer.content),
        messageId: answer.messageId,
        conversationId: answer.conversationId,
        model: answer.model,
        timestamp: Date.now() / 1000,
        source: 'ai',
        recordedAt,
      };
    } catch (err) {
      if (signal?.aborted) throw err;
      recommendationError = shortReason(err);
      log.warn(
        { subscriptionId, reason: recommendationError },
        'AI step failed; using rule-based recommendations',
      );
      recommendation = rules();
    }
  } else {
    recommendation = rules();
  }

  await progress('saving', 88);
  const runDate = new Date();
  const saved = await writer.persist({
    run: {
      subscriptionId,
      subscriptionName,
      runDate,
      totalMonthlyCost: round4(totalMonthlyCost),
      totalResourcesAnalyzed: resources.length,
      aiModel,
      conversationId,
      reportFilePath: '',
      currency,
      costQueryType: deps.costQueryType,
      monthSelection: input.monthSelection,
      periodFrom: new Date(`${period.from}T00:00:00.000Z`),
      periodTo: new Date(`${period.to}T00:00:00.000Z`),
      recommendationSource,
      recommendationError,
    },
    resources: (function* () {
      for (let i = 0; i < resources.length; i++) {
        const r = resources[i]!;
        const flags = flagsByIndex.get(i) ?? [];
        const cost = perResource.byResourceId.get(r.id.toLowerCase());
        yield {
          resourceId: r.id,
          resourceType: r.type,
          resourceName: r.name,
          resourceGroup: upper(r.resourceGroup),
          location: r.location,
          propertiesJson: propertiesJson(r),
          tagsJson: Object.keys(r.tags).length ? JSON.stringify(r.tags) : null,
          metricsJson: null,
          flags: flagsText(flags),
          flagDetails: flags.length ? flags : null,
          monthToDateCost: cost === undefined ? 0 : round4(cost),
          recordedAt,
        };
      }
    })(),
    costDetails: costDetailRows(lines, currency, recordedAt),
    historicalCosts: { staged: { subscriptionId, currency, recordedAt } },
    recommendations: [recommendation],
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
    recommendationSource,
    recommendationError,
    period,
  };
}
