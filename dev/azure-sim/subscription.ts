/** The shape of a synthetic subscription and the daily numbers every cost query sums. */
import type { SimCostType } from './aks.js';
import { unitFrom } from './prng.js';
import type { SimResource } from './resource.js';
import type { WasteCase } from './waste-cases.js';

/** What one resource costs: parallel to `SimSubscription.resources`. */
export interface SimBilling {
  dailyBase: number;
  serviceName: string;
  resourceType: string;
  waste?: WasteCase;
  /** A cost that is not its base times noise (AKS scale sets: instance-hours, reservations). */
  dayCost?: (day: number, type: SimCostType) => number;
  /** The meter's quantity on a day (instance-hours for a scale set); 0 when not set. */
  dayQuantity?: (day: number) => number;
}

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
  billing: SimBilling[];
  /** Per-subscription salt for the daily cost variation. */
  salt: number;
}

/** A resource group before it becomes a `ResourceContainers` row. */
export interface SimContainer {
  name: string;
  tags: Record<string, string>;
  managedBy: string;
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
