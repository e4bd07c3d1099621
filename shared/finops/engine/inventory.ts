/**
 * Facts about the whole Resource Graph snapshot that single-resource rules need: which gateways have
 * a connection, which elastic pools hold a database, which disks exist, which groups hold anything.
 * Built once per analysis from the same union query that lists the resources (no extra request).
 */
import type { AzureResource } from '../azure/index.js';

export { RESOURCE_GROUP_TYPE } from '../azure/resource-graph.js';

import { RESOURCE_GROUP_TYPE } from '../azure/resource-graph.js';

export interface Inventory {
  /** Lower-case ids of every resource (not resource groups). */
  ids: ReadonlySet<string>;
  /** Lower-case ids of virtual network gateways that some connection references. */
  gatewaysWithConnections: ReadonlySet<string>;
  /** Lower-case ids of elastic pools that some database references. */
  poolsWithDatabases: ReadonlySet<string>;
  /** Lower-case names of resource groups holding at least one resource. */
  groupsWithResources: ReadonlySet<string>;
}

function idAt(obj: unknown, key: string): string | undefined {
  if (!obj || typeof obj !== 'object') return undefined;
  const ref = (obj as Record<string, unknown>)[key];
  const id = ref && typeof ref === 'object' ? (ref as Record<string, unknown>)['id'] : undefined;
  return typeof id === 'string' && id !== '' ? id.toLowerCase() : undefined;
}

export function buildInventory(resources: Iterable<AzureResource>): Inventory {
  const ids = new Set<string>();
  const gateways = new Set<string>();
  const pools = new Set<string>();
  const groups = new Set<string>();
  for (const r of resources) {
    if (r.type === RESOURCE_GROUP_TYPE) continue;
    ids.add(r.id.toLowerCase());
    groups.add(r.resourceGroup.toLowerCase());
    if (r.type === 'microsoft.network/connections') {
      for (const key of ['virtualNetworkGateway1', 'virtualNetworkGateway2']) {
        const id = idAt(r.properties, key);
        if (id) gateways.add(id);
      }
    } else if (r.type === 'microsoft.sql/servers/databases') {
      const pool = r.properties['elasticPoolId'];
      if (typeof pool === 'string' && pool !== '') pools.add(pool.toLowerCase());
    }
  }
  return { ids, gatewaysWithConnections: gateways, poolsWithDatabases: pools, groupsWithResources: groups };
}
