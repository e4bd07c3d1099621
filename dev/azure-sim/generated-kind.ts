/** What a generated resource kind contributes: the part of a resource that differs between kinds. */
import type { Rng } from './prng.js';
import type { SimResource } from './resource.js';
import type { WasteCase } from './waste-cases.js';

export type Kind =
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

export type ResourceIdentity = Pick<SimResource, 'id' | 'name' | 'type'>;

export interface KindInput {
  rng: Rng;
  waste: WasteCase | undefined;
  /** The resource's index, zero-padded: makes names unique within the subscription. */
  suffix: string;
  /** The id of the resource group the resource lives in. */
  rgPath: string;
  tenantId: string;
  daysAgo: (days: number) => string;
  /** id, name and type of a resource of the group. */
  base: (provider: string, type: string, name: string) => ResourceIdentity;
}

export interface KindShape {
  r: ResourceIdentity;
  /** Properties besides `provisioningState`, which every generated resource has. */
  props: Record<string, unknown>;
  sku?: Record<string, unknown>;
  kind?: string;
  managedBy?: string;
  dailyBase: number;
  serviceName: string;
}

/**
 * Builds one kind. The random draws happen in a fixed order per kind, so reordering the statements of
 * a builder changes the data every seed produces.
 */
export type KindBuilder = (input: KindInput) => KindShape;

export function round(n: number): number {
  return Math.round(n * 100) / 100;
}
