/**
 * Azure Advisor's cost recommendations through Resource Graph (`AdvisorResources`, category Cost):
 * one query, paged by `$skipToken` like the resources. A separate request because Resource Graph
 * lets a `union` join only `Resources` and `ResourceContainers`.
 */
import type { ResourceGraphClient } from '@azure/arm-resourcegraph';
import { GRAPH_MAX_PAGE } from './resource-graph.js';

export const ADVISOR_QUERY = [
  'AdvisorResources',
  "where type =~ 'microsoft.advisor/recommendations' and properties.category =~ 'Cost'",
  'project id, name, type, resourceGroup, properties',
  'order by id asc',
].join('\n| ');

export interface AdvisorRecommendation {
  /** The recommendation's own id. */
  id: string;
  recommendationTypeId: string;
  /** The impacted resource's id (what the recommendation is about). */
  resourceId: string;
  /** e.g. microsoft.compute/virtualmachines (lower case). */
  impactedType: string;
  impactedName: string;
  impact: string;
  problem: string;
  solution: string;
  /** Advisor's estimate, null when it gives none. */
  annualSavings: number | null;
  currency: string | null;
}

const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown) => (typeof v === 'string' ? v : '');

export function normalizeAdvisor(row: Record<string, unknown>): AdvisorRecommendation | undefined {
  const p = rec(row['properties']);
  const ext = rec(p['extendedProperties']);
  const meta = rec(p['resourceMetadata']);
  const short = rec(p['shortDescription']);
  const id = str(row['id']);
  // The recommendation lives under its resource: <resourceId>/providers/Microsoft.Advisor/recommendations/<guid>.
  const resourceId =
    str(meta['resourceId']) || id.replace(/\/providers\/Microsoft\.Advisor\/recommendations\/[^/]+$/i, '');
  if (!resourceId) return undefined;
  const savings = Number(ext['annualSavingsAmount'] ?? ext['savingsAmount']);
  return {
    id,
    recommendationTypeId: str(p['recommendationTypeId']),
    resourceId,
    impactedType: str(p['impactedField']).toLowerCase(),
    impactedName: str(p['impactedValue']),
    impact: str(p['impact']),
    problem: str(short['problem']),
    solution: str(short['solution']),
    annualSavings: Number.isFinite(savings) && savings > 0 ? savings : null,
    currency: str(ext['savingsCurrency']) || null,
  };
}

export async function listAdvisorCostRecommendations(
  client: ResourceGraphClient,
  subscriptionId: string,
): Promise<AdvisorRecommendation[]> {
  const out: AdvisorRecommendation[] = [];
  let skipToken: string | undefined;
  do {
    const res = await client.resources({
      subscriptions: [subscriptionId],
      query: ADVISOR_QUERY,
      options: { top: GRAPH_MAX_PAGE, resultFormat: 'objectArray', ...(skipToken ? { skipToken } : {}) },
    });
    const data = Array.isArray(res.data) ? (res.data as Array<Record<string, unknown>>) : [];
    for (const row of data) {
      const r = normalizeAdvisor(row);
      if (r) out.push(r);
    }
    skipToken = res.skipToken ?? undefined;
  } while (skipToken);
  return out;
}
