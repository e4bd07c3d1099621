/**
 * Deterministic synthetic subscriptions. Everything is derived from (seed, subscription id), so two
 * simulators with the same seed serve the same resources and the same costs.
 */
import { addAksCluster } from './aks-resources.js';
import { buildResource, ENVS, pickKind, randomWasteFor, WASTE_KIND } from './generated-resource.js';
import { createRng, guid, hashString } from './prng.js';
import type { SimResource } from './resource.js';
import type { SimContainer, SimSubscription } from './subscription.js';
import { WASTE_CASES } from './waste-cases.js';
import { buildWasteCatalogue, CASE_TAG } from './waste-catalogue.js';

const GROUP_STEMS = [
  'rg-web',
  'rg-data',
  'RG-Shared',
  'rg-aks-nodes',
  'rg-analytics',
  'Rg-Integration',
] as const;
const NAMES = ['contoso', 'fabrikam', 'northwind', 'adventureworks', 'tailspin', 'woodgrove'] as const;

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
    const kind = forced ? WASTE_KIND[forced] : pickKind(rng);
    const waste = forced ?? (rng.chance(0.08) ? randomWasteFor(kind, rng) : undefined);
    const group = rng.pick(groups);
    const built = buildResource(kind, waste, i, {
      rng,
      subscriptionId,
      tenantId,
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
  const containers: SimContainer[] = [];
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
  sub.containers = containers.map((c) => containerRow(c, subscriptionId, tenantId));
  return sub;
}

/** A resource group as Resource Graph's `ResourceContainers` table holds it. */
function containerRow(c: SimContainer, subscriptionId: string, tenantId: string): SimResource {
  return {
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
  };
}
