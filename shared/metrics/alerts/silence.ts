/**
 * Silence: a cluster, or a node of a cluster that still reports, from which no node record arrived
 * for Metrics__SilenceAfterMinutes raises one alert (a dead agent, a node gone NotReady so hard
 * that the agent no longer lists it, a node scaled away); the alert clears when data returns
 * (applyNodeRecords). Run by a timer on every instance: the flag is set with a conditional UPDATE
 * under the cluster's row lock, so each transition is raised once whichever instance sees it first.
 *
 * Raw SQL: FOR UPDATE locking in the order the ingest transaction uses (cluster row first).
 */
import type { PrismaClient } from '../../db/client.js';
import { minutesBetween } from './node-states.js';
import { type NewAlert, raiseAlerts } from './raise.js';

/** A node silent this long is forgotten (a scaled-down node); if it ever returns it starts afresh. */
export const FORGET_NODE_AFTER_DAYS = 7;

export async function checkSilence(
  prisma: PrismaClient,
  afterMinutes: number,
  now: Date,
): Promise<NewAlert[]> {
  if (afterMinutes <= 0) return [];
  const cutoff = new Date(now.getTime() - afterMinutes * 60_000);
  const candidates = await prisma.$queryRawUnsafe<Array<{ clusterName: string }>>(
    `SELECT "clusterName" FROM "MetricsClusterStates" WHERE "silentSince" IS NULL AND "lastSeenAt" < $1::timestamptz
     UNION
     SELECT DISTINCT "clusterName" FROM "MetricsNodeStates" WHERE "silentSince" IS NULL AND "lastSeenAt" < $1::timestamptz`,
    cutoff.toISOString(),
  );
  const alerts: NewAlert[] = [];
  if (candidates.length) {
    const names = candidates.map((c) => c.clusterName).sort();
    await prisma.$transaction(async (tx) => {
      const clusters = await tx.$queryRawUnsafe<
        Array<{ clusterName: string; lastSeenAt: Date; silentSince: Date | null }>
      >(
        `SELECT "clusterName", "lastSeenAt", "silentSince" FROM "MetricsClusterStates"
          WHERE "clusterName" = ANY($1::text[]) ORDER BY "clusterName" FOR UPDATE`,
        names,
      );
      const reporting: string[] = [];
      for (const c of clusters) {
        if (c.silentSince) continue;
        const last = new Date(c.lastSeenAt);
        if (last < cutoff) {
          alerts.push({
            kind: 'clusterSilence',
            clusterName: c.clusterName,
            nodeName: '',
            timeStamp: now,
            status: false,
            message: `Cluster ${c.clusterName} has sent no node data for ${minutesBetween(last, now)} minutes: its agent may be down.`,
            data: { lastSeenAt: last.toISOString() },
          });
        } else reporting.push(c.clusterName);
      }
      const silentClusters = alerts.map((a) => a.clusterName);
      if (silentClusters.length) {
        await tx.$executeRawUnsafe(
          `UPDATE "MetricsClusterStates" SET "silentSince" = $2::timestamptz WHERE "clusterName" = ANY($1::text[])`,
          silentClusters,
          now.toISOString(),
        );
      }
      // Nodes only of clusters that still report: a silent cluster's nodes are its one alert.
      if (reporting.length) {
        const nodes = await tx.$queryRawUnsafe<
          Array<{ clusterName: string; nodeName: string; lastSeenAt: Date }>
        >(
          `UPDATE "MetricsNodeStates" SET "silentSince" = $3::timestamptz
            WHERE "clusterName" = ANY($1::text[]) AND "silentSince" IS NULL AND "lastSeenAt" < $2::timestamptz
            RETURNING "clusterName", "nodeName", "lastSeenAt"`,
          reporting,
          cutoff.toISOString(),
          now.toISOString(),
        );
        nodes.sort(
          (a, b) => a.clusterName.localeCompare(b.clusterName) || a.nodeName.localeCompare(b.nodeName),
        );
        for (const n of nodes) {
          const last = new Date(n.lastSeenAt);
          alerts.push({
            kind: 'nodeSilence',
            clusterName: n.clusterName,
            nodeName: n.nodeName,
            timeStamp: now,
            status: false,
            message: `Node ${n.nodeName} has sent no data for ${minutesBetween(last, now)} minutes while its cluster still reports.`,
            data: { lastSeenAt: last.toISOString() },
          });
        }
      }
      await raiseAlerts(tx, alerts);
    });
  }
  await prisma.$executeRawUnsafe(
    `DELETE FROM "MetricsNodeStates" WHERE "lastSeenAt" < $1::timestamptz`,
    new Date(now.getTime() - FORGET_NODE_AFTER_DAYS * 86_400_000).toISOString(),
  );
  return alerts;
}
