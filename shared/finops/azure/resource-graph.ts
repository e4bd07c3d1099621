/**
 * The subscription's resources through Resource Graph (@azure/arm-resourcegraph 4.x, an ms-rest-js
 * client), one query per page of up to 1,000 rows, paged by `$skipToken`.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { ResourceGraphClient } from '@azure/arm-resourcegraph';
import type { TokenCredential } from '@azure/core-auth';
import type { RequestPolicyFactory } from '@azure/ms-rest-js';
import { type ThrottleConfig, throttleRequestPolicyFactory } from './throttle-policy.js';

export const GRAPH_MAX_PAGE = 1000;

const COLUMNS = 'project id, name, type, resourceGroup, location, sku, kind, managedBy, tags, properties';
export const RESOURCE_GROUP_TYPE = 'microsoft.resources/subscriptions/resourcegroups';

/**
 * The query we send (the simulator understands exactly this subset of KQL): the resources and, in
 * the same request, the resource groups (from ResourceContainers, which a union may join to
 * Resources), so the empty-group rule costs no extra request against the Resource Graph quota.
 */
export const RESOURCES_QUERY = [
  'Resources',
  COLUMNS,
  `union (ResourceContainers | where type =~ '${RESOURCE_GROUP_TYPE}' | ${COLUMNS})`,
  'order by id asc',
].join('\n| ');

export interface AzureResource {
  id: string;
  name: string;
  /** Lower case, e.g. microsoft.compute/virtualmachines. */
  type: string;
  resourceGroup: string;
  location: string;
  sku: Record<string, unknown> | null;
  kind: string | null;
  managedBy: string | null;
  tags: Record<string, string>;
  properties: Record<string, unknown>;
}

export function createResourceGraphClient(
  credential: TokenCredential,
  armEndpoint: string,
  ca: string | undefined,
  throttle: ThrottleConfig,
  /** Policies of each attempt, inside the throttle's retry (the request timeout). */
  perAttempt: RequestPolicyFactory[] = [],
): ResourceGraphClient {
  return new ResourceGraphClient(credential, {
    baseUri: armEndpoint,
    // ms-rest-js's own retry policies (exponential, system-error, throttling) are switched off; our
    // factory, first in the list so every attempt passes the signing policy again, does the retrying.
    noRetryPolicy: true,
    requestPolicyFactories: (defaults: RequestPolicyFactory[]) => [
      throttleRequestPolicyFactory(throttle),
      ...perAttempt,
      ...defaults,
    ],
    ...(ca
      ? {
          agentSettings: {
            http: new HttpAgent({ keepAlive: true }),
            https: new HttpsAgent({ keepAlive: true, ca }),
          },
        }
      : {}),
  });
}

function asRecord(v: unknown): Record<string, unknown> | null {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function asString(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

export function normalizeResource(row: Record<string, unknown>): AzureResource {
  const tags: Record<string, string> = {};
  for (const [k, v] of Object.entries(asRecord(row['tags']) ?? {})) tags[k] = String(v ?? '');
  return {
    id: String(row['id'] ?? ''),
    name: String(row['name'] ?? ''),
    type: String(row['type'] ?? '').toLowerCase(),
    resourceGroup: String(row['resourceGroup'] ?? ''),
    location: String(row['location'] ?? ''),
    sku: asRecord(row['sku']),
    kind: asString(row['kind']),
    managedBy: asString(row['managedBy']),
    tags,
    properties: asRecord(row['properties']) ?? {},
  };
}

export interface ListResourcesOptions {
  pageSize?: number;
  /** Called with each page; when given, rows are not accumulated (the result is empty). */
  onPage?: (rows: AzureResource[], pageIndex: number) => void | Promise<void>;
}

/** Every resource of the subscription, following `$skipToken` until the last page. */
export async function listResources(
  client: ResourceGraphClient,
  subscriptionId: string,
  opts: ListResourcesOptions = {},
): Promise<{ resources: AzureResource[]; total: number; pages: number }> {
  const top = Math.min(GRAPH_MAX_PAGE, Math.max(1, opts.pageSize ?? GRAPH_MAX_PAGE));
  const resources: AzureResource[] = [];
  let skipToken: string | undefined;
  let pages = 0;
  let total = 0;
  do {
    const res = await client.resources({
      subscriptions: [subscriptionId],
      query: RESOURCES_QUERY,
      options: { top, resultFormat: 'objectArray', ...(skipToken ? { skipToken } : {}) },
    });
    const data = Array.isArray(res.data) ? (res.data as Array<Record<string, unknown>>) : [];
    const rows = data.map(normalizeResource);
    total += rows.length;
    if (opts.onPage) await opts.onPage(rows, pages);
    else resources.push(...rows);
    pages++;
    skipToken = res.skipToken ?? undefined;
  } while (skipToken);
  return { resources, total, pages };
}
