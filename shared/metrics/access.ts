import type { Caller } from '../auth/caller.js';
import { GUID } from '../config/fields.js';
import type { PrismaClient } from '../db/client.js';
import type { AgentCluster } from '../finops/kubernetes/usage-source.js';
import { forbidden } from '../http/problem.js';
import { normalizeCluster } from './records.js';

/**
 * Who sees which cluster, one rule for the metrics and the Kubernetes cost APIs: administrators every
 * cluster; anyone else the clusters an administrator assigned to them by the agent's cluster name
 * (the auth service's UserClusters) and the clusters of the subscriptions assigned to them
 * (UserSubscriptions): a managed cluster's own subscription, or the subscription an agent's nodes
 * run in (their provider ids name it). The original left this to the browser; here every read
 * route applies it in the query.
 */
export type ClusterScope =
  | { all: true }
  | { all: false; clusterNames: ReadonlySet<string>; subscriptionIds: ReadonlySet<string> };

/** What a cluster is known by: its names (the agent's, the managed cluster's) and subscriptions. */
export interface ClusterIdentity {
  names: Array<string | null | undefined>;
  subscriptionIds: Array<string | null | undefined>;
}

const NOTHING: ClusterScope = { all: false, clusterNames: new Set(), subscriptionIds: new Set() };

export async function clusterScope(
  prisma: Pick<PrismaClient, 'userCluster' | 'userSubscription'>,
  caller: Pick<Caller, 'userId' | 'isAdmin'>,
): Promise<ClusterScope> {
  if (caller.isAdmin) return { all: true };
  // Assignments are keyed by the user's uuid; a caller without one has none.
  if (!GUID.test(caller.userId)) return NOTHING;
  const [names, subs] = await Promise.all([
    prisma.userCluster.findMany({ where: { userId: caller.userId }, select: { clusterName: true } }),
    prisma.userSubscription.findMany({ where: { userId: caller.userId }, select: { subscriptionId: true } }),
  ]);
  return {
    all: false,
    clusterNames: new Set(names.map((n) => normalizeCluster(n.clusterName))),
    // A uuid column: PostgreSQL answers it in lower case.
    subscriptionIds: new Set(subs.map((s) => s.subscriptionId)),
  };
}

/** The rule itself: whether a scope lets its caller see a cluster. */
export function seesCluster(scope: ClusterScope, cluster: ClusterIdentity): boolean {
  if (scope.all) return true;
  return (
    cluster.names.some((n) => !!n && scope.clusterNames.has(normalizeCluster(n))) ||
    cluster.subscriptionIds.some((s) => !!s && scope.subscriptionIds.has(s.toLowerCase()))
  );
}

/** The subscription of a resource id (`/subscriptions/<id>/…`), lower case. */
export function subscriptionOfResourceId(id: string): string | null {
  return /^\/subscriptions\/([^/]+)\//i.exec(id)?.[1]?.toLowerCase() ?? null;
}

/** An agent's cluster as the rule knows it: its name and the subscriptions of its nodes' scale sets. */
export function agentIdentity(a: Pick<AgentCluster, 'clusterName' | 'scaleSetIds'>): ClusterIdentity {
  return { names: [a.clusterName], subscriptionIds: a.scaleSetIds.map(subscriptionOfResourceId) };
}

export interface AccessDeps {
  prisma: Pick<PrismaClient, 'userCluster' | 'userSubscription'>;
  /** The agents' clusters with their scale sets (read only for a caller with subscriptions). */
  finops: { kubernetesUsage: { clusters(): Promise<AgentCluster[]> } };
}

/**
 * The agent clusters a caller may see, by the rule above, in lower case as metrics store them:
 * undefined for administrators (all of them).
 */
export async function visibleClusters(
  deps: AccessDeps,
  caller: Pick<Caller, 'userId' | 'isAdmin'>,
): Promise<string[] | undefined> {
  const scope = await clusterScope(deps.prisma, caller);
  if (scope.all) return undefined;
  const visible = new Set(scope.clusterNames);
  if (scope.subscriptionIds.size > 0) {
    for (const a of await deps.finops.kubernetesUsage.clusters())
      if (seesCluster(scope, agentIdentity(a))) visible.add(normalizeCluster(a.clusterName));
  }
  return [...visible];
}

/** Whether a cluster is in a visible set (undefined: all are). */
export function canSee(visible: string[] | undefined, clusterName: string): boolean {
  return visible === undefined || visible.includes(normalizeCluster(clusterName));
}

/**
 * The scope of a read that names a cluster: 403 when the caller may not see it (rather than an
 * empty list, so a typo and a missing assignment are told apart).
 */
export function requireVisible(visible: string[] | undefined, clusterName: string | undefined): void {
  if (clusterName !== undefined && !canSee(visible, clusterName)) {
    throw forbidden(`You have no access to the cluster ${clusterName}; an administrator assigns clusters.`);
  }
}

/**
 * What a read or change that may name a cluster works on: the caller's visible clusters and the
 * named cluster in stored (lower) case, or 403 when the caller may not see it.
 */
export async function clusterAccess<Name extends string | undefined>(
  deps: AccessDeps,
  caller: Pick<Caller, 'userId' | 'isAdmin'>,
  clusterName: Name,
): Promise<{ visible: string[] | undefined; clusterName: Name }> {
  const visible = await visibleClusters(deps, caller);
  // A name stays a name and no name stays none, so the caller's type carries over.
  const name = (clusterName === undefined ? undefined : normalizeCluster(clusterName)) as Name;
  requireVisible(visible, name);
  return { visible, clusterName: name };
}
