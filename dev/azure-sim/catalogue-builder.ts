/**
 * How the waste catalogue adds a resource: every one lives in the catalogue's resource group and
 * carries the `finwatch-case` tag saying which rule it shows and whether it should fire.
 */
import { daysBefore } from './days.js';
import type { SimResource } from './resource.js';

export const CATALOGUE_GROUP = 'rg-waste-catalogue';
export const CASE_TAG = 'finwatch-case';

export interface CatalogueEntry {
  resource: SimResource;
  dailyBase: number;
  serviceName: string;
}

/** What a resource costs a day and the service its cost rows name. */
export interface Money {
  dailyBase: number;
  serviceName: string;
}

export const compute = (d: number): Money => ({ dailyBase: d, serviceName: 'Virtual Machines' });
export const storage = (d: number): Money => ({ dailyBase: d, serviceName: 'Storage' });
export const network = (d: number): Money => ({ dailyBase: d, serviceName: 'Virtual Network' });
export const free: Money = { dailyBase: 0, serviceName: 'Virtual Network' };

export interface CatalogueExtra {
  sku?: Record<string, unknown>;
  kind?: string;
  managedBy?: string;
  tags?: Record<string, string>;
}

export interface CatalogueBuilder {
  subscriptionId: string;
  tenantId: string;
  now: Date;
  /** The id of the catalogue's resource group. */
  rg: string;
  entries: CatalogueEntry[];
  idOf(provider: string, type: string, name: string): string;
  daysAgo(days: number): string;
  /** Adds a resource of the group (provisioned, with the case tag); answers its id. */
  add(
    caseTag: string,
    provider: string,
    type: string,
    name: string,
    props: Record<string, unknown>,
    money: Money,
    extra?: CatalogueExtra,
  ): string;
  /** Adds a resource whose id is not provider/type/name (a SQL server's children); answers its id. */
  addRow(
    row: Pick<SimResource, 'id' | 'name' | 'type' | 'kind' | 'sku' | 'properties' | 'tags'> &
      Partial<Pick<SimResource, 'managedBy'>>,
    money: Money,
  ): string;
}

export function catalogueBuilder(subscriptionId: string, tenantId: string, now: Date): CatalogueBuilder {
  const rg = `/subscriptions/${subscriptionId}/resourceGroups/${CATALOGUE_GROUP}`;
  const entries: CatalogueEntry[] = [];
  const idOf = (provider: string, type: string, name: string) =>
    `${rg}/providers/${provider}/${type}/${name}`;
  const addRow: CatalogueBuilder['addRow'] = (row, money) => {
    entries.push({
      resource: {
        id: row.id,
        name: row.name,
        type: row.type,
        tenantId,
        kind: row.kind,
        location: 'westeurope',
        resourceGroup: CATALOGUE_GROUP,
        subscriptionId,
        managedBy: row.managedBy ?? '',
        sku: row.sku,
        plan: null,
        properties: row.properties,
        tags: row.tags,
        identity: null,
        zones: null,
        extendedLocation: null,
      },
      ...money,
    });
    return row.id;
  };
  return {
    subscriptionId,
    tenantId,
    now,
    rg,
    entries,
    idOf,
    daysAgo: (d) => daysBefore(now, d),
    addRow,
    add: (caseTag, provider, type, name, props, money, extra = {}) =>
      addRow(
        {
          id: idOf(provider, type, name),
          name,
          type: `${provider}/${type}`.toLowerCase(),
          kind: extra.kind ?? '',
          managedBy: extra.managedBy ?? '',
          sku: extra.sku ?? null,
          properties: { provisioningState: 'Succeeded', ...props },
          tags: { [CASE_TAG]: caseTag, ...(extra.tags ?? {}) },
        },
        money,
      ),
  };
}
