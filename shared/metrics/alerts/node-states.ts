/**
 * Node status alerts decided from state stored in the database. Each ingest request's node records
 * run in one transaction that locks the cluster's row, then its nodes' rows in name order, compares
 * each record with the stored conditions and writes the new ones: two instances (or a retried
 * request) can never both see the same change, a restart loses nothing, and a record collected
 * before the stored one (a late retry) never turns the state back.
 *
 * Raw SQL: the lock-then-compare needs SELECT … FOR UPDATE and set-based writes over arrays
 * (unnest), which Prisma's query API does not express; one statement per step whatever the size.
 */
import type { PrismaClient } from '../../db/client.js';
import type { Prisma } from '../../db/generated/client.js';
import { normalizeCluster } from '../records.js';
import { conditionsDiffer, isHealthy, type NodeConditions, statusMessage } from './conditions.js';
import { type NewAlert, raiseAlerts } from './raise.js';

export interface NodeStatusRecord extends NodeConditions {
  nodeName: string;
  /** When the agent collected it (the server's receipt time for the one-object posts). */
  collectedAt: Date;
}

interface StoredState extends NodeConditions {
  nodeName: string;
  conditionsAt: Date;
  silentSince: Date | null;
}

type Tx = Prisma.TransactionClient;

const CONDITION_COLUMNS = '"isReady", "hasMemoryPressure", "hasDiskPressure", "hasPidPressure"';

/**
 * Applies one request's node records (any order, any number per node) and returns the alerts it
 * raised. `now` is the server's clock: when the node and the cluster were last heard from.
 */
export async function applyNodeRecords(
  prisma: PrismaClient,
  clusterName: string,
  records: NodeStatusRecord[],
  now: Date,
): Promise<NewAlert[]> {
  const cluster = normalizeCluster(clusterName);
  const usable = records.filter((r) => r.nodeName && !Number.isNaN(r.collectedAt.getTime()));
  if (!cluster || !usable.length) return [];
  const byNode = new Map<string, NodeStatusRecord[]>();
  for (const r of usable) {
    const list = byNode.get(r.nodeName);
    if (list) list.push(r);
    else byNode.set(r.nodeName, [r]);
  }
  // Name order is the lock order of every transaction here: two requests never wait on each other in a cycle.
  const nodes = [...byNode.keys()].sort();
  for (const list of byNode.values()) list.sort((a, b) => a.collectedAt.getTime() - b.collectedAt.getTime());

  return prisma.$transaction(async (tx) => {
    const alerts: NewAlert[] = [];
    const back = await clusterHeardFrom(tx, cluster, now);
    if (back) {
      alerts.push({
        kind: 'clusterSilence',
        clusterName: cluster,
        nodeName: '',
        timeStamp: now,
        status: true,
        message: `Cluster ${cluster} is reporting again after ${minutesBetween(back, now)} minutes of silence.`,
        data: { silentSince: back.toISOString() },
      });
    }
    const firsts = nodes.map((n) => byNode.get(n)![0]!);
    const inserted = new Set(
      (
        await tx.$queryRawUnsafe<Array<{ nodeName: string }>>(
          `INSERT INTO "MetricsNodeStates" ("clusterName", "nodeName", ${CONDITION_COLUMNS}, "conditionsAt", "lastSeenAt")
           SELECT $1, n, r, m, d, p, c, $8::timestamptz
             FROM unnest($2::text[], $3::boolean[], $4::boolean[], $5::boolean[], $6::boolean[], $7::timestamptz[])
                  AS u(n, r, m, d, p, c)
            ORDER BY n
           ON CONFLICT ("clusterName", "nodeName") DO NOTHING
           RETURNING "nodeName"`,
          cluster,
          nodes,
          firsts.map((r) => r.isReady),
          firsts.map((r) => r.hasMemoryPressure),
          firsts.map((r) => r.hasDiskPressure),
          firsts.map((r) => r.hasPidPressure),
          firsts.map((r) => r.collectedAt.toISOString()),
          now.toISOString(),
        )
      ).map((r) => r.nodeName),
    );
    const states = await tx.$queryRawUnsafe<StoredState[]>(
      `SELECT "nodeName", ${CONDITION_COLUMNS}, "conditionsAt", "silentSince"
         FROM "MetricsNodeStates"
        WHERE "clusterName" = $1 AND "nodeName" = ANY($2::text[])
        ORDER BY "nodeName"
          FOR UPDATE`,
      cluster,
      nodes,
    );
    const updated: StoredState[] = [];
    for (const state of states) {
      const list = byNode.get(state.nodeName)!;
      // A node's first record primes its state: there is nothing to compare it with.
      const rest = inserted.has(state.nodeName) ? list.slice(1) : list;
      const current: StoredState = { ...state, conditionsAt: new Date(state.conditionsAt) };
      for (const r of rest) {
        if (r.collectedAt.getTime() <= current.conditionsAt.getTime()) continue; // late or repeated
        if (conditionsDiffer(current, r)) {
          const healthy = isHealthy(r);
          alerts.push({
            kind: 'node',
            clusterName: cluster,
            nodeName: state.nodeName,
            timeStamp: r.collectedAt,
            status: healthy,
            message: statusMessage(state.nodeName, r),
            data: {
              isReady: r.isReady,
              hasMemoryPressure: r.hasMemoryPressure,
              hasDiskPressure: r.hasDiskPressure,
              hasPidPressure: r.hasPidPressure,
              previous: {
                isReady: current.isReady,
                hasMemoryPressure: current.hasMemoryPressure,
                hasDiskPressure: current.hasDiskPressure,
                hasPidPressure: current.hasPidPressure,
              },
            },
          });
        }
        current.isReady = r.isReady;
        current.hasMemoryPressure = r.hasMemoryPressure;
        current.hasDiskPressure = r.hasDiskPressure;
        current.hasPidPressure = r.hasPidPressure;
        current.conditionsAt = r.collectedAt;
      }
      if (state.silentSince) {
        const since = new Date(state.silentSince);
        alerts.push({
          kind: 'nodeSilence',
          clusterName: cluster,
          nodeName: state.nodeName,
          timeStamp: now,
          status: true,
          message: `Node ${state.nodeName} is reporting again after ${minutesBetween(since, now)} minutes of silence.`,
          data: { silentSince: since.toISOString() },
        });
      }
      if (!inserted.has(state.nodeName)) updated.push(current);
    }
    if (updated.length) {
      await tx.$executeRawUnsafe(
        `UPDATE "MetricsNodeStates" s
            SET "isReady" = u.r, "hasMemoryPressure" = u.m, "hasDiskPressure" = u.d, "hasPidPressure" = u.p,
                "conditionsAt" = u.c, "lastSeenAt" = GREATEST(s."lastSeenAt", $8::timestamptz), "silentSince" = NULL
           FROM unnest($2::text[], $3::boolean[], $4::boolean[], $5::boolean[], $6::boolean[], $7::timestamptz[])
                AS u(n, r, m, d, p, c)
          WHERE s."clusterName" = $1 AND s."nodeName" = u.n`,
        cluster,
        updated.map((s) => s.nodeName),
        updated.map((s) => s.isReady),
        updated.map((s) => s.hasMemoryPressure),
        updated.map((s) => s.hasDiskPressure),
        updated.map((s) => s.hasPidPressure),
        updated.map((s) => s.conditionsAt.toISOString()),
        now.toISOString(),
      );
    }
    await raiseAlerts(tx, alerts);
    return alerts;
  });
}

/**
 * Marks the cluster heard from now, locking its row for the rest of the transaction (the first
 * lock every metrics-state transaction takes). Returns when it had been silent, if it was.
 */
async function clusterHeardFrom(tx: Tx, cluster: string, now: Date): Promise<Date | undefined> {
  const [row] = await tx.$queryRawUnsafe<Array<{ silentSince: Date | null }>>(
    `INSERT INTO "MetricsClusterStates" ("clusterName", "lastSeenAt") VALUES ($1, $2::timestamptz)
     ON CONFLICT ("clusterName") DO UPDATE
        SET "lastSeenAt" = GREATEST("MetricsClusterStates"."lastSeenAt", EXCLUDED."lastSeenAt")
     RETURNING "silentSince"`,
    cluster,
    now.toISOString(),
  );
  if (!row?.silentSince) return undefined;
  await tx.$executeRawUnsafe(
    `UPDATE "MetricsClusterStates" SET "silentSince" = NULL WHERE "clusterName" = $1`,
    cluster,
  );
  return new Date(row.silentSince);
}

export function minutesBetween(from: Date, to: Date): number {
  return Math.max(0, Math.round((to.getTime() - from.getTime()) / 60_000));
}
