/**
 * Sends one event to one channel: email through the app's mailer, Slack- and Teams-compatible
 * incoming webhooks (`{"text": ...}`, which both accept), or a generic JSON webhook whose body is
 * signed with HMAC-SHA256 (X-Finwatch-Signature: sha256=<hex>) so the receiver can check it is us.
 */
import { createHmac } from 'node:crypto';
import { fetch } from 'undici';
import type { Mailer } from '../email/mailer.js';
import { assertPublicLiteral, publicOnlyAgent, TargetRefused } from './target-guard.js';

export interface ChannelTarget {
  id: number;
  kind: string;
  target: string;
  secret: string | null;
}

export interface OutgoingEvent {
  key: string;
  type: string;
  /** FinOps events: the subscription. */
  subscriptionId?: string;
  /** Metrics alerts: the cluster (lower-case). */
  clusterName?: string;
  title: string;
  text: string;
  data: unknown;
}

export const SEND_TIMEOUT_MS = 10_000;

export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export interface SendOptions {
  /** Whether a webhook may point at loopback, private, link-local and other non-public addresses. */
  allowPrivateTargets: boolean;
}

export async function sendToChannel(
  channel: ChannelTarget,
  event: OutgoingEvent,
  deliveryId: number | string,
  mailer: Pick<Mailer, 'send'>,
  options: SendOptions,
): Promise<void> {
  if (channel.kind === 'email') {
    await mailer.send({ to: channel.target, subject: `[finwatch] ${event.title}`, text: event.text });
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let body: string;
  if (channel.kind === 'webhook') {
    body = JSON.stringify({
      deliveryId,
      event: event.type,
      key: event.key,
      ...(event.subscriptionId !== undefined ? { subscriptionId: event.subscriptionId } : {}),
      ...(event.clusterName !== undefined ? { clusterName: event.clusterName } : {}),
      title: event.title,
      text: event.text,
      data: event.data,
    });
    headers['x-finwatch-event'] = event.type;
    headers['x-finwatch-delivery'] = String(deliveryId);
    if (channel.secret) headers['x-finwatch-signature'] = signature(channel.secret, body);
  } else {
    body = JSON.stringify({ text: event.text });
  }
  const url = new URL(channel.target);
  // An address literal never goes through the connection's lookup: it is checked here.
  if (!options.allowPrivateTargets) assertPublicLiteral(url);
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      // A redirect is an answer, not a second target: following it would reach wherever it says.
      redirect: 'manual',
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      ...(options.allowPrivateTargets ? {} : { dispatcher: publicOnlyAgent() }),
    });
  } catch (err) {
    // fetch reports a refused connection as "fetch failed"; the refusal is the useful part.
    const cause = (err as { cause?: unknown }).cause;
    throw cause instanceof TargetRefused ? cause : err;
  }
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new Error(`the webhook answered ${res.status}`);
}
