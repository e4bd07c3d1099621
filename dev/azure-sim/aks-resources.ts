/** The AKS cluster a subscription gets with the `aks` option: its resources and their costs (aks.ts). */
import { instancesAt, poolDayCost, poolDayHours, simAksCluster } from './aks.js';
import type { SimResource } from './resource.js';
import type { SimBilling, SimContainer, SimSubscription } from './subscription.js';

/** Adds the subscription's AKS cluster (aks.ts) to its resources; answers its resource groups. */
export function addAksCluster(sub: SimSubscription, seed: number): SimContainer[] {
  const c = simAksCluster(sub.subscriptionId, seed);
  const push = (
    r: Pick<SimResource, 'id' | 'name' | 'type' | 'resourceGroup' | 'sku' | 'properties' | 'tags'> &
      Partial<Pick<SimResource, 'managedBy'>>,
    billing: SimBilling,
  ) => {
    sub.resources.push({
      tenantId: sub.tenantId,
      kind: '',
      location: c.location,
      subscriptionId: sub.subscriptionId,
      managedBy: '',
      plan: null,
      identity: null,
      zones: null,
      extendedLocation: null,
      ...r,
    });
    sub.billing.push(billing);
  };
  push(
    {
      id: c.id,
      name: c.name,
      type: 'microsoft.containerservice/managedclusters',
      resourceGroup: c.resourceGroup,
      sku: { name: 'Base', tier: 'Standard' },
      tags: {},
      properties: {
        provisioningState: 'Succeeded',
        kubernetesVersion: '1.32.6',
        nodeResourceGroup: c.nodeResourceGroup,
        agentPoolProfiles: c.pools.map((p) => ({
          name: p.name,
          vmSize: p.vmSize,
          count: p.baseInstances,
          mode: p.name === 'system' ? 'System' : 'User',
          enableAutoScaling: p.burst > 0,
          ...(p.burst > 0 ? { minCount: p.baseInstances, maxCount: p.baseInstances + p.burst } : {}),
        })),
      },
    },
    {
      dailyBase: 0,
      serviceName: 'Azure Kubernetes Service',
      resourceType: 'microsoft.containerservice/managedclusters',
      dayCost: () => Math.round(24 * c.tierHourlyRate * 1e6) / 1e6,
      dayQuantity: () => 24,
    },
  );
  const nodeRg = c.nodeResourceGroup.toLowerCase();
  for (const p of c.pools) {
    push(
      {
        id: p.scaleSetId,
        name: p.scaleSetName,
        type: 'microsoft.compute/virtualmachinescalesets',
        resourceGroup: nodeRg,
        sku: { name: p.vmSize, tier: 'Standard', capacity: instancesAt(p, Date.now()) },
        tags: { 'aks-managed-poolName': p.name, 'aks-managed-orchestrator': 'Kubernetes:1.32.6' },
        properties: { provisioningState: 'Succeeded', orchestrationMode: 'Uniform' },
      },
      {
        dailyBase: 0,
        serviceName: 'Virtual Machines',
        resourceType: 'microsoft.compute/virtualmachinescalesets',
        dayCost: (day, type) => poolDayCost(p, day, type),
        dayQuantity: (day) => poolDayHours(p, day),
      },
    );
  }
  const firstPool = c.pools[0]!;
  for (const d of c.disks) {
    const claimed = d.claimName !== null;
    push(
      {
        id: d.id,
        name: d.name,
        type: 'microsoft.compute/disks',
        resourceGroup: nodeRg,
        managedBy: claimed ? `${firstPool.scaleSetId}/virtualMachines/0` : '',
        sku: { name: 'Premium_LRS', tier: 'Premium' },
        tags: claimed
          ? {
              'kubernetes.io-created-for-pvc-namespace': d.claimNamespace ?? '',
              'kubernetes.io-created-for-pvc-name': d.claimName ?? '',
              'kubernetes.io-created-for-pv-name': d.name,
            }
          : { 'kubernetes.io-created-for-pv-name': d.name },
        properties: {
          provisioningState: 'Succeeded',
          diskSizeGB: d.sizeGB,
          diskState: claimed ? 'Attached' : 'Unattached',
          timeCreated: '2026-01-05T10:00:00Z',
          creationData: { createOption: 'Empty' },
        },
      },
      {
        dailyBase: 0,
        serviceName: 'Storage',
        resourceType: 'microsoft.compute/disks',
        dayCost: () => d.dailyCost,
      },
    );
  }
  push(
    {
      id: c.publicIpId,
      name: c.publicIpId.split('/').pop()!,
      type: 'microsoft.network/publicipaddresses',
      resourceGroup: nodeRg,
      sku: { name: 'Standard', tier: 'Regional' },
      tags: {},
      properties: {
        provisioningState: 'Succeeded',
        ipAddress: '20.1.2.3',
        publicIPAllocationMethod: 'Static',
        ipConfiguration: { id: `${c.loadBalancerId}/frontendIPConfigurations/frontend` },
      },
    },
    {
      dailyBase: 0,
      serviceName: 'Virtual Network',
      resourceType: 'microsoft.network/publicipaddresses',
      dayCost: () => c.publicIpDailyCost,
    },
  );
  push(
    {
      id: c.loadBalancerId,
      name: 'kubernetes',
      type: 'microsoft.network/loadbalancers',
      resourceGroup: nodeRg,
      sku: { name: 'Standard', tier: 'Regional' },
      tags: {},
      properties: {
        provisioningState: 'Succeeded',
        frontendIPConfigurations: [
          { name: 'frontend', id: `${c.loadBalancerId}/frontendIPConfigurations/frontend` },
        ],
        backendAddressPools: [
          { name: 'kubernetes', id: `${c.loadBalancerId}/backendAddressPools/kubernetes` },
        ],
      },
    },
    {
      dailyBase: 0,
      serviceName: 'Load Balancer',
      resourceType: 'microsoft.network/loadbalancers',
      dayCost: () => c.loadBalancerDailyCost,
    },
  );
  return [
    { name: c.resourceGroup, tags: {}, managedBy: '' },
    { name: c.nodeResourceGroup, tags: { 'aks-managed-cluster-name': c.name }, managedBy: c.id },
  ];
}
