import type { Caller } from '../auth/caller.js';
import type { PrismaClient } from '../db/client.js';
import { forbidden } from '../http/problem.js';
import { normalizeCluster } from './records.js';

/**
 * The clusters a caller may see: administrators every cluster (undefined), anyone else the clusters
 * an administrator assigned to them (the auth service's UserClusters), in lower case as metrics
 * store them. The original left this to the browser; here every read route applies it in the query.
 */
export async function visibleClusters(
  prisma: Pick<PrismaClient, 'userCluster'>,
  caller: Pick<Caller, 'userId' | 'isAdmin'>,
): Promise<string[] | undefined> {
  if (caller.isAdmin) return undefined;
  const rows = await prisma.userCluster.findMany({
    where: { userId: caller.userId },
    select: { clusterName: true },
  });
  return [...new Set(rows.map((r) => normalizeCluster(r.clusterName)))];
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
