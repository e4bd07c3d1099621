/**
 * One generated resource of a synthetic subscription: the kind is drawn by weight, the parts every
 * kind shares (location, tags, group) are drawn here and the kind's own part by its builder.
 */
import { daysBefore } from './days.js';
import type { Kind, KindBuilder } from './generated-kind.js';
import { COMPUTE_KINDS } from './kinds-compute.js';
import { NETWORK_KINDS } from './kinds-network.js';
import { PLATFORM_KINDS } from './kinds-platform.js';
import type { Rng } from './prng.js';
import type { SimResource } from './resource.js';
import { WASTE_CASES, type WasteCase } from './waste-cases.js';

export type { Kind } from './generated-kind.js';

const LOCATIONS = ['westeurope', 'northeurope', 'eastus', 'eastus2', 'uksouth', 'swedencentral'] as const;
export const ENVS = ['prod', 'dev', 'test', 'staging'] as const;

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
const TOTAL_WEIGHT = KIND_WEIGHTS.reduce((s, [, w]) => s + w, 0);

export const WASTE_KIND: Record<WasteCase, Kind> = {
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

const BUILDERS: Record<Kind, KindBuilder> = { ...COMPUTE_KINDS, ...NETWORK_KINDS, ...PLATFORM_KINDS };

/** A kind drawn by weight: the mix of a real subscription (many disks and NICs, few caches). */
export function pickKind(rng: Rng): Kind {
  let r = rng.next() * TOTAL_WEIGHT;
  for (const [kind, w] of KIND_WEIGHTS) {
    r -= w;
    if (r < 0) return kind;
  }
  return 'vm';
}

export function randomWasteFor(kind: Kind, rng: Rng): WasteCase | undefined {
  const candidates = WASTE_CASES.filter((w) => WASTE_KIND[w] === kind);
  return candidates.length > 0 ? rng.pick(candidates) : undefined;
}

export interface BuildContext {
  rng: Rng;
  subscriptionId: string;
  tenantId: string;
  group: string;
  gar: string | undefined;
  now: Date;
}

export function buildResource(
  kind: Kind,
  waste: WasteCase | undefined,
  index: number,
  ctx: BuildContext,
): { resource: SimResource; dailyBase: number; serviceName: string } {
  const { rng, subscriptionId, tenantId, group, gar, now } = ctx;
  const location = rng.pick(LOCATIONS);
  const env = rng.pick(ENVS);
  const tags: Record<string, string> = { env, owner: `team-${rng.int(1, 12)}` };
  if (gar !== undefined && !rng.chance(0.05)) tags['GAR_ID'] = gar;
  const rgPath = `/subscriptions/${subscriptionId}/resourceGroups/${group}`;
  const shape = BUILDERS[kind]({
    rng,
    waste,
    suffix: String(index).padStart(5, '0'),
    rgPath,
    tenantId,
    daysAgo: (d) => daysBefore(now, d),
    base: (provider, type, name) => ({
      id: `${rgPath}/providers/${provider}/${type}/${name}`,
      name,
      type: `${provider}/${type}`.toLowerCase(),
    }),
  });
  return {
    resource: {
      ...shape.r,
      tenantId,
      kind: shape.kind ?? '',
      location,
      resourceGroup: group.toLowerCase(),
      subscriptionId,
      managedBy: shape.managedBy ?? '',
      sku: shape.sku ?? null,
      plan: null,
      properties: { provisioningState: 'Succeeded', ...shape.props },
      tags,
      identity: null,
      zones: null,
      extendedLocation: null,
    },
    dailyBase: shape.dailyBase,
    serviceName: shape.serviceName,
  };
}
