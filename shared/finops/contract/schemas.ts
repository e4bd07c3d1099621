import { z } from 'zod';

/**
 * The wire shapes of the original FinOps service's read API (docs/api-compatibility.md),
 * as zod schemas: used as each route's `openapi.responses` and by the contract test, which parses
 * every answer with them. Objects are not strict: finwatch adds a few fields (currency, the infra
 * support overlay), never removes or renames one.
 */

/** A timestamp read from SQL, without offset, as the original wrote it: 2026-05-04T00:00:00(.fff). */
export const OffsetFreeDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?$/, 'an offset-free ISO date-time');
/** An instant with an offset (Subscriptions rows). */
export const InstantDate = z.iso.datetime({ offset: true });
const Money = z.number();
const Int = z.number().int();
const Tags = z.record(z.string(), z.string()).nullable();

export const CostDetail = z.object({
  id: Int,
  analysisRunId: Int,
  costType: z.string(),
  name: z.string(),
  resourceGroup: z.string().nullable(),
  cost: Money,
  currency: z.string(),
  recordedAt: OffsetFreeDate,
  tags: Tags,
  analysisRun: z.null(),
});

export const FlagDetail = z.object({
  code: z.string(),
  message: z.string(),
  monthToDateCost: z.number().nullable(),
  category: z.enum(['waste', 'security', 'modernize']).optional(),
  estimatedMonthlySaving: z.number().optional(),
  firstSeenAt: z.string().optional(),
  ageDays: Int.optional(),
  status: z.enum(['active', 'watch', 'dismissed', 'snoozed', 'excluded']).optional(),
});

export const ResourceAnalysis = z.object({
  id: Int,
  analysisRunId: Int,
  resourceType: z.string(),
  resourceName: z.string(),
  resourceGroup: z.string(),
  location: z.string(),
  propertiesJson: z.string().nullable(),
  tagsJson: z.string().nullable(),
  metricsJson: z.string().nullable(),
  flags: z.string().nullable(),
  recordedAt: OffsetFreeDate,
  analysisRun: z.null(),
  /** finwatch additions (the original's fields above are unchanged). */
  resourceId: z.string().optional(),
  flagDetails: z.array(FlagDetail).optional(),
  monthToDateCost: z.number().nullable().optional(),
});

export const HistoricalCost = z.object({
  id: Int,
  analysisRunId: Int,
  subscriptionId: z.string(),
  costDate: OffsetFreeDate,
  costType: z.enum(['Total', 'ResourceGroup', 'Service']),
  resourceGroup: z.string().nullable(),
  name: z.string().nullable(),
  cost: Money,
  currency: z.string(),
  recordedAt: OffsetFreeDate,
  tags: Tags,
  analysisRun: z.null(),
  /** finwatch overlay: the subscription's monthly infra support cost. */
  infraSupportCost: Money,
});

export const AiRecommendation = z.object({
  id: Int,
  analysisRunId: Int,
  recommendationText: z.string(),
  summary: z.string().nullable(),
  messageId: z.string(),
  conversationId: z.string(),
  model: z.string(),
  timestamp: z.number(),
  recordedAt: OffsetFreeDate,
  analysisRun: z.null(),
});

/** The columns of a stored run, shared by the run entity and latest-per-subscription's rows. */
const runColumns = {
  id: Int,
  subscriptionId: z.string(),
  subscriptionName: z.string(),
  runDate: OffsetFreeDate,
  totalMonthlyCost: Money,
  totalResourcesAnalyzed: Int,
  aiModel: z.string(),
  conversationId: z.string(),
  reportFilePath: z.string().nullable(),
  createdAt: OffsetFreeDate,
  currency: z.string(),
};

export const AnalysisRun = z.object({
  ...runColumns,
  costDetails: z.array(CostDetail),
  resources: z.array(ResourceAnalysis),
  aiRecommendations: z.array(AiRecommendation),
  historicalCosts: z.array(HistoricalCost),
});
export const AnalysisRunList = z.array(AnalysisRun);

export const AnalysisRunWithDescription = z.object({
  ...runColumns,
  description: z.string(),
  budget: Money.nullable(),
  infraSupportCost: Money,
});

export const SubscriptionSummary = z.object({ subscriptionId: z.string(), subscriptionName: z.string() });

export const Subscription = z.object({
  id: Int,
  subscriptionId: z.string(),
  description: z.string(),
  budget: Money.nullable(),
  infraSupportCost: Money,
  createdAt: InstantDate,
  updatedAt: InstantDate.nullable(),
});

export const ResourceTypeSummary = z.object({ resourceType: z.string(), count: Int, withFlags: Int });
export const ResourceGroupSummary = z.object({
  resourceGroup: z.string(),
  count: Int,
  types: Int,
  withFlags: Int,
});

export const CostGroupSummary = z.object({
  resourceGroup: z.string().nullable(),
  totalCost: Money,
  itemCount: Int,
  currency: z.string(),
});
export const CostServiceSummary = z.object({
  service: z.string(),
  totalCost: Money,
  itemCount: Int,
  currency: z.string(),
});

export const DailyTotal = z.object({
  date: OffsetFreeDate,
  cost: Money,
  currency: z.string(),
  infraSupportCost: Money,
});
export const HistoricalByGroup = z.object({
  date: OffsetFreeDate,
  resourceGroup: z.string().nullable(),
  cost: Money,
  currency: z.string(),
});
export const HistoricalByService = z.object({
  date: OffsetFreeDate,
  service: z.string().nullable(),
  resourceGroup: z.string().nullable(),
  cost: Money,
  currency: z.string(),
});

/** finwatch overlay: month totals with the subscription's infra support cost to stack on them. */
export const MonthWithInfraSupport = z.object({
  month: z.string().regex(/^\d{4}-\d{2}$/),
  cost: Money,
  infraSupportCost: Money,
  totalWithInfraSupport: Money,
  currency: z.string(),
});

export const TrendNotEnough = z.object({
  message: z.literal('Not enough data for trend analysis'),
  dataPoints: Int,
});
export const Trend = z.object({
  startDate: OffsetFreeDate,
  endDate: OffsetFreeDate,
  firstCost: Money,
  lastCost: Money,
  averageCost: Money,
  maxCost: Money,
  minCost: Money,
  trend: z.enum(['Increasing', 'Decreasing', 'Stable']),
  changePercent: z.number(),
  dataPoints: Int,
  currency: z.string(),
  infraSupportCost: Money,
  months: z.array(MonthWithInfraSupport),
});
export const TrendAnswer = z.union([Trend, TrendNotEnough]);

export const FormattedRecommendation = z.object({
  id: Int,
  analysisRunId: Int,
  formattedText: z.string(),
  summary: z.string(),
  model: z.string(),
  recordedAt: OffsetFreeDate,
});

const NameCost = z.object({ name: z.string(), cost: Money });
export const DashboardEmpty = z.object({
  message: z.literal('No analysis runs found. Start a new analysis to see data.'),
  totalRuns: z.literal(0),
});
export const DashboardSummary = z.object({
  latestRun: z.object({
    id: Int,
    runDate: OffsetFreeDate,
    subscriptionName: z.string(),
    totalMonthlyCost: Money,
    totalResourcesAnalyzed: Int,
    subscriptionId: z.string(),
    currency: z.string(),
  }),
  totalAnalysisRuns: Int,
  resourcesAnalyzed: Int,
  resourcesWithIssues: Int,
  topCostsByResourceGroup: z.array(NameCost).max(5),
  topCostsByService: z.array(NameCost).max(5),
  hasAiRecommendations: z.boolean(),
});
export const DashboardSummaryAnswer = z.union([DashboardSummary, DashboardEmpty]);

export const CostTrends = z.object({
  period: z.string().regex(/^Last \d+ months$/),
  dataPoints: Int,
  trends: z.array(
    z.object({
      runDate: OffsetFreeDate,
      totalMonthlyCost: Money,
      totalResourcesAnalyzed: Int,
      subscriptionId: z.string(),
      currency: z.string(),
      infraSupportCost: Money,
    }),
  ),
});

export const ResourceDistribution = z.object({
  analysisRunId: Int,
  runDate: OffsetFreeDate,
  totalResources: Int,
  distribution: z.array(z.object({ resourceType: z.string(), count: Int, percentage: z.number() })),
});

const WasteTotals = z.object({
  findings: Int,
  resources: Int,
  monthToDateCost: z.number(),
  estimatedMonthlySaving: z.number(),
});

/** finwatch: totals of a run's active findings (docs/waste-rules.md). */
export const WasteSummary = z.object({
  analysisRunId: Int,
  subscriptionId: z.string(),
  currency: z.string(),
  totals: WasteTotals,
  byRule: z.array(WasteTotals.extend({ code: z.string(), category: z.string() })),
  byResourceGroup: z.array(WasteTotals.extend({ resourceGroup: z.string() })),
  leftOut: z.object({
    watch: WasteTotals,
    dismissed: WasteTotals,
    snoozed: WasteTotals,
    excluded: WasteTotals,
  }),
});

const Suppression = z.object({
  kind: z.enum(['dismissed', 'snoozed', 'excluded']),
  id: Int,
  by: z.string(),
  reason: z.string(),
  at: z.string(),
  until: z.string().nullable(),
});

/** finwatch: one finding of a run (a resource and a rule or Advisor recommendation). */
export const WasteFinding = z.object({
  resourceId: z.string(),
  resourceName: z.string(),
  resourceType: z.string(),
  resourceGroup: z.string(),
  code: z.string(),
  message: z.string(),
  category: z.string(),
  monthToDateCost: z.number().nullable(),
  estimatedMonthlySaving: z.number(),
  firstSeenAt: z.string().nullable(),
  ageDays: Int.nullable(),
  status: z.enum(['active', 'watch', 'dismissed', 'snoozed', 'excluded']),
  suppression: Suppression.nullable(),
});

export const WasteChanges = z.object({
  subscriptionId: z.string(),
  analysisRunId: Int,
  runDate: z.string(),
  previousAnalysisRunId: Int.nullable(),
  previousRunDate: z.string().nullable(),
  new: z.array(WasteFinding),
  resolved: z.array(WasteFinding),
});

const Decision = z.object({
  id: Int,
  subscriptionId: z.string(),
  reason: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  revokedBy: z.string().nullable(),
  revokedAt: z.string().nullable(),
  inForce: z.boolean(),
});
export const WasteSuppressionRow = Decision.extend({
  resourceId: z.string(),
  code: z.string(),
  kind: z.enum(['dismissed', 'snoozed']),
  expiresAt: z.string().nullable(),
});
export const WasteExclusionRow = Decision.extend({
  kind: z.enum(['tag', 'resourceGroup']),
  tagName: z.string().nullable(),
  tagValue: z.string().nullable(),
  resourceGroup: z.string().nullable(),
});

export const OptimizationOpportunities = z.object({
  analysisRunId: Int,
  runDate: OffsetFreeDate,
  totalOpportunities: Int,
  byResourceType: z.array(
    z.object({
      resourceType: z.string(),
      count: Int,
      issues: z.array(z.object({ resourceName: z.string(), flags: z.string().nullable() })),
    }),
  ),
  /** finwatch addition: money at stake per rule and per resource group. */
  waste: WasteSummary.optional(),
});

/** Every error of finwatch: RFC 9457 problem+json with `message` repeating `detail`. */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: Int,
  detail: z.string(),
  message: z.string(),
  instance: z.string().optional(),
  traceId: z.string().optional(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});
