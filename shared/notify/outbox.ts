/**
 * Delivers the notification outbox. Any number of instances may run this at once: a batch is
 * claimed in one UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED), so two instances never
 * hold the same row; a claim that outlives CLAIM_SECONDS (its instance crashed mid-send) becomes
 * claimable again, so nothing is lost. Failures retry with exponential backoff up to maxAttempts.
 */
import type { AppServices } from '../app/services.js';
import type { PrismaClient } from '../db/client.js';
import type { Mailer } from '../email/mailer.js';
import type { Logger } from '../observability/logger.js';
import { type OutgoingEvent, SEND_TIMEOUT_MS, sendToChannel } from './send.js';
import { allowPrivateTargets, TargetRefused } from './target-guard.js';

export interface OutboxDeps {
  prisma: PrismaClient;
  mailer: Pick<Mailer, 'send'>;
  log: Logger;
  maxAttempts: number;
  /** Whether webhooks may point at non-public addresses (allowPrivateTargets in target-guard.ts). */
  allowPrivateTargets: boolean;
}

/** What the outbox needs from an app's services: the one place both hosts assemble it. */
export function outboxDeps(services: Pick<AppServices, 'prisma' | 'auth' | 'log' | 'config'>): OutboxDeps {
  return {
    prisma: services.prisma,
    mailer: services.auth.mailer,
    log: services.log,
    maxAttempts: services.config.finops.Notifications__MaxAttempts,
    allowPrivateTargets: allowPrivateTargets(services.config),
  };
}

/** Longer than one send can take, so a live instance never loses its claim mid-send. */
export const CLAIM_SECONDS = Math.ceil((SEND_TIMEOUT_MS * 6) / 1000);
const BATCH = 20;

export function backoffSeconds(attempt: number): number {
  return Math.min(3600, 10 * 2 ** Math.max(0, attempt - 1));
}

interface Claimed {
  id: number;
  channelId: number;
  attempts: number;
  payload: OutgoingEvent;
}

/** Claims and sends what is due; returns how many were sent. */
export async function deliverDue(deps: OutboxDeps): Promise<number> {
  const claimed = await deps.prisma.$queryRawUnsafe<Claimed[]>(
    `UPDATE "NotificationDeliveries" d
        SET status = 'sending', attempts = d.attempts + 1,
            "claimedUntil" = now() + make_interval(secs => $1)
      WHERE d.id IN (
        SELECT id FROM "NotificationDeliveries"
         WHERE (status = 'pending' AND "nextAttemptAt" <= now())
            OR (status = 'sending' AND "claimedUntil" < now())
         ORDER BY id
         LIMIT $2
         FOR UPDATE SKIP LOCKED)
      RETURNING d.id, d."channelId", d.attempts, d.payload`,
    CLAIM_SECONDS,
    BATCH,
  );
  let sent = 0;
  for (const row of claimed) {
    const channel = await deps.prisma.notificationChannel.findUnique({ where: { id: row.channelId } });
    if (!channel) continue; // deleted: its rows went with it (cascade)
    try {
      await sendToChannel(channel, row.payload, row.id, deps.mailer, deps);
      await deps.prisma.notificationDelivery.updateMany({
        where: { id: row.id, status: 'sending' },
        data: { status: 'sent', sentAt: new Date(), claimedUntil: null, lastError: null },
      });
      sent++;
    } catch (err) {
      const reason = (err as Error).message.slice(0, 500);
      // A refused target is policy, not a hiccup: retrying would only ask the same DNS again.
      const final = row.attempts >= deps.maxAttempts || err instanceof TargetRefused;
      await deps.prisma.notificationDelivery.updateMany({
        where: { id: row.id, status: 'sending' },
        data: {
          status: final ? 'failed' : 'pending',
          claimedUntil: null,
          lastError: reason,
          nextAttemptAt: new Date(Date.now() + backoffSeconds(row.attempts) * 1000),
        },
      });
      deps.log.warn(
        { deliveryId: row.id, channelId: row.channelId, attempts: row.attempts, reason },
        final ? 'notification given up' : 'notification will be retried',
      );
    }
  }
  return sent;
}

/** Polls the outbox every intervalMs until stopped (the local host; Azure runs a timer). */
export function startNotifier(deps: OutboxDeps, intervalMs: number) {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = deliverDue(deps)
      .catch((err) => deps.log.warn({ err }, 'notification outbox pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs).unref();
      });
  };
  let timer = setTimeout(tick, intervalMs).unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
