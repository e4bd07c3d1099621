import type {
  AiRecommendation,
  AnalysisRun,
  CostDetail,
  ResourceAnalysis,
  Subscription,
} from '../../db/generated/client.js';
import { groupName, instant, offsetFree } from './format.js';
import type { Tags } from './tags.js';

/** Wire shapes of the original's entities; child rows carry `analysisRun: null` (W1). */

export const DEFAULT_INFRA_SUPPORT_COST = 400;

export function runOut(run: AnalysisRun) {
  return {
    id: run.id,
    subscriptionId: run.subscriptionId,
    subscriptionName: run.subscriptionName,
    runDate: offsetFree(run.runDate),
    totalMonthlyCost: run.totalMonthlyCost,
    totalResourcesAnalyzed: run.totalResourcesAnalyzed,
    aiModel: run.aiModel,
    conversationId: run.conversationId,
    reportFilePath: run.reportFilePath,
    createdAt: offsetFree(run.createdAt),
    currency: run.currency,
    costDetails: [] as unknown[],
    resources: [] as unknown[],
    aiRecommendations: [] as unknown[],
    historicalCosts: [] as unknown[],
  };
}

export type ResourceRow = Pick<
  ResourceAnalysis,
  | 'id'
  | 'analysisRunId'
  | 'resourceType'
  | 'resourceName'
  | 'resourceGroup'
  | 'location'
  | 'propertiesJson'
  | 'tagsJson'
  | 'metricsJson'
  | 'flags'
  | 'recordedAt'
> &
  Partial<Pick<ResourceAnalysis, 'resourceId' | 'flagDetails' | 'monthToDateCost'>>;

/**
 * Added beside the original's fields: the Azure resource id, the structured flags (code, message,
 * cost, estimated saving, age, status) and the resource's cost of the period.
 */
function finwatchResourceFields(r: ResourceRow) {
  return {
    ...(r.resourceId !== undefined ? { resourceId: r.resourceId } : {}),
    ...(r.flagDetails !== undefined ? { flagDetails: r.flagDetails ?? [] } : {}),
    ...(r.monthToDateCost !== undefined
      ? { monthToDateCost: r.monthToDateCost === null ? null : Number(r.monthToDateCost) }
      : {}),
  };
}

export function resourceOut(r: ResourceRow) {
  return {
    ...finwatchResourceFields(r),
    id: r.id,
    analysisRunId: r.analysisRunId,
    resourceType: r.resourceType,
    resourceName: r.resourceName,
    resourceGroup: groupName(r.resourceGroup),
    location: r.location,
    propertiesJson: r.propertiesJson,
    tagsJson: r.tagsJson,
    metricsJson: r.metricsJson,
    flags: r.flags,
    recordedAt: offsetFree(r.recordedAt),
    analysisRun: null,
  };
}

export function costDetailOut(c: CostDetail, tags: Tags | undefined) {
  const group = groupName(c.resourceGroup);
  return {
    id: c.id,
    analysisRunId: c.analysisRunId,
    costType: c.costType,
    // ResourceGroup rows name the group: upper-cased like resourceGroup.
    name: c.costType === 'ResourceGroup' ? c.name.toUpperCase() : c.name,
    resourceGroup: group,
    cost: c.cost,
    currency: c.currency,
    recordedAt: offsetFree(c.recordedAt),
    tags: tags && Object.keys(tags).length > 0 ? tags : null,
    analysisRun: null,
  };
}

export function recommendationOut(r: AiRecommendation) {
  return {
    id: r.id,
    analysisRunId: r.analysisRunId,
    recommendationText: r.recommendationText,
    summary: r.summary,
    messageId: r.messageId,
    conversationId: r.conversationId,
    model: r.model,
    timestamp: r.timestamp,
    recordedAt: offsetFree(r.recordedAt),
    analysisRun: null,
    source: r.source,
  };
}

export function subscriptionOut(s: Subscription) {
  return {
    id: s.id,
    subscriptionId: s.subscriptionId,
    description: s.description,
    budget: s.budget,
    infraSupportCost: s.infraSupportCost,
    createdAt: instant(s.createdAt),
    updatedAt: instant(s.updatedAt),
  };
}
