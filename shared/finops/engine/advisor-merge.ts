/**
 * Merges Azure Advisor's cost recommendations into finwatch's flags: one finding per resource and
 * problem. When Advisor and a finwatch rule say the same thing about the same resource, the
 * finwatch flag carries Advisor's text and savings (Advisor knows the real prices, so its figure
 * wins when it is in the run's currency); otherwise the recommendation becomes an `AdvisorCost`
 * flag of its own. A recommendation about a resource the snapshot lacks (a subscription-level
 * reservation, say) becomes a row of its own.
 */
import type { AdvisorRecommendation, AzureResource } from '../azure/index.js';
import type { ResourceFlag } from './flags.js';

export const ADVISOR_CODE = 'AdvisorCost' as const;

/** Which finwatch rules an Advisor recommendation restates, by impacted type and its wording. */
const EQUIVALENTS: Array<{ type: string; words: RegExp; codes: string[] }> = [
  { type: 'microsoft.compute/disks', words: /unattached|not attached/i, codes: ['UnattachedDisk'] },
  {
    type: 'microsoft.network/publicipaddresses',
    words: /unassociated|idle|unused/i,
    codes: ['UnassociatedPublicIp'],
  },
  {
    type: 'microsoft.compute/virtualmachines',
    words: /hybrid benefit/i,
    codes: ['WindowsVmWithoutHybridBenefit'],
  },
  {
    type: 'microsoft.sqlvirtualmachine/sqlvirtualmachines',
    words: /hybrid benefit/i,
    codes: ['SqlVmWithoutHybridBenefit'],
  },
  { type: 'microsoft.compute/snapshots', words: /standard/i, codes: ['PremiumSnapshot'] },
  {
    type: 'microsoft.compute/virtualmachines',
    words: /shut ?down|deallocate|stopped/i,
    codes: ['VmStoppedNotDeallocated', 'VmDeallocated'],
  },
];

export interface AdvisorDetail {
  recommendationId: string;
  recommendationTypeId: string;
  impact: string;
  problem: string;
  solution: string;
  annualSavings: number | null;
  currency: string | null;
}

export type MergedFlag = ResourceFlag & { advisor?: AdvisorDetail };

const detail = (r: AdvisorRecommendation): AdvisorDetail => ({
  recommendationId: r.id,
  recommendationTypeId: r.recommendationTypeId,
  impact: r.impact,
  problem: r.problem,
  solution: r.solution,
  annualSavings: r.annualSavings,
  currency: r.currency,
});

function monthlySaving(r: AdvisorRecommendation, runCurrency: string): number | undefined {
  if (r.annualSavings === null) return undefined;
  if (r.currency && r.currency.toUpperCase() !== runCurrency.toUpperCase()) return undefined;
  return Math.round((r.annualSavings / 12) * 100) / 100;
}

/** A row for a recommendation whose resource is not in the snapshot. */
function resourceFor(r: AdvisorRecommendation): AzureResource {
  const group = /\/resourceGroups\/([^/]+)/i.exec(r.resourceId)?.[1] ?? '';
  return {
    id: r.resourceId,
    name: r.impactedName || r.resourceId.split('/').pop() || r.resourceId,
    type: r.impactedType || 'microsoft.resources/subscriptions',
    resourceGroup: group,
    location: '',
    sku: null,
    kind: null,
    managedBy: null,
    tags: {},
    properties: {},
  };
}

/**
 * Adds the recommendations to `flagsByIndex` (resources by index); resources the snapshot lacks are
 * appended to `resources`. Returns how many recommendations were merged into an existing flag.
 */
export function mergeAdvisor(
  resources: AzureResource[],
  flagsByIndex: Map<number, MergedFlag[]>,
  recommendations: readonly AdvisorRecommendation[],
  runCurrency: string,
  costOf: (id: string) => number | undefined,
): { merged: number; added: number } {
  const index = new Map<string, number>();
  resources.forEach((r, i) => {
    index.set(r.id.toLowerCase(), i);
  });
  let merged = 0;
  let added = 0;
  for (const r of recommendations) {
    let i = index.get(r.resourceId.toLowerCase());
    if (i === undefined) {
      i = resources.push(resourceFor(r)) - 1;
      index.set(r.resourceId.toLowerCase(), i);
    }
    const flags = flagsByIndex.get(i) ?? [];
    const type = resources[i]!.type;
    const text = `${r.problem} ${r.solution}`;
    const codes = EQUIVALENTS.filter((e) => e.type === type && e.words.test(text)).flatMap((e) => e.codes);
    const same = flags.find((f) => codes.includes(f.code) && !f.advisor);
    const saving = monthlySaving(r, runCurrency);
    if (same) {
      same.advisor = detail(r);
      if (saving !== undefined) same.estimatedMonthlySaving = saving;
      merged++;
    } else {
      const cost = costOf(r.resourceId.toLowerCase());
      flags.push({
        code: ADVISOR_CODE,
        message: `Azure Advisor: ${r.problem || 'cost recommendation'}${r.solution ? ` ${r.solution}.` : ''}`,
        monthToDateCost: cost !== undefined && cost > 0 ? Math.round(cost * 10000) / 10000 : null,
        category: 'waste',
        estimatedMonthlySaving: saving ?? 0,
        advisor: detail(r),
      });
      added++;
    }
    flagsByIndex.set(i, flags);
  }
  return { merged, added };
}
