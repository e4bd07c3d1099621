/**
 * Deterministic synthetic subscriptions. Everything is derived from (seed, subscription id), so two
 * simulators with the same seed serve the same resources and the same costs.
 */
import { instancesAt, poolDayCost, poolDayHours, type SimCostType, simAksCluster } from './aks.js';
import { createRng, guid, hashString, type Rng, unitFrom } from './prng.js';
import type { SimResource } from './resource.js';
import { buildWasteCatalogue, CASE_TAG } from './waste-catalogue.js';

export type { SimResource } from './resource.js';

export type WasteCase =
  | 'unattached-disk'
  | 'unassociated-public-ip'
  | 'vm-stopped'
  | 'vm-deallocated'
  | 'empty-app-service-plan'
  | 'old-snapshot'
  | 'orphaned-nic'
  | 'lb-without-backends'
  | 'acr-admin-user'
  | 'redis-non-ssl-port';

export const WASTE_CASES: readonly WasteCase[] = [
  'unattached-disk',
  'unassociated-public-ip',
  'vm-stopped',
  'vm-deallocated',
  'empty-app-service-plan',
  'old-snapshot',
  'orphaned-nic',
  'lb-without-backends',
  'acr-admin-user',
  'redis-non-ssl-port',
];

export interface SimSubscription {
  subscriptionId: string;
  displayName: string;
  tenantId: string;
  currency: string;
  resources: SimResource[];
  /** Resource Graph's `ResourceContainers` rows: the subscription's resource groups. */
  containers: SimResource[];
  /** Resource Graph's `AdvisorResources` rows (recommendations). */
  advisor: SimResource[];
  /** Parallel to `resources`: the base daily cost, the cost dimensions and the waste case (if any). */
  billing: Array<{
    dailyBase: number;
    serviceName: string;
    resourceType: string;
    waste?: WasteCase;
    /** A cost that is not its base times noise (AKS scale sets: instance-hours, reservations). */
    dayCost?: (day: number, type: SimCostType) => number;
    /** The meter's quantity on a day (instance-hours for a scale set); 0 when not set. */
    dayQuantity?: (day: number) => number;
  }>;
  /** Per-subscription salt for the daily cost variation. */
  salt: number;
}

const LOCATIONS = ['westeurope', 'northeurope', 'eastus', 'eastus2', 'uksouth', 'swedencentral'] as const;
const GROUP_STEMS = [
  'rg-web',
  'rg-data',
  'RG-Shared',
  'rg-aks-nodes',
  'rg-analytics',
  'Rg-Integration',
] as const;
const NAMES = ['contoso', 'fabrikam', 'northwind', 'adventureworks', 'tailspin', 'woodgrove'] as const;
const ENVS = ['prod', 'dev', 'test', 'staging'] as const;

type Kind =
  | 'vm'
  | 'disk'
  | 'pip'
  | 'plan'
  | 'site'
  | 'snapshot'
  | 'nic'
  | 'lb'
  | 'acr'
  | 'redis'
  | 'storage'
  | 'sql'
  | 'kv';

const KIND_WEIGHTS: Array<[Kind, number]> = [
  ['vm', 14],
  ['disk', 16],
  ['nic', 14],
  ['pip', 8],
  ['storage', 10],
  ['plan', 6],
  ['site', 8],
  ['snapshot', 6],
  ['lb', 4],
  ['acr', 3],
  ['redis', 3],
  ['sql', 5],
  ['kv', 3],
];

const WASTE_KIND: Record<WasteCase, Kind> = {
  'unattached-disk': 'disk',
  'unassociated-public-ip': 'pip',
  'vm-stopped': 'vm',
  'vm-deallocated': 'vm',
  'empty-app-service-plan': 'plan',
  'old-snapshot': 'snapshot',
  'orphaned-nic': 'nic',
  'lb-without-backends': 'lb',
  'acr-admin-user': 'acr',
  'redis-non-ssl-port': 'redis',
};

const DAY_MS = 86_400_000;

export interface GenerateOptions {
  resources: number;
  seed: number;
  now: Date;
  /** Add a positive and a negative case for every waste rule (waste-catalogue.ts). */
  wasteCatalogue?: boolean;
  /** Add an AKS cluster with its node resource group (aks.ts). */
  aks?: boolean;
}

/** Builds the synthetic subscription for an id. Pure: same inputs, same output. */
export function generateSubscription(subscriptionId: string, opts: GenerateOptions): SimSubscription {
  const salt = hashString(`${opts.seed}:${subscriptionId.toLowerCase()}`);
  const rng = createRng(salt);
  const tenantId = guid(createRng(hashString(`tenant:${opts.seed}`)));
  const displayName = `${rng.pick(NAMES)}-${rng.pick(ENVS)}-${rng.int(1, 99).toString().padStart(2, '0')}`;
  const currency = rng.chance(0.5) ? 'EUR' : 'USD';
  const groupCount = Math.max(2, Math.min(400, Math.ceil(opts.resources / 25)));
  const groups: string[] = [];
  // GAR_ID (the application id the UI groups costs by) is a per-group tag: most groups have one and
  // all their resources carry it, so merging the tags of a group keeps it (CostDetails' tags).
  const garByGroup = new Map<string, string>();
  for (let i = 0; i < groupCount; i++) {
    const name = `${GROUP_STEMS[i % GROUP_STEMS.length]}-${String(i + 1).padStart(3, '0')}`;
    groups.push(name);
    if (rng.chance(0.7)) garByGroup.set(name, `GAR-${1000 + (i % 97)}`);
  }
  const totalWeight = KIND_WEIGHTS.reduce((s, [, w]) => s + w, 0);
  const pickKind = (): Kind => {
    let r = rng.next() * totalWeight;
    for (const [kind, w] of KIND_WEIGHTS) {
      r -= w;
      if (r < 0) return kind;
    }
    return 'vm';
  };

  const sub: SimSubscription = {
    subscriptionId,
    displayName,
    tenantId,
    currency,
    resources: [],
    containers: [],
    advisor: [],
    billing: [],
    salt,
  };
  for (let i = 0; i < opts.resources; i++) {
    // The first resources cover every waste rule once, so even a small subscription triggers them all.
    const forced = WASTE_CASES[i];
    const kind = forced ? WASTE_KIND[forced] : pickKind();
    const waste = forced ?? (rng.chance(0.08) ? randomWasteFor(kind, rng) : undefined);
    const group = rng.pick(groups);
    const built = buildResource(kind, waste, i, {
      rng,
      sub,
      group,
      gar: garByGroup.get(group),
      now: opts.now,
    });
    sub.resources.push(built.resource);
    sub.billing.push({
      dailyBase: built.dailyBase,
      serviceName: built.serviceName,
      resourceType: built.resource.type,
      ...(waste ? { waste } : {}),
    });
  }
  const groupNames = new Map(groups.map((g) => [g.toLowerCase(), g]));
  const containers: Array<{ name: string; tags: Record<string, string>; managedBy: string }> = [];
  for (const g of new Set(sub.resources.map((r) => r.resourceGroup))) {
    containers.push({ name: groupNames.get(g) ?? g, tags: {}, managedBy: '' });
  }
  if (opts.wasteCatalogue) {
    const catalogue = buildWasteCatalogue(subscriptionId, tenantId, currency, opts.now);
    sub.advisor = catalogue.advisor;
    for (const e of catalogue.resources) {
      sub.resources.push(e.resource);
      sub.billing.push({ dailyBase: e.dailyBase, serviceName: e.serviceName, resourceType: e.resource.type });
    }
    for (const c of catalogue.containers) {
      containers.push({ name: c.name, tags: { [CASE_TAG]: c.caseTag }, managedBy: c.managedBy });
    }
  }
  if (opts.aks) {
    for (const c of addAksCluster(sub, opts.seed)) containers.push(c);
  }
  sub.containers = containers.map((c) => ({
    id: `/subscriptions/${subscriptionId}/resourceGroups/${c.name}`,
    name: c.name,
    type: 'microsoft.resources/subscriptions/resourcegroups',
    tenantId,
    kind: '',
    location: 'westeurope',
    resourceGroup: c.name.toLowerCase(),
    subscriptionId,
    managedBy: c.managedBy,
    sku: null,
    plan: null,
    properties: { provisioningState: 'Succeeded' },
    tags: c.tags,
    identity: null,
    zones: null,
    extendedLocation: null,
  }));
  return sub;
}

function randomWasteFor(kind: Kind, rng: Rng): WasteCase | undefined {
  const candidates = WASTE_CASES.filter((w) => WASTE_KIND[w] === kind);
  return candidates.length > 0 ? rng.pick(candidates) : undefined;
}

interface BuildContext {
  rng: Rng;
  sub: SimSubscription;
  group: string;
  gar: string | undefined;
  now: Date;
}

function buildResource(
  kind: Kind,
  waste: WasteCase | undefined,
  index: number,
  ctx: BuildContext,
): { resource: SimResource; dailyBase: number; serviceName: string } {
  const { rng, sub, group, gar, now } = ctx;
  const suffix = `${String(index).padStart(5, '0')}`;
  const location = rng.pick(LOCATIONS);
  const env = rng.pick(ENVS);
  const tags: Record<string, string> = { env, owner: `team-${rng.int(1, 12)}` };
  if (gar !== undefined && !rng.chance(0.05)) tags['GAR_ID'] = gar;
  const rgPath = `/subscriptions/${sub.subscriptionId}/resourceGroups/${group}`;
  const daysAgo = (d: number) => new Date(now.getTime() - d * DAY_MS).toISOString();
  const base = (provider: string, type: string, name: string) => ({
    id: `${rgPath}/providers/${provider}/${type}/${name}`,
    name,
    type: `${provider}/${type}`.toLowerCase(),
  });
  let r: Pick<SimResource, 'id' | 'name' | 'type'>;
  let props: Record<string, unknown> = { provisioningState: 'Succeeded' };
  let sku: Record<string, unknown> | null = null;
  let resourceKind = '';
  let managedBy = '';
  let dailyBase = 0;
  let serviceName = 'Storage';
  switch (kind) {
    case 'vm': {
      r = base('Microsoft.Compute', 'virtualMachines', `vm-${suffix}`);
      const code =
        waste === 'vm-stopped'
          ? 'PowerState/stopped'
          : waste === 'vm-deallocated'
            ? 'PowerState/deallocated'
            : 'PowerState/running';
      const vmSize = rng.pick(['Standard_B2s', 'Standard_D2s_v5', 'Standard_D4s_v5', 'Standard_E8s_v5']);
      const vmId = guid(rng);
      const os = rng.chance(0.7) ? 'Linux' : 'Windows';
      props = {
        ...props,
        vmId,
        hardwareProfile: { vmSize },
        // Generated Windows VMs use Hybrid Benefit: only the waste catalogue shows one without it.
        ...(os === 'Windows' ? { licenseType: 'Windows_Server' } : {}),
        storageProfile: {
          osDisk: {
            osType: os,
            name: `vm-${suffix}_OsDisk`,
            createOption: 'FromImage',
            managedDisk: { id: `${rgPath}/providers/Microsoft.Compute/disks/vm-${suffix}_OsDisk` },
          },
        },
        osProfile: { computerName: `vm-${suffix}` },
        networkProfile: {
          networkInterfaces: [
            { id: `${rgPath}/providers/Microsoft.Network/networkInterfaces/vm-${suffix}-nic` },
          ],
        },
        timeCreated: daysAgo(rng.int(40, 900)),
        extended: {
          instanceView: {
            powerState: { code, level: 'Info', displayStatus: code.replace('PowerState/', 'VM ') },
          },
        },
      };
      dailyBase = waste === 'vm-deallocated' ? 0 : round(rng.int(20, 400) / 10);
      serviceName = 'Virtual Machines';
      break;
    }
    case 'disk': {
      r = base('Microsoft.Compute', 'disks', `disk-${suffix}`);
      const attached = waste !== 'unattached-disk';
      managedBy = attached ? `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm-${suffix}` : '';
      const size = rng.pick([32, 64, 128, 256, 512, 1024]);
      sku = rng.chance(0.5)
        ? { name: 'Premium_LRS', tier: 'Premium' }
        : { name: 'StandardSSD_LRS', tier: 'Standard' };
      props = {
        ...props,
        diskSizeGB: size,
        diskState: attached ? 'Attached' : 'Unattached',
        timeCreated: daysAgo(rng.int(10, 700)),
        creationData: { createOption: 'Empty' },
      };
      dailyBase = round(size * 0.004 + rng.next());
      serviceName = 'Storage';
      break;
    }
    case 'pip': {
      r = base('Microsoft.Network', 'publicIPAddresses', `pip-${suffix}`);
      sku = { name: 'Standard', tier: 'Regional' };
      props = {
        ...props,
        ipAddress: `20.${rng.int(1, 250)}.${rng.int(1, 250)}.${rng.int(1, 250)}`,
        publicIPAllocationMethod: 'Static',
        publicIPAddressVersion: 'IPv4',
        ...(waste === 'unassociated-public-ip'
          ? {}
          : {
              ipConfiguration: {
                id: `${rgPath}/providers/Microsoft.Network/networkInterfaces/nic-${suffix}/ipConfigurations/ipconfig1`,
              },
            }),
      };
      dailyBase = 0.12;
      serviceName = 'Virtual Network';
      break;
    }
    case 'plan': {
      r = base('Microsoft.Web', 'serverfarms', `plan-${suffix}`);
      const tier = rng.pick(['PremiumV3', 'Standard', 'Basic']);
      sku = { name: tier === 'PremiumV3' ? 'P1v3' : tier === 'Standard' ? 'S1' : 'B1', tier, capacity: 1 };
      resourceKind = rng.chance(0.6) ? 'linux' : 'app';
      props = {
        ...props,
        status: 'Ready',
        numberOfSites: waste === 'empty-app-service-plan' ? 0 : rng.int(1, 6),
        maximumNumberOfWorkers: 30,
        reserved: resourceKind === 'linux',
      };
      dailyBase = tier === 'PremiumV3' ? 4.8 : tier === 'Standard' ? 2.4 : 1.3;
      serviceName = 'Azure App Service';
      break;
    }
    case 'site': {
      r = base('Microsoft.Web', 'sites', `app-${suffix}`);
      resourceKind = 'app';
      props = {
        ...props,
        state: 'Running',
        defaultHostName: `app-${suffix}.azurewebsites.net`,
        serverFarmId: `${rgPath}/providers/Microsoft.Web/serverfarms/plan-${suffix}`,
        httpsOnly: rng.chance(0.8),
      };
      dailyBase = round(rng.next() * 0.3);
      serviceName = 'Azure App Service';
      break;
    }
    case 'snapshot': {
      r = base('Microsoft.Compute', 'snapshots', `snap-${suffix}`);
      sku = { name: 'Standard_LRS', tier: 'Standard' };
      const age = waste === 'old-snapshot' ? rng.int(31, 400) : rng.int(1, 25);
      props = {
        ...props,
        diskSizeGB: rng.pick([32, 128, 256]),
        timeCreated: daysAgo(age),
        incremental: false,
      };
      dailyBase = round(0.05 + rng.next() * 1.5);
      serviceName = 'Storage';
      break;
    }
    case 'nic': {
      r = base('Microsoft.Network', 'networkInterfaces', `nic-${suffix}`);
      props = {
        ...props,
        macAddress: rng.hex(12).toUpperCase(),
        ipConfigurations: [
          {
            name: 'ipconfig1',
            properties: { privateIPAddress: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(4, 250)}` },
          },
        ],
        ...(waste === 'orphaned-nic'
          ? {}
          : { virtualMachine: { id: `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm-${suffix}` } }),
      };
      dailyBase = 0;
      serviceName = 'Virtual Network';
      break;
    }
    case 'lb': {
      r = base('Microsoft.Network', 'loadBalancers', `lb-${suffix}`);
      sku = { name: 'Standard', tier: 'Regional' };
      props = {
        ...props,
        frontendIPConfigurations: [{ name: 'frontend', id: `${r.id}/frontendIPConfigurations/frontend` }],
        backendAddressPools:
          waste === 'lb-without-backends'
            ? []
            : [{ name: 'backend', id: `${r.id}/backendAddressPools/backend` }],
      };
      dailyBase = 0.6;
      serviceName = 'Load Balancer';
      break;
    }
    case 'acr': {
      r = base('Microsoft.ContainerRegistry', 'registries', `acr${suffix}`);
      const tier = rng.pick(['Basic', 'Standard', 'Premium']);
      sku = { name: tier, tier };
      props = {
        ...props,
        adminUserEnabled: waste === 'acr-admin-user',
        loginServer: `acr${suffix}.azurecr.io`,
      };
      dailyBase = tier === 'Premium' ? 1.67 : tier === 'Standard' ? 0.67 : 0.17;
      serviceName = 'Container Registry';
      break;
    }
    case 'redis': {
      r = base('Microsoft.Cache', 'Redis', `redis-${suffix}`);
      props = {
        ...props,
        enableNonSslPort: waste === 'redis-non-ssl-port',
        sku: { name: 'Standard', family: 'C', capacity: rng.int(0, 3) },
        hostName: `redis-${suffix}.redis.cache.windows.net`,
        port: 6379,
        sslPort: 6380,
        redisVersion: '6.0',
      };
      dailyBase = round(1 + rng.next() * 12);
      serviceName = 'Redis Cache';
      break;
    }
    case 'storage': {
      r = base('Microsoft.Storage', 'storageAccounts', `st${suffix}${rng.hex(6)}`);
      sku = { name: 'Standard_LRS', tier: 'Standard' };
      resourceKind = 'StorageV2';
      props = { ...props, accessTier: 'Hot', supportsHttpsTrafficOnly: true, minimumTlsVersion: 'TLS1_2' };
      dailyBase = round(0.1 + rng.next() * 6);
      serviceName = 'Storage';
      break;
    }
    case 'sql': {
      const server = `sql-${suffix}`;
      r = {
        id: `${rgPath}/providers/Microsoft.Sql/servers/${server}/databases/db-${suffix}`,
        name: `${server}/db-${suffix}`,
        type: 'microsoft.sql/servers/databases',
      };
      sku = { name: 'S0', tier: 'Standard', capacity: 10 };
      props = { ...props, status: 'Online', maxSizeBytes: 268435456000 };
      dailyBase = round(0.5 + rng.next() * 20);
      serviceName = 'SQL Database';
      break;
    }
    case 'kv': {
      r = base('Microsoft.KeyVault', 'vaults', `kv-${suffix}`);
      props = {
        ...props,
        sku: { family: 'A', name: 'standard' },
        tenantId: sub.tenantId,
        enableSoftDelete: true,
      };
      dailyBase = round(0.01 + rng.next() * 0.3);
      serviceName = 'Key Vault';
      break;
    }
  }
  return {
    resource: {
      ...r,
      tenantId: sub.tenantId,
      kind: resourceKind,
      location,
      resourceGroup: group.toLowerCase(),
      subscriptionId: sub.subscriptionId,
      managedBy,
      sku,
      plan: null,
      properties: props,
      tags,
      identity: null,
      zones: null,
      extendedLocation: null,
    },
    dailyBase,
    serviceName,
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Day number (days since 1970-01-01, UTC) of a Date. */
export function dayNumber(d: Date): number {
  return Math.floor(d.getTime() / DAY_MS);
}

export function dayToDate(day: number): Date {
  return new Date(day * DAY_MS);
}

/** yyyyMMdd as a number, as the cost API writes UsageDate. */
export function usageDate(day: number): number {
  const d = dayToDate(day);
  return d.getUTCFullYear() * 10000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
}

/**
 * The cost of one resource on one day: its base cost times a deterministic factor in [0.85, 1.15),
 * rounded to 6 decimals. Every query sums these same numbers, so totals agree across groupings.
 */
export function resourceDayCost(
  sub: SimSubscription,
  index: number,
  day: number,
  type: SimCostType = 'ActualCost',
): number {
  const b = sub.billing[index];
  if (b?.dayCost) return b.dayCost(day, type);
  if (!b || b.dailyBase === 0) return 0;
  return Math.round(b.dailyBase * (0.85 + 0.3 * unitFrom(sub.salt, index, day)) * 1e6) / 1e6;
}

/** The meter's quantity of a resource on a day (instance-hours for a scale set, else 0). */
export function resourceDayQuantity(sub: SimSubscription, index: number, day: number): number {
  return sub.billing[index]?.dayQuantity?.(day) ?? 0;
}

/** Adds the subscription's AKS cluster (aks.ts) to its resources; answers its resource groups. */
function addAksCluster(
  sub: SimSubscription,
  seed: number,
): Array<{ name: string; tags: Record<string, string>; managedBy: string }> {
  const c = simAksCluster(sub.subscriptionId, seed);
  const push = (
    r: Pick<SimResource, 'id' | 'name' | 'type' | 'resourceGroup' | 'sku' | 'properties' | 'tags'> &
      Partial<Pick<SimResource, 'managedBy'>>,
    billing: SimSubscription['billing'][number],
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
