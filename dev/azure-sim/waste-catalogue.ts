/**
 * A positive and a negative case for every waste rule, in one resource group of their own, so tests
 * through HTTP can show each rule firing on the one and not on the other. Every resource carries the
 * tag `finwatch-case` = `<Code>:positive` or `<Code>:negative:<why>`. Switched on by the simulator's
 * `wasteCatalogue` option (and by `npm start`), off by default so other tests see the plain data.
 */
import type { SimResource } from './resource.js';

export const CATALOGUE_GROUP = 'rg-waste-catalogue';
export const EMPTY_GROUP = 'rg-waste-empty';
export const MANAGED_EMPTY_GROUP = 'MC_rg-aks_aks-01_westeurope';
export const CASE_TAG = 'finwatch-case';

const DAY_MS = 86_400_000;

export interface CatalogueEntry {
  resource: SimResource;
  dailyBase: number;
  serviceName: string;
}

export interface Catalogue {
  resources: CatalogueEntry[];
  /** Resource groups (ResourceContainers rows) the catalogue adds: its own, an empty one, a managed empty one. */
  containers: Array<{ name: string; caseTag: string; managedBy: string }>;
  /** AdvisorResources rows: cost recommendations (and one of another category, to be ignored). */
  advisor: SimResource[];
}

export const ADVISOR_RESERVATION_TYPE = '84b1a508-fc21-49da-979e-96894f1665df';

export function buildWasteCatalogue(
  subscriptionId: string,
  tenantId: string,
  currency: string,
  now: Date,
): Catalogue {
  const rg = `/subscriptions/${subscriptionId}/resourceGroups/${CATALOGUE_GROUP}`;
  const daysAgo = (d: number) => new Date(now.getTime() - d * DAY_MS).toISOString();
  const out: CatalogueEntry[] = [];
  const idOf = (provider: string, type: string, name: string) =>
    `${rg}/providers/${provider}/${type}/${name}`;

  function add(
    caseTag: string,
    provider: string,
    type: string,
    name: string,
    props: Record<string, unknown>,
    money: { dailyBase: number; serviceName: string },
    extra: {
      sku?: Record<string, unknown>;
      kind?: string;
      managedBy?: string;
      tags?: Record<string, string>;
    } = {},
  ): string {
    const id = idOf(provider, type, name);
    out.push({
      resource: {
        id,
        name,
        type: `${provider}/${type}`.toLowerCase(),
        tenantId,
        kind: extra.kind ?? '',
        location: 'westeurope',
        resourceGroup: CATALOGUE_GROUP,
        subscriptionId,
        managedBy: extra.managedBy ?? '',
        sku: extra.sku ?? null,
        plan: null,
        properties: { provisioningState: 'Succeeded', ...props },
        tags: { [CASE_TAG]: caseTag, ...(extra.tags ?? {}) },
        identity: null,
        zones: null,
        extendedLocation: null,
      },
      ...money,
    });
    return id;
  }

  const compute = (d: number) => ({ dailyBase: d, serviceName: 'Virtual Machines' });
  const storage = (d: number) => ({ dailyBase: d, serviceName: 'Storage' });
  const network = (d: number) => ({ dailyBase: d, serviceName: 'Virtual Network' });
  const free = { dailyBase: 0, serviceName: 'Virtual Network' };

  const vm = (
    caseTag: string,
    name: string,
    opts: { power?: string; os?: 'Linux' | 'Windows'; licenseType?: string; vhd?: boolean } = {},
    daily = 3,
  ) =>
    add(
      caseTag,
      'Microsoft.Compute',
      'virtualMachines',
      name,
      {
        hardwareProfile: { vmSize: 'Standard_D2s_v5' },
        ...(opts.licenseType ? { licenseType: opts.licenseType } : {}),
        storageProfile: {
          osDisk: {
            osType: opts.os ?? 'Linux',
            name: `${name}_OsDisk`,
            ...(opts.vhd
              ? { vhd: { uri: `https://stcatalogue.blob.core.windows.net/vhds/${name}.vhd` } }
              : { managedDisk: { id: idOf('Microsoft.Compute', 'disks', `${name}_OsDisk`) } }),
          },
          dataDisks: [],
        },
        timeCreated: daysAgo(200),
        extended: { instanceView: { powerState: { code: `PowerState/${opts.power ?? 'running'}` } } },
      },
      compute(daily),
    );

  // Disks
  const attachedVm = vm('VmStoppedNotDeallocated:negative:running', 'vm-cat-running');
  const disk = (caseTag: string, name: string, attached: boolean, tags: Record<string, string> = {}) =>
    add(
      caseTag,
      'Microsoft.Compute',
      'disks',
      name,
      {
        diskSizeGB: 128,
        diskState: attached ? 'Attached' : 'Unattached',
        timeCreated: daysAgo(120),
        // When the disk was last attached or detached (Resource Graph's casing).
        LastOwnershipUpdateTime: daysAgo(attached ? 100 : 45),
      },
      storage(1.5),
      { sku: { name: 'Premium_LRS', tier: 'Premium' }, ...(attached ? { managedBy: attachedVm } : {}), tags },
    );
  disk('UnattachedDisk:positive', 'disk-cat-unattached', false);
  const liveDisk = disk('UnattachedDisk:negative:attached', 'disk-cat-attached', true);
  disk('UnattachedDisk:negative:azure-backup', 'disk-cat-backup', false, {
    RSVaultBackup: '7f1e2d3c-backup-job',
  });

  // Public IPs
  const pip = (caseTag: string, name: string, props: Record<string, unknown>, skuName = 'Standard') =>
    add(
      caseTag,
      'Microsoft.Network',
      'publicIPAddresses',
      name,
      { publicIPAllocationMethod: 'Static', ...props },
      network(0.12),
      {
        sku: { name: skuName, tier: 'Regional' },
      },
    );
  const nicIpConfig = {
    id: `${idOf('Microsoft.Network', 'networkInterfaces', 'nic-cat-attached')}/ipConfigurations/ipconfig1`,
  };
  pip('UnassociatedPublicIp:positive', 'pip-cat-unassociated', {});
  pip('UnassociatedPublicIp:negative:from-prefix', 'pip-cat-prefix', {
    publicIPPrefix: { id: idOf('Microsoft.Network', 'publicIPPrefixes', 'ippre-cat') },
  });
  pip('BasicSkuPublicIp:positive', 'pip-cat-basic', { ipConfiguration: nicIpConfig }, 'Basic');
  pip('BasicSkuPublicIp:negative:standard', 'pip-cat-standard', { ipConfiguration: nicIpConfig });

  // VMs
  vm('VmStoppedNotDeallocated:positive', 'vm-cat-stopped', { power: 'stopped' });
  vm('VmDeallocated:positive', 'vm-cat-deallocated', { power: 'deallocated' }, 0.2);
  vm('VmDeallocated:negative:running', 'vm-cat-running-2');
  vm('VmUnmanagedDisks:positive', 'vm-cat-vhd', { vhd: true });
  vm('VmUnmanagedDisks:negative:managed', 'vm-cat-managed');
  const windowsVm = vm('WindowsVmWithoutHybridBenefit:positive', 'vm-cat-windows', { os: 'Windows' }, 5);
  vm('WindowsVmWithoutHybridBenefit:negative:licensed', 'vm-cat-windows-ahb', {
    os: 'Windows',
    licenseType: 'Windows_Server',
  });

  // SQL VMs: the positive extends the Windows VM above, so its saving follows that VM's cost.
  const sqlVm = (caseTag: string, name: string, license: string) =>
    add(
      caseTag,
      'Microsoft.SqlVirtualMachine',
      'sqlVirtualMachines',
      name,
      { virtualMachineResourceId: windowsVm, sqlServerLicenseType: license, sqlImageSku: 'Enterprise' },
      { dailyBase: 0, serviceName: 'SQL Server on Azure Virtual Machines' },
    );
  sqlVm('SqlVmWithoutHybridBenefit:positive', 'sqlvm-cat-payg', 'PAYG');
  sqlVm('SqlVmWithoutHybridBenefit:negative:ahub', 'sqlvm-cat-ahub', 'AHUB');

  // App Service
  const plan = (caseTag: string, name: string, tier: string, sites: number) =>
    add(
      caseTag,
      'Microsoft.Web',
      'serverfarms',
      name,
      { numberOfSites: sites },
      {
        dailyBase: 2.4,
        serviceName: 'Azure App Service',
      },
      { sku: { name: tier === 'Free' ? 'F1' : 'S1', tier } },
    );
  plan('EmptyAppServicePlan:positive', 'plan-cat-empty', 'Standard', 0);
  plan('EmptyAppServicePlan:negative:free-tier', 'plan-cat-free', 'Free', 0);
  const cert = (caseTag: string, name: string, expiresInDays: number) =>
    add(
      caseTag,
      'Microsoft.Web',
      'certificates',
      name,
      {
        subjectName: `${name}.contoso.example`,
        expirationDate: new Date(now.getTime() + expiresInDays * DAY_MS).toISOString(),
      },
      { dailyBase: 0.2, serviceName: 'Azure App Service' },
    );
  cert('ExpiredAppServiceCertificate:positive', 'cert-cat-expired', -10);
  cert('ExpiredAppServiceCertificate:negative:valid', 'cert-cat-valid', 200);

  // Snapshots
  const snap = (caseTag: string, name: string, ageDays: number, source: string, skuName = 'Standard_LRS') =>
    add(
      caseTag,
      'Microsoft.Compute',
      'snapshots',
      name,
      {
        diskSizeGB: 128,
        timeCreated: daysAgo(ageDays),
        creationData: { createOption: 'Copy', sourceResourceId: source },
      },
      storage(0.8),
      { sku: { name: skuName, tier: skuName.startsWith('Premium') ? 'Premium' : 'Standard' } },
    );
  snap('OldSnapshot:positive', 'snap-cat-old', 60, liveDisk);
  snap('OldSnapshot:negative:recent', 'snap-cat-recent', 5, liveDisk);
  snap(
    'SnapshotSourceDiskGone:positive',
    'snap-cat-orphan',
    5,
    idOf('Microsoft.Compute', 'disks', 'disk-cat-deleted'),
  );
  snap('SnapshotSourceDiskGone:negative:source-exists', 'snap-cat-sourced', 5, liveDisk);
  snap('PremiumSnapshot:positive', 'snap-cat-premium', 5, liveDisk, 'Premium_LRS');
  snap('PremiumSnapshot:negative:standard', 'snap-cat-standard', 5, liveDisk);

  // NICs
  add(
    'OrphanedNic:positive',
    'Microsoft.Network',
    'networkInterfaces',
    'nic-cat-orphan',
    { ipConfigurations: [] },
    free,
  );
  add(
    'OrphanedNic:negative:private-endpoint',
    'Microsoft.Network',
    'networkInterfaces',
    'nic-cat-pe',
    {
      privateEndpoint: { id: idOf('Microsoft.Network', 'privateEndpoints', 'pe-cat-approved') },
    },
    free,
  );
  add(
    'OrphanedNic:negative:attached',
    'Microsoft.Network',
    'networkInterfaces',
    'nic-cat-attached',
    {
      virtualMachine: { id: attachedVm },
    },
    free,
  );

  // Load balancers
  const lb = (caseTag: string, name: string, skuName: string, props: Record<string, unknown>) =>
    add(
      caseTag,
      'Microsoft.Network',
      'loadBalancers',
      name,
      props,
      { dailyBase: 0.6, serviceName: 'Load Balancer' },
      {
        sku: { name: skuName, tier: 'Regional' },
      },
    );
  const pools = { backendAddressPools: [{ name: 'backend', id: 'x' }] };
  lb('LoadBalancerWithoutBackends:positive', 'lb-cat-empty', 'Standard', { backendAddressPools: [] });
  lb('LoadBalancerWithoutBackends:negative:inbound-nat', 'lb-cat-nat', 'Standard', {
    backendAddressPools: [],
    inboundNatRules: [{ name: 'rdp', properties: { frontendPort: 50001 } }],
  });
  lb('BasicSkuLoadBalancer:positive', 'lb-cat-basic', 'Basic', pools);
  lb('BasicSkuLoadBalancer:negative:standard', 'lb-cat-standard', 'Standard', pools);

  // Registry and Redis
  add(
    'RegistryAdminUserEnabled:positive',
    'Microsoft.ContainerRegistry',
    'registries',
    'acrcatadmin',
    { adminUserEnabled: true },
    {
      dailyBase: 0.67,
      serviceName: 'Container Registry',
    },
    { sku: { name: 'Standard', tier: 'Standard' } },
  );
  add(
    'RegistryAdminUserEnabled:negative:disabled',
    'Microsoft.ContainerRegistry',
    'registries',
    'acrcatnoadmin',
    {
      adminUserEnabled: false,
    },
    { dailyBase: 0.67, serviceName: 'Container Registry' },
    { sku: { name: 'Standard', tier: 'Standard' } },
  );
  add(
    'RedisNonSslPort:positive',
    'Microsoft.Cache',
    'Redis',
    'redis-cat-plain',
    { enableNonSslPort: true },
    {
      dailyBase: 2,
      serviceName: 'Redis Cache',
    },
  );
  add(
    'RedisNonSslPort:negative:tls-only',
    'Microsoft.Cache',
    'Redis',
    'redis-cat-tls',
    { enableNonSslPort: false },
    {
      dailyBase: 2,
      serviceName: 'Redis Cache',
    },
  );

  // Network: gateways, plans, groups, tables, zones, endpoints
  add(
    'AppGatewayWithoutBackends:positive',
    'Microsoft.Network',
    'applicationGateways',
    'agw-cat-empty',
    {
      backendAddressPools: [{ name: 'pool', properties: { backendAddresses: [] } }],
    },
    { dailyBase: 6, serviceName: 'Application Gateway' },
  );
  add(
    'AppGatewayWithoutBackends:negative:has-targets',
    'Microsoft.Network',
    'applicationGateways',
    'agw-cat-used',
    {
      backendAddressPools: [{ name: 'pool', properties: { backendAddresses: [{ ipAddress: '10.0.1.4' }] } }],
    },
    { dailyBase: 6, serviceName: 'Application Gateway' },
  );
  add(
    'NatGatewayWithoutSubnet:positive',
    'Microsoft.Network',
    'natGateways',
    'ng-cat-idle',
    {},
    network(1.1),
  );
  add(
    'NatGatewayWithoutSubnet:negative:attached',
    'Microsoft.Network',
    'natGateways',
    'ng-cat-used',
    {
      subnets: [{ id: `${idOf('Microsoft.Network', 'virtualNetworks', 'vnet-cat-used')}/subnets/app` }],
    },
    network(1.1),
  );
  const gw = (caseTag: string, name: string, props: Record<string, unknown> = {}) =>
    add(
      caseTag,
      'Microsoft.Network',
      'virtualNetworkGateways',
      name,
      { gatewayType: 'Vpn', ...props },
      {
        dailyBase: 4.5,
        serviceName: 'VPN Gateway',
      },
    );
  gw('VnetGatewayWithoutConnections:positive', 'vgw-cat-idle');
  const connectedGw = gw('VnetGatewayWithoutConnections:negative:connected', 'vgw-cat-connected');
  gw('VnetGatewayWithoutConnections:negative:point-to-site', 'vgw-cat-p2s', {
    vpnClientConfiguration: { vpnClientAddressPool: { addressPrefixes: ['172.16.0.0/24'] } },
  });
  add(
    'connection',
    'Microsoft.Network',
    'connections',
    'cn-cat-site',
    {
      connectionType: 'IPsec',
      virtualNetworkGateway1: { id: connectedGw },
    },
    free,
  );
  add(
    'DdosPlanWithoutVnet:positive',
    'Microsoft.Network',
    'ddosProtectionPlans',
    'ddos-cat-idle',
    {},
    {
      dailyBase: 95,
      serviceName: 'DDoS Protection',
    },
  );
  add(
    'DdosPlanWithoutVnet:negative:protects',
    'Microsoft.Network',
    'ddosProtectionPlans',
    'ddos-cat-used',
    {
      virtualNetworks: [{ id: idOf('Microsoft.Network', 'virtualNetworks', 'vnet-cat-used') }],
    },
    { dailyBase: 95, serviceName: 'DDoS Protection' },
  );
  add(
    'EmptyNetworkSecurityGroup:positive',
    'Microsoft.Network',
    'networkSecurityGroups',
    'nsg-cat-idle',
    {
      securityRules: [],
    },
    free,
  );
  add(
    'EmptyNetworkSecurityGroup:negative:on-subnet',
    'Microsoft.Network',
    'networkSecurityGroups',
    'nsg-cat-used',
    {
      subnets: [{ id: `${idOf('Microsoft.Network', 'virtualNetworks', 'vnet-cat-used')}/subnets/app` }],
    },
    free,
  );
  add(
    'RouteTableWithoutSubnet:positive',
    'Microsoft.Network',
    'routeTables',
    'rt-cat-idle',
    { routes: [] },
    free,
  );
  add(
    'RouteTableWithoutSubnet:negative:on-subnet',
    'Microsoft.Network',
    'routeTables',
    'rt-cat-used',
    {
      subnets: [{ id: `${idOf('Microsoft.Network', 'virtualNetworks', 'vnet-cat-used')}/subnets/app` }],
    },
    free,
  );
  const avset = (caseTag: string, name: string, vms: unknown[]) =>
    add(caseTag, 'Microsoft.Compute', 'availabilitySets', name, { virtualMachines: vms }, free, {
      sku: { name: 'Aligned' },
    });
  avset('EmptyAvailabilitySet:positive', 'avset-cat-empty', []);
  avset('EmptyAvailabilitySet:negative:has-vm', 'avset-cat-used', [{ id: attachedVm }]);
  avset('EmptyAvailabilitySet:negative:site-recovery', 'avset-cat-asr', []);
  const subnet = (name: string, used: boolean) => ({
    name,
    properties: {
      addressPrefix: '10.0.1.0/24',
      ...(used ? { ipConfigurations: [{ id: `${nicIpConfig.id}` }] } : {}),
    },
  });
  const vnet = (caseTag: string, name: string, subnets: unknown[]) =>
    add(
      caseTag,
      'Microsoft.Network',
      'virtualNetworks',
      name,
      { addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, subnets },
      free,
    );
  vnet('EmptyVirtualNetwork:positive', 'vnet-cat-empty', []);
  vnet('EmptyVirtualNetwork:negative:has-subnets', 'vnet-cat-used', [subnet('app', true)]);
  vnet('SubnetsWithoutDevices:positive', 'vnet-cat-idle-subnet', [
    subnet('app', true),
    subnet('idle', false),
  ]);
  vnet('SubnetsWithoutDevices:negative:gateway-subnet', 'vnet-cat-gateway', [
    subnet('app', true),
    subnet('GatewaySubnet', false),
  ]);
  const zone = (caseTag: string, name: string, links: number) =>
    add(
      caseTag,
      'Microsoft.Network',
      'privateDnsZones',
      name,
      { numberOfVirtualNetworkLinks: links, numberOfRecordSets: 3 },
      {
        dailyBase: 0.017,
        serviceName: 'Azure DNS',
      },
    );
  zone('PrivateDnsZoneWithoutVnetLink:positive', 'privatelink.cat-unlinked.example', 0);
  zone('PrivateDnsZoneWithoutVnetLink:negative:linked', 'privatelink.cat-linked.example', 1);
  const pe = (caseTag: string, name: string, status: string) =>
    add(
      caseTag,
      'Microsoft.Network',
      'privateEndpoints',
      name,
      {
        privateLinkServiceConnections: [
          { name: 'plsc', properties: { privateLinkServiceConnectionState: { status, description: '' } } },
        ],
      },
      network(0.24),
    );
  pe('DisconnectedPrivateEndpoint:positive', 'pe-cat-disconnected', 'Disconnected');
  pe('DisconnectedPrivateEndpoint:negative:approved', 'pe-cat-approved', 'Approved');

  // SQL elastic pools
  const server = 'sql-cat';
  const pool = (caseTag: string, name: string) => {
    const id = `${rg}/providers/Microsoft.Sql/servers/${server}/elasticPools/${name}`;
    out.push({
      resource: {
        id,
        name: `${server}/${name}`,
        type: 'microsoft.sql/servers/elasticpools',
        tenantId,
        kind: 'pool',
        location: 'westeurope',
        resourceGroup: CATALOGUE_GROUP,
        subscriptionId,
        managedBy: '',
        sku: { name: 'StandardPool', tier: 'Standard', capacity: 50 },
        plan: null,
        properties: { state: 'Ready' },
        tags: { [CASE_TAG]: caseTag },
        identity: null,
        zones: null,
        extendedLocation: null,
      },
      dailyBase: 3.6,
      serviceName: 'SQL Database',
    });
    return id;
  };
  pool('EmptySqlElasticPool:positive', 'pool-cat-empty');
  const usedPool = pool('EmptySqlElasticPool:negative:has-database', 'pool-cat-used');
  out.push({
    resource: {
      id: `${rg}/providers/Microsoft.Sql/servers/${server}/databases/db-cat`,
      name: `${server}/db-cat`,
      type: 'microsoft.sql/servers/databases',
      tenantId,
      kind: 'v12.0,user,pool',
      location: 'westeurope',
      resourceGroup: CATALOGUE_GROUP,
      subscriptionId,
      managedBy: '',
      sku: { name: 'ElasticPool', tier: 'Standard' },
      plan: null,
      properties: { status: 'Online', elasticPoolId: usedPool },
      tags: { [CASE_TAG]: 'database' },
      identity: null,
      zones: null,
      extendedLocation: null,
    },
    dailyBase: 0,
    serviceName: 'SQL Database',
  });

  // Storage accounts
  const st = (caseTag: string, name: string, kind: string) =>
    add(
      caseTag,
      'Microsoft.Storage',
      'storageAccounts',
      name,
      { supportsHttpsTrafficOnly: true },
      storage(0.5),
      {
        kind,
        sku: { name: 'Standard_LRS', tier: 'Standard' },
      },
    );
  st('StorageAccountV1:positive', 'stcatv1', 'Storage');
  st('StorageAccountV1:negative:v2', 'stcatv2', 'StorageV2');

  const advisorRow = (
    resourceId: string,
    impactedField: string,
    impactedValue: string,
    p: { category?: string; typeId: string; problem: string; solution: string; annual?: number },
  ): SimResource => {
    const name = `${p.typeId.slice(0, 8)}-${impactedValue.slice(-8)}`.toLowerCase();
    const group = /\/resourceGroups\/([^/]+)/i.exec(resourceId)?.[1] ?? '';
    return {
      id: `${resourceId}/providers/Microsoft.Advisor/recommendations/${name}`,
      name,
      type: 'microsoft.advisor/recommendations',
      tenantId,
      kind: '',
      location: '',
      resourceGroup: group.toLowerCase(),
      subscriptionId,
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
  };
  const advisor = [
    // Restates finwatch's UnattachedDisk: merged into that flag, with Advisor's saving.
    advisorRow(
      idOf('Microsoft.Compute', 'disks', 'disk-cat-unattached'),
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
    advisorRow(attachedVm, 'Microsoft.Compute/virtualMachines', 'vm-cat-running', {
      typeId: 'e10b1381-5f0a-47ff-8c7b-37bd13d7c974',
      problem: 'Right-size or shutdown underutilized virtual machines',
      solution: 'Right-size or shutdown underutilized virtual machines',
      annual: 600,
    }),
    // About the subscription, which is no resource of the snapshot: a row of its own.
    advisorRow(`/subscriptions/${subscriptionId}`, 'Microsoft.Subscriptions/subscriptions', subscriptionId, {
      typeId: ADVISOR_RESERVATION_TYPE,
      problem: 'Consider virtual machine reserved instances to save over your on-demand costs',
      solution: 'Buy virtual machine reserved instances',
      annual: 1200,
    }),
    // Not a cost recommendation: never read.
    advisorRow(
      idOf('Microsoft.Compute', 'virtualMachines', 'vm-cat-running-2'),
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

  return {
    advisor,
    resources: out,
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
