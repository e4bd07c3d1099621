import { z } from 'zod';
import type { NotificationChannel } from '../../db/generated/client.js';
import { subscriptionId, text } from '../../http/fields.js';
import { badRequest, HttpError, notFound } from '../../http/problem.js';
import { json, noContent, ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { sendToChannel } from '../../notify/send.js';
import { allowPrivateTargets, assertPublicTarget, TargetRefused } from '../../notify/target-guard.js';
import { channelById, createChannel, deleteChannel, listChannels } from '../queries/notification-channels.js';
import { idParams } from './read/common.js';

export const ChannelIn = z
  .object({
    name: text(200),
    kind: z.enum(['email', 'slack', 'teams', 'webhook']),
    target: text(2000).describe('email address or webhook URL (never answered back)'),
    secret: z
      .string()
      .min(16)
      .max(500)
      .optional()
      .describe('HMAC-SHA256 key of a generic webhook (required for it; never answered back)'),
    minImpact: z
      .number()
      .min(0)
      .optional()
      .describe('anomalies with a smaller |impact| a day are not sent here (default 0)'),
    subscriptionId: subscriptionId().nullable().optional().describe('only this subscription (default: all)'),
  })
  .superRefine((b, ctx) => {
    if (b.kind === 'email' && !z.email().safeParse(b.target).success) {
      ctx.addIssue({
        code: 'custom',
        path: ['target'],
        message: 'The target of an email channel must be an email address.',
      });
    }
    if (b.kind === 'webhook' && !b.secret) {
      ctx.addIssue({
        code: 'custom',
        path: ['secret'],
        message: 'A generic webhook channel needs a secret to sign its deliveries.',
      });
    }
  });

export const ChannelOut = z.object({
  id: z.number().int(),
  name: z.string(),
  kind: z.enum(['email', 'slack', 'teams', 'webhook']),
  targetHint: z.string().describe('the target with its secret parts hidden'),
  hasSecret: z.boolean(),
  minImpact: z.number(),
  subscriptionId: z.string().nullable(),
  createdAt: z.string(),
});

/** The target with what may be secret left out: a webhook URL's path often is its credential. */
export function targetHint(kind: string, target: string): string {
  if (kind === 'email') return target.replace(/^(.).*(@.*)$/, '$1***$2');
  try {
    return `${new URL(target).origin}/***`;
  } catch {
    return '***';
  }
}

function channelOut(c: NotificationChannel): z.infer<typeof ChannelOut> {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind as 'email',
    targetHint: targetHint(c.kind, c.target),
    hasSecret: c.secret !== null,
    minImpact: Number(c.minImpact),
    subscriptionId: c.subscriptionId,
    createdAt: c.createdAt.toISOString(),
  };
}

const tags = ['NotificationChannels'];

/** 422 when the target is, or its name resolves to, a non-public address, or does not resolve. */
async function refuseNonPublic(url: URL): Promise<void> {
  const invalid = (detail: string) =>
    new HttpError(422, detail, {
      errors: { target: [detail] },
      title: 'The webhook target is not allowed.',
    });
  try {
    await assertPublicTarget(url);
  } catch (err) {
    if (err instanceof TargetRefused) throw invalid(err.message);
    const code = (err as { code?: string }).code;
    throw invalid(`The webhook target's host ${url.hostname} does not resolve${code ? ` (${code})` : ''}.`);
  }
}

export const notificationRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-notification-channels',
    service: 'finops',
    method: 'GET',
    path: 'NotificationChannels',
    auth: 'admin',
    openapi: {
      summary: 'Notification channels (administrators); targets and secrets are never answered',
      tags,
      responses: { 200: { description: 'channels', schema: z.array(ChannelOut) } },
    },
    async handler({ services }) {
      const rows = await listChannels(services.prisma);
      return ok(rows.map(channelOut));
    },
  }),
  defineRoute({
    name: 'finops-notification-channel-create',
    service: 'finops',
    method: 'POST',
    path: 'NotificationChannels',
    auth: 'admin',
    openapi: {
      summary:
        'Creates a channel: email (the app mailer), slack or teams (incoming webhook, {"text"}), webhook (JSON signed with HMAC-SHA256 in X-Finwatch-Signature)',
      description:
        'Events: a new anomaly with |impact| ≥ minImpact, the forecast crossing into atRisk or overBudget, the actual ' +
        'crossing 80 % and 100 % of the budget, an analysis failing. Each event is sent once per channel.',
      tags,
      responses: {
        201: { description: 'the channel', schema: ChannelOut },
        422: {
          description:
            'the webhook target is or resolves to a loopback, private, link-local, CGNAT, unspecified or multicast address (unless Notifications__AllowPrivateTargets), or does not resolve',
        },
      },
    },
    input: { body: ChannelIn },
    async handler({ services, input, caller, request }) {
      const b = input.body;
      if (b.kind !== 'email') {
        let url: URL | undefined;
        try {
          url = new URL(b.target);
        } catch {
          url = undefined;
        }
        const allowHttp = services.config.isDevelopment;
        if (!url || !(url.protocol === 'https:' || (allowHttp && url.protocol === 'http:'))) {
          throw badRequest('The target of a webhook channel must be an https URL.', {
            target: ['Not an https URL.'],
          });
        }
        if (!allowPrivateTargets(services.config)) await refuseNonPublic(url);
      }
      const row = await createChannel(
        services.prisma,
        {
          name: b.name,
          kind: b.kind,
          target: b.target,
          secret: b.secret ?? null,
          minImpact: b.minImpact ?? 0,
          subscriptionId: b.subscriptionId ?? null,
          createdBy: caller.email || caller.userId,
        },
        // The target and secret stay out of the trail: a webhook URL is itself a credential.
        (created) => ({
          actor: caller,
          action: 'notificationChannel.created',
          target: { type: 'notificationChannel', id: created.id },
          details: { name: created.name, kind: created.kind, subscriptionId: created.subscriptionId },
          request,
        }),
      );
      return json(201, channelOut(row));
    },
  }),
  defineRoute({
    name: 'finops-notification-channel-test',
    service: 'finops',
    method: 'POST',
    path: 'NotificationChannels/{id}/test',
    auth: 'admin',
    openapi: {
      summary: 'Sends a test message to the channel now (not through the outbox)',
      tags,
      responses: {
        200: {
          description: '{ delivered, error }',
          schema: z.object({ delivered: z.boolean(), error: z.string().nullable() }),
        },
        404: { description: 'no such channel' },
      },
    },
    input: { params: idParams },
    async handler({ services, input }) {
      const id = input.params.id;
      const channel = await channelById(services.prisma, id);
      if (!channel) throw notFound(`Notification channel ${id} not found.`);
      try {
        await sendToChannel(
          channel,
          {
            key: `test:${Date.now()}`,
            type: 'test',
            subscriptionId: '',
            title: 'finwatch test message',
            text: `finwatch test message for channel "${channel.name}".`,
            data: {},
          },
          `test-${id}`,
          services.auth.mailer,
          { allowPrivateTargets: allowPrivateTargets(services.config) },
        );
        return ok({ delivered: true, error: null });
      } catch (err) {
        return ok({ delivered: false, error: (err as Error).message });
      }
    },
  }),
  defineRoute({
    name: 'finops-notification-channel-delete',
    service: 'finops',
    method: 'DELETE',
    path: 'NotificationChannels/{id}',
    auth: 'admin',
    openapi: {
      summary: 'Deletes a channel and its pending deliveries',
      tags,
      responses: { 204: { description: 'deleted' }, 404: { description: 'no such channel' } },
    },
    input: { params: idParams },
    async handler({ services, input, caller, request }) {
      const id = input.params.id;
      const deleted = await deleteChannel(services.prisma, id, () => ({
        actor: caller,
        action: 'notificationChannel.deleted',
        target: { type: 'notificationChannel', id },
        request,
      }));
      if (!deleted) throw notFound(`Notification channel ${id} not found.`);
      return noContent();
    },
  }),
];
