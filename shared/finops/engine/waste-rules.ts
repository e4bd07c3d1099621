/**
 * The waste and risk rules over a Resource Graph snapshot. docs/waste-rules.md documents each one:
 * its condition, what it needs, its threshold, its saving estimate and its source.
 */
import type { AzureResource } from '../azure/index.js';
import { type Inventory, RESOURCE_GROUP_TYPE } from './inventory.js';
import { asArray, daysSince, get, isEmpty, lower } from './resource-fields.js';

export type FlagCode =
  | 'UnattachedDisk'
  | 'UnassociatedPublicIp'
  | 'VmStoppedNotDeallocated'
  | 'VmDeallocated'
  | 'EmptyAppServicePlan'
  | 'OldSnapshot'
  | 'OrphanedNic'
  | 'LoadBalancerWithoutBackends'
  | 'RegistryAdminUserEnabled'
  | 'RedisNonSslPort'
  | 'AppGatewayWithoutBackends'
  | 'NatGatewayWithoutSubnet'
  | 'VnetGatewayWithoutConnections'
  | 'DdosPlanWithoutVnet'
  | 'EmptyNetworkSecurityGroup'
  | 'RouteTableWithoutSubnet'
  | 'EmptyAvailabilitySet'
  | 'EmptyVirtualNetwork'
  | 'SubnetsWithoutDevices'
  | 'PrivateDnsZoneWithoutVnetLink'
  | 'DisconnectedPrivateEndpoint'
  | 'EmptySqlElasticPool'
  | 'SnapshotSourceDiskGone'
  | 'PremiumSnapshot'
  | 'BasicSkuPublicIp'
  | 'BasicSkuLoadBalancer'
  | 'StorageAccountV1'
  | 'VmUnmanagedDisks'
  | 'WindowsVmWithoutHybridBenefit'
  | 'SqlVmWithoutHybridBenefit'
  | 'ExpiredAppServiceCertificate'
  | 'EmptyResourceGroup'
  /** An Azure Advisor cost recommendation no finwatch rule restates (advisor-merge.ts). */
  | 'AdvisorCost';

/** waste: money spent on nothing; security: a risk, no saving; modernize: retired or legacy setup. */
export type FlagCategory = 'waste' | 'security' | 'modernize';

/**
 * How a flag's monthly saving is estimated from the resource's cost of the period:
 * runRate: acting removes the whole charge (delete, deallocate), so the saving is the monthly
 * run-rate of that cost; fraction: a share of the run-rate (of the resource, or of the VM it
 * extends); none: no money (security, retirement, free resources are still run-rate 0).
 */
export type SavingModel =
  | { kind: 'runRate' }
  | { kind: 'fraction'; fraction: number; of?: 'self' | 'linkedVm' }
  | { kind: 'none' };

export interface RuleContext {
  now: Date;
  /** The snapshot-wide facts; rules that need them do not fire without them. */
  inventory?: Inventory | undefined;
}

export interface Rule {
  code: FlagCode;
  type: string;
  category: FlagCategory;
  saving: SavingModel;
  /** Waste only once the flag is this old (a setting; see flag-age.ts); younger ones are "watch". */
  ageGated?: 'unattachedDisk' | 'deallocatedVm';
  applies(r: AzureResource, ctx: RuleContext): boolean;
  message(r: AzureResource, ctx: RuleContext): string;
}

export const SNAPSHOT_MAX_AGE_DAYS = 30;

const RUN_RATE: SavingModel = { kind: 'runRate' };
const NONE: SavingModel = { kind: 'none' };

/**
 * Standard snapshots cost about 40 % of premium ones per GiB (list prices: 0.05 vs 0.132 USD per
 * GiB-month, LRS), so moving one saves about 60 % of its cost.
 */
export const PREMIUM_SNAPSHOT_SAVING = 0.6;
/** The Windows Server licence is about 40 % of a pay-as-you-go Windows VM's compute price. */
export const WINDOWS_AHB_SAVING = 0.4;
/** The SQL Server licence is about half of a pay-as-you-go SQL VM's price (Standard edition). */
export const SQL_AHB_SAVING = 0.5;

function powerState(r: AzureResource): string {
  return lower(get(r.properties, 'extended', 'instanceView', 'powerState', 'code'));
}

const tagText = (r: AzureResource) => Object.entries(r.tags).map(([k, v]) => `${k}=${v}`.toLowerCase());

/**
 * Disks managed by another service are not orphans: ASR replica and seed disks, AKS persistent-volume
 * disks, and disks Azure Backup tags with RSVaultBackup while it restores or snapshots them.
 */
function isServiceManagedDisk(r: AzureResource): boolean {
  const name = r.name.toLowerCase();
  const tagKeys = Object.keys(r.tags).map((k) => k.toLowerCase());
  return (
    name.includes('asrreplica') ||
    name.includes('asrseed') ||
    tagKeys.some(
      (k) => k.startsWith('asr') || k.includes('created-for-pvc') || k.startsWith('kubernetes.io'),
    ) ||
    tagText(r).some((t) => t.includes('rsvaultbackup'))
  );
}

function ageDays(r: AzureResource, now: Date): number | undefined {
  return daysSince(get(r.properties, 'timeCreated'), now);
}

const isBasic = (r: AzureResource) => lower(get(r.sku, 'name')) === 'basic';

/** Subnets that Azure reserves for its own gateways and firewalls are empty by design. */
const RESERVED_SUBNETS = new Set([
  'gatewaysubnet',
  'azurefirewallsubnet',
  'azurefirewallmanagementsubnet',
  'azurebastionsubnet',
  'routeserversubnet',
]);

function idleSubnets(r: AzureResource): string[] {
  return asArray(get(r.properties, 'subnets'))
    .filter((s) => {
      const name = lower(get(s, 'name'));
      const p = get(s, 'properties');
      return (
        !RESERVED_SUBNETS.has(name) &&
        isEmpty(get(p, 'ipConfigurations')) &&
        isEmpty(get(p, 'delegations')) &&
        isEmpty(get(p, 'serviceAssociationLinks')) &&
        isEmpty(get(p, 'privateEndpoints'))
      );
    })
    .map((s) => String(get(s, 'name') ?? ''));
}

function osType(r: AzureResource): string {
  return lower(get(r.properties, 'storageProfile', 'osDisk', 'osType'));
}

function hasUnmanagedDisk(r: AzureResource): boolean {
  const os = get(r.properties, 'storageProfile', 'osDisk');
  const data = asArray(get(r.properties, 'storageProfile', 'dataDisks'));
  return [os, ...data].some((d) => d !== undefined && !isEmpty(get(d, 'vhd')));
}

/** Subscription id of a resource id, lower case. */
const subscriptionOf = (id: string) => /^\/subscriptions\/([^/]+)\//i.exec(id)?.[1]?.toLowerCase();

function snapshotSourceGone(r: AzureResource, inv: Inventory): boolean {
  const source = lower(get(r.properties, 'creationData', 'sourceResourceId'));
  // Only a disk of this subscription can be known to be gone; others are outside the snapshot.
  if (!source.includes('/providers/microsoft.compute/disks/')) return false;
  if (subscriptionOf(source) !== subscriptionOf(r.id)) return false;
  return !inv.ids.has(source);
}

const privateEndpointConnections = (r: AzureResource) => [
  ...asArray(get(r.properties, 'privateLinkServiceConnections')),
  ...asArray(get(r.properties, 'manualPrivateLinkServiceConnections')),
];

export const RULES: readonly Rule[] = [
  {
    code: 'UnattachedDisk',
    type: 'microsoft.compute/disks',
    category: 'waste',
    saving: RUN_RATE,
    ageGated: 'unattachedDisk',
    applies: (r) =>
      !r.managedBy &&
      !['activesas', 'attached', 'reserved'].includes(lower(get(r.properties, 'diskState'))) &&
      !isServiceManagedDisk(r),
    message: () =>
      'Managed disk is not attached to any VM but is still billed. Snapshot and delete it if unused.',
  },
  {
    code: 'UnassociatedPublicIp',
    type: 'microsoft.network/publicipaddresses',
    category: 'waste',
    saving: RUN_RATE,
    // An address allocated from a public IP prefix is paid for by the prefix: deleting it saves nothing.
    applies: (r) =>
      isEmpty(get(r.properties, 'ipConfiguration')) &&
      isEmpty(get(r.properties, 'natGateway')) &&
      isEmpty(get(r.properties, 'publicIPPrefix')),
    message: () => 'Public IP address is not associated with any resource. Release it if unused.',
  },
  {
    code: 'VmStoppedNotDeallocated',
    type: 'microsoft.compute/virtualmachines',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) => powerState(r) === 'powerstate/stopped',
    message: () => 'VM is stopped but not deallocated, so its compute is still billed. Deallocate it.',
  },
  {
    code: 'VmDeallocated',
    type: 'microsoft.compute/virtualmachines',
    category: 'waste',
    saving: RUN_RATE,
    ageGated: 'deallocatedVm',
    applies: (r) => powerState(r) === 'powerstate/deallocated',
    message: () =>
      'VM is deallocated. Its disks and IPs are still billed. Delete it if it is no longer needed.',
  },
  {
    code: 'EmptyAppServicePlan',
    type: 'microsoft.web/serverfarms',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) => {
      const sites = Number(get(r.properties, 'numberOfSites'));
      const tier = lower(get(r.sku, 'tier'));
      return sites === 0 && tier !== 'free' && tier !== 'dynamic';
    },
    message: () =>
      'App Service plan hosts no apps but is billed for its instances. Delete or consolidate it.',
  },
  {
    code: 'OldSnapshot',
    type: 'microsoft.compute/snapshots',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r, { now }) => (ageDays(r, now) ?? 0) > SNAPSHOT_MAX_AGE_DAYS,
    message: (r, { now }) =>
      `Snapshot is ${Math.floor(ageDays(r, now) ?? 0)} days old (more than ${SNAPSHOT_MAX_AGE_DAYS}). Review its retention.`,
  },
  {
    code: 'OrphanedNic',
    type: 'microsoft.network/networkinterfaces',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) =>
      isEmpty(get(r.properties, 'virtualMachine')) && isEmpty(get(r.properties, 'privateEndpoint')),
    message: () => 'Network interface is attached to no VM and no private endpoint. Delete it if unused.',
  },
  {
    code: 'LoadBalancerWithoutBackends',
    type: 'microsoft.network/loadbalancers',
    category: 'waste',
    saving: RUN_RATE,
    // Inbound NAT rules can forward to VMs without a backend pool: such a balancer is in use.
    applies: (r) =>
      isEmpty(get(r.properties, 'backendAddressPools')) &&
      isEmpty(get(r.properties, 'inboundNatRules')) &&
      !isBasic(r),
    message: () => 'Load balancer has no backend pools but is billed. Delete it if unused.',
  },
  {
    code: 'RegistryAdminUserEnabled',
    type: 'microsoft.containerregistry/registries',
    category: 'security',
    saving: NONE,
    applies: (r) => get(r.properties, 'adminUserEnabled') === true,
    message: () =>
      'Container registry has the admin user enabled. Use Entra ID identities or tokens instead.',
  },
  {
    code: 'RedisNonSslPort',
    type: 'microsoft.cache/redis',
    category: 'security',
    saving: NONE,
    applies: (r) => get(r.properties, 'enableNonSslPort') === true,
    message: () => 'Azure Cache for Redis has the non-TLS port (6379) enabled. Disable it.',
  },
  {
    code: 'AppGatewayWithoutBackends',
    type: 'microsoft.network/applicationgateways',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) =>
      asArray(get(r.properties, 'backendAddressPools')).every(
        (p) =>
          isEmpty(get(p, 'properties', 'backendIPConfigurations')) &&
          isEmpty(get(p, 'properties', 'backendAddresses')),
      ),
    message: () =>
      'Application gateway has no backend targets in any pool but is billed. Delete it if unused.',
  },
  {
    code: 'NatGatewayWithoutSubnet',
    type: 'microsoft.network/natgateways',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) => isEmpty(get(r.properties, 'subnets')),
    message: () => 'NAT gateway is attached to no subnet but is billed hourly. Delete it if unused.',
  },
  {
    code: 'VnetGatewayWithoutConnections',
    type: 'microsoft.network/virtualnetworkgateways',
    category: 'waste',
    saving: RUN_RATE,
    // Point-to-site gateways serve clients without connection resources.
    applies: (r, { inventory }) =>
      inventory !== undefined &&
      !inventory.gatewaysWithConnections.has(r.id.toLowerCase()) &&
      isEmpty(get(r.properties, 'vpnClientConfiguration')),
    message: () =>
      'Virtual network gateway has no connections and no point-to-site configuration but is billed hourly. Delete it if unused.',
  },
  {
    code: 'DdosPlanWithoutVnet',
    type: 'microsoft.network/ddosprotectionplans',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) => isEmpty(get(r.properties, 'virtualNetworks')),
    message: () =>
      'DDoS protection plan protects no virtual network but is billed monthly. Delete it if unused.',
  },
  {
    code: 'EmptyNetworkSecurityGroup',
    type: 'microsoft.network/networksecuritygroups',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) => isEmpty(get(r.properties, 'networkInterfaces')) && isEmpty(get(r.properties, 'subnets')),
    message: () => 'Network security group is associated with no subnet and no NIC. Delete it if unused.',
  },
  {
    code: 'RouteTableWithoutSubnet',
    type: 'microsoft.network/routetables',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) => isEmpty(get(r.properties, 'subnets')),
    message: () => 'Route table is associated with no subnet. Delete it if unused.',
  },
  {
    code: 'EmptyAvailabilitySet',
    type: 'microsoft.compute/availabilitysets',
    category: 'waste',
    saving: RUN_RATE,
    // Site Recovery creates "-asr" availability sets ahead of a failover.
    applies: (r) => isEmpty(get(r.properties, 'virtualMachines')) && !r.name.toLowerCase().endsWith('-asr'),
    message: () => 'Availability set holds no VM. Delete it if unused.',
  },
  {
    code: 'EmptyVirtualNetwork',
    type: 'microsoft.network/virtualnetworks',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) => isEmpty(get(r.properties, 'subnets')),
    message: () => 'Virtual network has no subnet. Delete it if unused.',
  },
  {
    code: 'SubnetsWithoutDevices',
    type: 'microsoft.network/virtualnetworks',
    category: 'waste',
    saving: NONE,
    applies: (r) => idleSubnets(r).length > 0,
    message: (r) =>
      `Subnet(s) ${idleSubnets(r).join(', ')} hold no device, delegation or private endpoint. Remove them to free the address space.`,
  },
  {
    code: 'PrivateDnsZoneWithoutVnetLink',
    type: 'microsoft.network/privatednszones',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) => Number(get(r.properties, 'numberOfVirtualNetworkLinks') ?? 0) === 0,
    message: () =>
      'Private DNS zone is linked to no virtual network, so nothing resolves it. Delete it if unused.',
  },
  {
    code: 'DisconnectedPrivateEndpoint',
    type: 'microsoft.network/privateendpoints',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r) =>
      privateEndpointConnections(r).some(
        (c) => lower(get(c, 'properties', 'privateLinkServiceConnectionState', 'status')) === 'disconnected',
      ),
    message: () => 'Private endpoint is disconnected from its service but still billed. Delete it if unused.',
  },
  {
    code: 'EmptySqlElasticPool',
    type: 'microsoft.sql/servers/elasticpools',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r, { inventory }) =>
      inventory !== undefined && !inventory.poolsWithDatabases.has(r.id.toLowerCase()),
    message: () => 'SQL elastic pool holds no database but is billed for its capacity. Delete it if unused.',
  },
  {
    code: 'SnapshotSourceDiskGone',
    type: 'microsoft.compute/snapshots',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r, { inventory }) => inventory !== undefined && snapshotSourceGone(r, inventory),
    message: () => 'Snapshot of a disk that no longer exists. Keep it only if it is a deliberate backup.',
  },
  {
    code: 'PremiumSnapshot',
    type: 'microsoft.compute/snapshots',
    category: 'waste',
    saving: { kind: 'fraction', fraction: PREMIUM_SNAPSHOT_SAVING },
    applies: (r) => lower(get(r.sku, 'name')).startsWith('premium'),
    message: () => 'Snapshot is on premium storage. Standard storage costs less than half as much.',
  },
  {
    code: 'BasicSkuPublicIp',
    type: 'microsoft.network/publicipaddresses',
    category: 'modernize',
    saving: NONE,
    applies: isBasic,
    message: () => 'Basic SKU public IP addresses were retired on 30 September 2025. Upgrade to Standard.',
  },
  {
    code: 'BasicSkuLoadBalancer',
    type: 'microsoft.network/loadbalancers',
    category: 'modernize',
    saving: NONE,
    applies: isBasic,
    message: () => 'Basic SKU load balancers were retired on 30 September 2025. Upgrade to Standard.',
  },
  {
    code: 'StorageAccountV1',
    type: 'microsoft.storage/storageaccounts',
    category: 'modernize',
    saving: NONE,
    applies: (r) => r.kind === 'Storage',
    message: () =>
      'General-purpose v1 storage account. Upgrade to v2 for access tiers and lifecycle management.',
  },
  {
    code: 'VmUnmanagedDisks',
    type: 'microsoft.compute/virtualmachines',
    category: 'modernize',
    saving: NONE,
    applies: hasUnmanagedDisk,
    message: () => 'VM uses unmanaged (VHD) disks, retired on 30 September 2025. Migrate to managed disks.',
  },
  {
    code: 'WindowsVmWithoutHybridBenefit',
    type: 'microsoft.compute/virtualmachines',
    category: 'waste',
    saving: { kind: 'fraction', fraction: WINDOWS_AHB_SAVING },
    applies: (r) =>
      osType(r) === 'windows' &&
      !['windows_server', 'windows_client'].includes(lower(get(r.properties, 'licenseType'))),
    message: () =>
      'Windows VM pays for its Windows licence. Apply Azure Hybrid Benefit if you hold Software Assurance licences.',
  },
  {
    code: 'SqlVmWithoutHybridBenefit',
    type: 'microsoft.sqlvirtualmachine/sqlvirtualmachines',
    category: 'waste',
    saving: { kind: 'fraction', fraction: SQL_AHB_SAVING, of: 'linkedVm' },
    // Developer and Express editions carry no licence charge; DR replicas are free already.
    applies: (r) =>
      !['ahub', 'dr'].includes(lower(get(r.properties, 'sqlServerLicenseType'))) &&
      !['developer', 'express'].includes(lower(get(r.properties, 'sqlImageSku'))),
    message: () =>
      'SQL Server VM pays for its SQL licence. Apply Azure Hybrid Benefit if you hold Software Assurance licences.',
  },
  {
    code: 'ExpiredAppServiceCertificate',
    type: 'microsoft.web/certificates',
    category: 'waste',
    saving: RUN_RATE,
    applies: (r, { now }) => (daysSince(get(r.properties, 'expirationDate'), now) ?? -1) > 0,
    message: () => 'App Service certificate has expired. Renew or delete it.',
  },
  {
    code: 'EmptyResourceGroup',
    type: RESOURCE_GROUP_TYPE,
    category: 'waste',
    saving: NONE,
    // A group another service manages (AKS node groups, managed applications) empties and fills itself.
    applies: (r, { inventory }) =>
      inventory !== undefined && !r.managedBy && !inventory.groupsWithResources.has(r.name.toLowerCase()),
    message: () => 'Resource group contains no resources. Delete it.',
  },
];
