/** The ResourceAnalyses rows of a run, generated as the write reads them. */
import type { AzureResource } from '../azure/index.js';
import type { MergedFlag } from './advisor-merge.js';
import { round4, upper } from './cost-aggregate.js';
import { flagsText } from './flags.js';

function propertiesJson(r: AzureResource): string {
  const extra: Record<string, unknown> = {};
  if (r.sku && !('sku' in r.properties)) extra.sku = r.sku;
  if (r.kind && !('kind' in r.properties)) extra.kind = r.kind;
  if (r.managedBy && !('managedBy' in r.properties)) extra.managedBy = r.managedBy;
  return JSON.stringify({ ...r.properties, ...extra });
}

export function* resourceRows(
  resources: AzureResource[],
  flagsByIndex: Map<number, MergedFlag[]>,
  byResourceId: Map<string, number>,
  recordedAt: Date,
) {
  for (let i = 0; i < resources.length; i++) {
    const r = resources[i]!;
    const flags = flagsByIndex.get(i) ?? [];
    const cost = byResourceId.get(r.id.toLowerCase());
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
}
