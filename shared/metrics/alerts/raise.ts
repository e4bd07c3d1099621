/**
 * Writes MetricsAlert rows and, in the same transaction, one outbox row per alert and notification
 * channel mapped to the alert's cluster: an alert is stored and queued for sending together, or
 * not at all. The outbox (shared/notify/outbox.ts) delivers it from any instance.
 */
import type { Prisma } from '../../db/generated/client.js';

export type AlertKind = 'node' | 'nodeSilence' | 'clusterSilence';

export interface NewAlert {
  kind: AlertKind;
  /** Lower-case. */
  clusterName: string;
  /** The node, or '' for a whole cluster. */
  nodeName: string;
  timeStamp: Date;
  /** true: healthy, or reporting again. */
  status: boolean;
  message: string;
  /** Extra facts for webhooks (the node's conditions, how long it was silent). */
  data?: Record<string, unknown>;
}

type Tx = Prisma.TransactionClient;

/** Stores the alerts and queues their notifications; returns the new alert ids in input order. */
export async function raiseAlerts(tx: Tx, alerts: NewAlert[]): Promise<number[]> {
  if (!alerts.length) return [];
  // One statement for any number of alerts (a cluster falling silent raises one per node at most).
  const rows = await tx.$queryRawUnsafe<Array<{ id: number; ord: bigint | number }>>(
    `INSERT INTO "MetricsAlerts" ("kind", "clusterName", "nodeName", "timeStamp", "status", "message")
     SELECT kind, cluster, node, ts, status, message
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp[], $5::boolean[], $6::text[])
            WITH ORDINALITY AS a(kind, cluster, node, ts, status, message, ord)
      ORDER BY ord
     RETURNING id`,
    alerts.map((a) => a.kind),
    alerts.map((a) => a.clusterName),
    alerts.map((a) => a.nodeName),
    // timestamp without zone holds the UTC wall clock, as the original's DATETIME2 did.
    alerts.map((a) => a.timeStamp.toISOString().replace('Z', '')),
    alerts.map((a) => a.status),
    alerts.map((a) => a.message),
  );
  // RETURNING follows the insertion order of INSERT … SELECT … ORDER BY, i.e. the input order.
  const ids = rows.map((r) => Number(r.id));
  const clusters = [...new Set(alerts.map((a) => a.clusterName))];
  const mappings = await tx.metricsNotification.findMany({
    where: { clusterName: { in: clusters } },
    select: { clusterName: true, notificationId: true },
  });
  if (!mappings.length) return ids;
  const data: Prisma.NotificationDeliveryCreateManyInput[] = [];
  alerts.forEach((a, i) => {
    const id = ids[i]!;
    for (const m of mappings) {
      if (m.clusterName !== a.clusterName) continue;
      const title = alertTitle(a);
      data.push({
        channelId: m.notificationId,
        eventKey: `metricsAlert:${id}`,
        eventType: 'metricsAlert',
        payload: {
          key: `metricsAlert:${id}`,
          type: 'metricsAlert',
          clusterName: a.clusterName,
          title,
          text: `${a.message} (cluster ${a.clusterName}, ${a.timeStamp.toISOString()})`,
          data: {
            alertId: id,
            kind: a.kind,
            clusterName: a.clusterName,
            nodeName: a.nodeName || null,
            status: a.status,
            timeStamp: a.timeStamp.toISOString(),
            message: a.message,
            ...a.data,
          },
        } as Prisma.InputJsonValue,
      });
    }
  });
  await tx.notificationDelivery.createMany({ data, skipDuplicates: true });
  return ids;
}

function alertTitle(a: NewAlert): string {
  const state = a.status ? 'OK' : 'ALERT';
  if (a.kind === 'clusterSilence')
    return `${state}: cluster ${a.clusterName} ${a.status ? 'reports again' : 'stopped reporting'}`;
  if (a.kind === 'nodeSilence')
    return `${state}: node ${a.nodeName} (${a.clusterName}) ${a.status ? 'reports again' : 'stopped reporting'}`;
  return `${state}: node ${a.nodeName} (${a.clusterName}) ${a.status ? 'is healthy' : 'has issues'}`;
}
