/**
 * Waste and risk flags computed from a resource snapshot (docs/waste-rules.md documents each rule).
 * Pure: a resource (as Resource Graph returns it), its month-to-date cost and the clock in, flags out.
 */
import type { AzureResource } from '../azure/index.js';

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
  | 'RedisNonSslPort';

export interface ResourceFlag {
  code: FlagCode;
  message: string;
  /** The resource's month-to-date cost, when it has one: what acting on the flag could save. */
  monthToDateCost: number | null;
}

export const SNAPSHOT_MAX_AGE_DAYS = 30;
const DAY_MS = 86_400_000;

function get(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    const rec = cur as Record<string, unknown>;
    // Resource Graph property names are camelCase, but be lenient about their case.
    const hit = key in rec ? key : Object.keys(rec).find((k) => k.toLowerCase() === key.toLowerCase());
    cur = hit === undefined ? undefined : rec[hit];
  }
  return cur;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v as object).length === 0;
  return false;
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');

interface Rule {
  code: FlagCode;
  type: string;
  applies(r: AzureResource, now: Date): boolean;
  message(r: AzureResource, now: Date): string;
}

function powerState(r: AzureResource): string {
  return lower(get(r.properties, 'extended', 'instanceView', 'powerState', 'code'));
}

/** ASR replica disks and AKS persistent-volume disks are managed by their service, not orphaned. */
function isServiceManagedDisk(r: AzureResource): boolean {
  const name = r.name.toLowerCase();
  const tagKeys = Object.keys(r.tags).map((k) => k.toLowerCase());
  return (
    name.includes('asrreplica') ||
    name.includes('asrseed') ||
    tagKeys.some((k) => k.startsWith('asr') || k.includes('created-for-pvc') || k.startsWith('kubernetes.io'))
  );
}

function ageDays(r: AzureResource, now: Date): number | undefined {
  const created = get(r.properties, 'timeCreated');
  if (typeof created !== 'string') return undefined;
  const t = Date.parse(created);
  return Number.isNaN(t) ? undefined : (now.getTime() - t) / DAY_MS;
}

export const RULES: readonly Rule[] = [
  {
    code: 'UnattachedDisk',
    type: 'microsoft.compute/disks',
    applies: (r) =>
      !r.managedBy &&
      !['activesas', 'attached', 'reserved'].includes(lower(get(r.properties, 'diskState'))) &&
      !isServiceManagedDisk(r),
    message: () =>
      'Managed disk is not attached to any VM but is still billed; snapshot and delete it if unused.',
  },
  {
    code: 'UnassociatedPublicIp',
    type: 'microsoft.network/publicipaddresses',
    applies: (r) => isEmpty(get(r.properties, 'ipConfiguration')) && isEmpty(get(r.properties, 'natGateway')),
    message: () => 'Public IP address is not associated with any resource; release it if unused.',
  },
  {
    code: 'VmStoppedNotDeallocated',
    type: 'microsoft.compute/virtualmachines',
    applies: (r) => powerState(r) === 'powerstate/stopped',
    message: () => 'VM is stopped but not deallocated, so its compute is still billed; deallocate it.',
  },
  {
    code: 'VmDeallocated',
    type: 'microsoft.compute/virtualmachines',
    applies: (r) => powerState(r) === 'powerstate/deallocated',
    message: () =>
      'VM is deallocated; its disks and IPs are still billed. Delete it if it is no longer needed.',
  },
  {
    code: 'EmptyAppServicePlan',
    type: 'microsoft.web/serverfarms',
    applies: (r) => {
      const sites = Number(get(r.properties, 'numberOfSites'));
      const tier = lower(get(r.sku, 'tier'));
      return sites === 0 && tier !== 'free' && tier !== 'dynamic';
    },
    message: () =>
      'App Service plan hosts no apps but is billed for its instances; delete or consolidate it.',
  },
  {
    code: 'OldSnapshot',
    type: 'microsoft.compute/snapshots',
    applies: (r, now) => (ageDays(r, now) ?? 0) > SNAPSHOT_MAX_AGE_DAYS,
    message: (r, now) =>
      `Snapshot is ${Math.floor(ageDays(r, now) ?? 0)} days old (more than ${SNAPSHOT_MAX_AGE_DAYS}); review its retention.`,
  },
  {
    code: 'OrphanedNic',
    type: 'microsoft.network/networkinterfaces',
    applies: (r) =>
      isEmpty(get(r.properties, 'virtualMachine')) && isEmpty(get(r.properties, 'privateEndpoint')),
    message: () => 'Network interface is attached to no VM and no private endpoint; delete it if unused.',
  },
  {
    code: 'LoadBalancerWithoutBackends',
    type: 'microsoft.network/loadbalancers',
    applies: (r) =>
      isEmpty(get(r.properties, 'backendAddressPools')) && lower(get(r.sku, 'name')) !== 'basic',
    message: () => 'Load balancer has no backend pools but is billed; delete it if unused.',
  },
  {
    code: 'RegistryAdminUserEnabled',
    type: 'microsoft.containerregistry/registries',
    applies: (r) => get(r.properties, 'adminUserEnabled') === true,
    message: () =>
      'Container registry has the admin user enabled; use Entra ID identities or tokens instead.',
  },
  {
    code: 'RedisNonSslPort',
    type: 'microsoft.cache/redis',
    applies: (r) => get(r.properties, 'enableNonSslPort') === true,
    message: () => 'Azure Cache for Redis has the non-TLS port (6379) enabled; disable it.',
  },
];

const RULES_BY_TYPE = new Map<string, Rule[]>();
for (const rule of RULES) RULES_BY_TYPE.set(rule.type, [...(RULES_BY_TYPE.get(rule.type) ?? []), rule]);

/** The flags of one resource. `monthToDateCost` is attached when the resource has a cost. */
export function computeFlags(
  resource: AzureResource,
  monthToDateCost: number | undefined,
  now: Date = new Date(),
): ResourceFlag[] {
  const rules = RULES_BY_TYPE.get(resource.type.toLowerCase());
  if (!rules) return [];
  const cost =
    monthToDateCost !== undefined && monthToDateCost > 0 ? Math.round(monthToDateCost * 10000) / 10000 : null;
  const out: ResourceFlag[] = [];
  for (const rule of rules) {
    if (rule.applies(resource, now))
      out.push({ code: rule.code, message: rule.message(resource, now), monthToDateCost: cost });
  }
  return out;
}

/** The original's wire form: messages joined with "; " ("" when there is none). */
export function flagsText(flags: readonly ResourceFlag[]): string {
  return flags.map((f) => `${f.code}: ${f.message}`).join('; ');
}
