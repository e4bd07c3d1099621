/**
 * Cost intelligence events and their outbox rows: one per event and channel, keyed so the same
 * event enqueued again (a later run, another instance) is the same row and is sent once.
 */
import type { PrismaClient } from '../db/client.js';
import type { Prisma } from '../db/generated/client.js';

export type EventType = 'anomaly' | 'forecast' | 'budget' | 'analysisFailed';

export interface NotifyEvent {
  /** Unique per event: anomaly:<id>, forecast:<sub>:<yyyy-MM>:<status>, budget:<sub>:<yyyy-MM>:<80|100>, analysisFailed:<job id>. */
  key: string;
  type: EventType;
  subscriptionId: string;
  /** |impact| of an anomaly, compared with a channel's minimum impact; undefined for other events. */
  impact?: number;
  title: string;
  text: string;
  data: Record<string, unknown>;
}

type Tx = Pick<PrismaClient, 'notificationChannel' | 'notificationDelivery'> | Prisma.TransactionClient;

/** Writes the outbox rows of the events for every channel they concern; existing rows stay. */
export async function enqueueEvents(tx: Tx, events: NotifyEvent[]): Promise<number> {
  if (!events.length) return 0;
  const channels = await tx.notificationChannel.findMany({
    select: { id: true, minImpact: true, subscriptionId: true },
  });
  const data: Prisma.NotificationDeliveryCreateManyInput[] = [];
  for (const e of events) {
    for (const c of channels) {
      if (c.subscriptionId && c.subscriptionId !== e.subscriptionId) continue;
      if (e.impact !== undefined && Math.abs(e.impact) < Number(c.minImpact)) continue;
      data.push({
        channelId: c.id,
        eventKey: e.key,
        eventType: e.type,
        payload: {
          key: e.key,
          type: e.type,
          subscriptionId: e.subscriptionId,
          title: e.title,
          text: e.text,
          data: e.data,
        } as Prisma.InputJsonValue,
      });
    }
  }
  if (!data.length) return 0;
  const r = await tx.notificationDelivery.createMany({ data, skipDuplicates: true });
  return r.count;
}

const money = (n: number, currency: string) => `${n.toFixed(2)} ${currency}`;

export function anomalyEvent(a: {
  id: number;
  subscriptionId: string;
  scopeKind: string;
  scopeName: string;
  kind: string;
  date: Date;
  impact: number;
  currency: string;
}): NotifyEvent {
  const day = a.date.toISOString().slice(0, 10);
  const title = `Cost anomaly: ${a.kind} on ${a.scopeKind} ${a.scopeName}`;
  return {
    key: `anomaly:${a.id}`,
    type: 'anomaly',
    subscriptionId: a.subscriptionId,
    impact: a.impact,
    title,
    text: `${title} (subscription ${a.subscriptionId}) on ${day}: impact ${money(a.impact, a.currency)} a day.`,
    data: {
      anomalyId: a.id,
      kind: a.kind,
      scope: { kind: a.scopeKind, name: a.scopeName },
      date: day,
      impact: a.impact,
      currency: a.currency,
    },
  };
}

export function forecastEvent(f: {
  subscriptionId: string;
  monthStart: string;
  budgetStatus: string;
  forecastMonthEnd: number;
  budget: number | null;
  currency: string;
}): NotifyEvent {
  const title = `Forecast ${f.budgetStatus === 'overBudget' ? 'over budget' : 'at risk'}: ${f.subscriptionId}`;
  return {
    key: `forecast:${f.subscriptionId}:${f.monthStart.slice(0, 7)}:${f.budgetStatus}`,
    type: 'forecast',
    subscriptionId: f.subscriptionId,
    title,
    text: `${title}: month-end forecast ${money(f.forecastMonthEnd, f.currency)} against a budget of ${money(f.budget ?? 0, f.currency)}.`,
    data: { ...f },
  };
}

export function budgetEvent(b: {
  subscriptionId: string;
  monthStart: string;
  threshold: 80 | 100;
  actualToDate: number;
  budget: number;
  currency: string;
}): NotifyEvent {
  const title = `Actual cost reached ${b.threshold} % of budget: ${b.subscriptionId}`;
  return {
    key: `budget:${b.subscriptionId}:${b.monthStart.slice(0, 7)}:${b.threshold}`,
    type: 'budget',
    subscriptionId: b.subscriptionId,
    title,
    text: `${title} (${money(b.actualToDate, b.currency)} of ${money(b.budget, b.currency)}).`,
    data: { ...b },
  };
}

export function analysisFailedEvent(j: { id: string; subscriptionId: string; message: string }): NotifyEvent {
  const title = `Analysis failed: ${j.subscriptionId}`;
  return {
    key: `analysisFailed:${j.id}`,
    type: 'analysisFailed',
    subscriptionId: j.subscriptionId,
    title,
    text: `${title}: ${j.message}`,
    data: { jobId: j.id, message: j.message },
  };
}
