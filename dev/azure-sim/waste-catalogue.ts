/**
 * A positive and a negative case for every waste rule, in one resource group of their own, so tests
 * through HTTP can show each rule firing on the one and not on the other. Every resource carries the
 * tag `finwatch-case` = `<Code>:positive` or `<Code>:negative:<why>`. Switched on by the simulator's
 * `wasteCatalogue` option (and by `npm start`), off by default so other tests see the plain data.
 */
import { advisorRecommendations } from './catalogue-advisor.js';
import { CATALOGUE_GROUP, type CatalogueEntry, catalogueBuilder } from './catalogue-builder.js';
import {
  addAvailabilitySetCases,
  addDiskCases,
  addSnapshotCases,
  addSqlVmCases,
  addVmCases,
} from './catalogue-compute.js';
import {
  addDnsAndEndpointCases,
  addGatewayCases,
  addLoadBalancerCases,
  addNicCases,
  addPublicIpCases,
  addSecurityGroupAndRouteCases,
  addVnetCases,
} from './catalogue-network.js';
import {
  addAppServiceCases,
  addRegistryAndRedisCases,
  addSqlPoolCases,
  addStorageCases,
} from './catalogue-services.js';
import type { SimResource } from './resource.js';

export { CASE_TAG, CATALOGUE_GROUP } from './catalogue-builder.js';

export const EMPTY_GROUP = 'rg-waste-empty';
export const MANAGED_EMPTY_GROUP = 'MC_rg-aks_aks-01_westeurope';

export interface Catalogue {
  resources: CatalogueEntry[];
  /** Resource groups (ResourceContainers rows) the catalogue adds: its own, an empty one, a managed empty one. */
  containers: Array<{ name: string; caseTag: string; managedBy: string }>;
  /** AdvisorResources rows: cost recommendations (and one of another category, to be ignored). */
  advisor: SimResource[];
}

export function buildWasteCatalogue(
  subscriptionId: string,
  tenantId: string,
  currency: string,
  now: Date,
): Catalogue {
  const b = catalogueBuilder(subscriptionId, tenantId, now);
  // The order is the order of the Resources table: cases that point at another resource come after it.
  const { attachedVm, liveDisk } = addDiskCases(b);
  addPublicIpCases(b);
  const windowsVm = addVmCases(b);
  addSqlVmCases(b, windowsVm);
  addAppServiceCases(b);
  addSnapshotCases(b, liveDisk);
  addNicCases(b, attachedVm);
  addLoadBalancerCases(b);
  addRegistryAndRedisCases(b);
  addGatewayCases(b);
  addSecurityGroupAndRouteCases(b);
  addAvailabilitySetCases(b, attachedVm);
  addVnetCases(b);
  addDnsAndEndpointCases(b);
  addSqlPoolCases(b);
  addStorageCases(b);

  return {
    advisor: advisorRecommendations(b, currency, attachedVm),
    resources: b.entries,
    containers: [
      { name: CATALOGUE_GROUP, caseTag: 'EmptyResourceGroup:negative:has-resources', managedBy: '' },
      { name: EMPTY_GROUP, caseTag: 'EmptyResourceGroup:positive', managedBy: '' },
      {
        name: MANAGED_EMPTY_GROUP,
        caseTag: 'EmptyResourceGroup:negative:managed',
        managedBy: `/subscriptions/${subscriptionId}/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks-01`,
      },
    ],
  };
}
