/** The catalogue's Advisor recommendations (Resource Graph's `AdvisorResources` rows). */
import type { CatalogueBuilder } from './catalogue-builder.js';
import type { SimResource } from './resource.js';

export const ADVISOR_RESERVATION_TYPE = '84b1a508-fc21-49da-979e-96894f1665df';

interface Recommendation {
  category?: string;
  typeId: string;
  problem: string;
  solution: string;
  annual?: number;
}

function advisorRow(
  b: CatalogueBuilder,
  currency: string,
  resourceId: string,
  impactedField: string,
  impactedValue: string,
  p: Recommendation,
): SimResource {
  const name = `${p.typeId.slice(0, 8)}-${impactedValue.slice(-8)}`.toLowerCase();
  const group = /\/resourceGroups\/([^/]+)/i.exec(resourceId)?.[1] ?? '';
  return {
    id: `${resourceId}/providers/Microsoft.Advisor/recommendations/${name}`,
    name,
    type: 'microsoft.advisor/recommendations',
    tenantId: b.tenantId,
    kind: '',
    location: '',
    resourceGroup: group.toLowerCase(),
    subscriptionId: b.subscriptionId,
    managedBy: '',
    sku: null,
    plan: null,
    properties: {
      category: p.category ?? 'Cost',
      impact: 'Medium',
      impactedField,
      impactedValue,
      recommendationTypeId: p.typeId,
      shortDescription: { problem: p.problem, solution: p.solution },
      extendedProperties:
        p.annual === undefined ? {} : { annualSavingsAmount: String(p.annual), savingsCurrency: currency },
      resourceMetadata: { resourceId },
    },
    tags: {},
    identity: null,
    zones: null,
    extendedLocation: null,
  };
}

export function advisorRecommendations(
  b: CatalogueBuilder,
  currency: string,
  attachedVm: string,
): SimResource[] {
  const row = (resourceId: string, impactedField: string, impactedValue: string, p: Recommendation) =>
    advisorRow(b, currency, resourceId, impactedField, impactedValue, p);
  const { subscriptionId } = b;
  return [
    // Restates finwatch's UnattachedDisk: merged into that flag, with Advisor's saving.
    row(
      b.idOf('Microsoft.Compute', 'disks', 'disk-cat-unattached'),
      'Microsoft.Compute/disks',
      'disk-cat-unattached',
      {
        typeId: '48eda464-1485-4dcf-a674-d0905df5054a',
        problem: 'Unattached disks are still billed',
        solution: 'Delete or downgrade unattached disks',
        annual: 240,
      },
    ),
    // Nothing in finwatch says this: its own AdvisorCost finding on the VM.
    row(attachedVm, 'Microsoft.Compute/virtualMachines', 'vm-cat-running', {
      typeId: 'e10b1381-5f0a-47ff-8c7b-37bd13d7c974',
      problem: 'Right-size or shutdown underutilized virtual machines',
      solution: 'Right-size or shutdown underutilized virtual machines',
      annual: 600,
    }),
    // About the subscription, which is no resource of the snapshot: a row of its own.
    row(`/subscriptions/${subscriptionId}`, 'Microsoft.Subscriptions/subscriptions', subscriptionId, {
      typeId: ADVISOR_RESERVATION_TYPE,
      problem: 'Consider virtual machine reserved instances to save over your on-demand costs',
      solution: 'Buy virtual machine reserved instances',
      annual: 1200,
    }),
    // Not a cost recommendation: never read.
    row(
      b.idOf('Microsoft.Compute', 'virtualMachines', 'vm-cat-running-2'),
      'Microsoft.Compute/virtualMachines',
      'vm-cat-running-2',
      {
        category: 'HighAvailability',
        typeId: '651c7925-17a3-42e5-85cd-73bd095cf27f',
        problem: 'Enable Backups on your Virtual Machines',
        solution: 'Enable Backups on your Virtual Machines',
      },
    ),
  ];
}
