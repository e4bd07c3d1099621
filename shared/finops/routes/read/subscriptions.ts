import { z } from 'zod';
import { withAudit } from '../../../audit/record.js';
import { Prisma } from '../../../db/generated/client.js';
import { subscriptionId, subscriptionKey } from '../../../http/fields.js';
import { conflict, notFound } from '../../../http/problem.js';
import { noContent, ok } from '../../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../../http/route.js';
import { Problem, Subscription } from '../../contract/schemas.js';
import { subscriptionOut } from '../../queries/mappers.js';
import {
  deleteSubscription,
  listSubscriptions,
  subscriptionByCloudId,
  subscriptionById,
  updateSubscription,
  upsertSubscription,
} from '../../queries/subscriptions.js';
import { idParams, pagedHeaders, pageOf, pagingQuery, UNPAGED_NOTE } from './common.js';

const MONEY_LIMIT = 1e16; // decimal(18,2): 16 integer digits

/** A money amount: a JSON number or a numeric string (ASP.NET accepted both), never negative. */
const Money = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
      .transform(Number),
  ])
  .pipe(z.number().finite().min(0, 'must not be negative').lt(MONEY_LIMIT, 'is too large for decimal(18,2)'));

const Description = z.string().max(1000, 'must be at most 1000 characters').nullable().optional();

const CreateSubscriptionDto = z.object({
  // The original's messages, whole sentences.
  subscriptionId: subscriptionId({
    required: 'SubscriptionId is required',
    notGuid: 'SubscriptionId must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)',
  }).describe('Required: the cloud subscription GUID (any case; stored in lower case).'),
  description: Description,
  budget: Money.nullable().optional(),
  infraSupportCost: Money.nullable().optional(),
});

const UpdateSubscriptionDto = z.object({
  description: Description,
  budget: Money.nullable().optional(),
  infraSupportCost: Money.nullable().optional(),
});

const NOT_FOUND = 'Subscription not found';
const tags = ['Subscriptions'];
const notFoundDoc = { description: `problem+json, detail "${NOT_FOUND}"`, schema: Problem };

export const subscriptionsRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-subscriptions-list',
    service: 'finops',
    method: 'GET',
    path: 'Subscriptions',
    auth: 'user',
    openapi: {
      summary: 'Every Subscriptions row, by subscriptionId',
      description: UNPAGED_NOTE,
      tags,
      responses: { 200: { description: 'Subscription[]', schema: z.array(Subscription) } },
    },
    input: { query: pagingQuery },
    async handler({ services, input }) {
      const p = pageOf(input.query);
      const { rows, total } = await listSubscriptions(services.prisma, p.skip, p.pageSize);
      return ok(rows.map(subscriptionOut), pagedHeaders(total, p));
    },
  }),
  defineRoute({
    name: 'finops-subscriptions-by-subscription-id',
    service: 'finops',
    method: 'GET',
    path: 'Subscriptions/by-subscription-id/{subscriptionId}',
    auth: 'user',
    openapi: {
      summary: 'The row of a cloud subscription id (case-insensitive, trimmed)',
      tags,
      responses: { 200: { description: 'Subscription', schema: Subscription }, 404: notFoundDoc },
    },
    input: { params: z.object({ subscriptionId: subscriptionKey() }) },
    async handler({ services, input }) {
      const row = await subscriptionByCloudId(services.prisma, input.params.subscriptionId);
      if (!row) throw notFound(NOT_FOUND);
      return ok(subscriptionOut(row));
    },
  }),
  defineRoute({
    name: 'finops-subscriptions-get',
    service: 'finops',
    method: 'GET',
    path: 'Subscriptions/{id}',
    auth: 'user',
    openapi: {
      summary: 'A row by primary key',
      tags,
      responses: { 200: { description: 'Subscription', schema: Subscription }, 404: notFoundDoc },
    },
    input: { params: idParams },
    async handler({ services, input }) {
      const row = await subscriptionById(services.prisma, input.params.id);
      if (!row) throw notFound(NOT_FOUND);
      return ok(subscriptionOut(row));
    },
  }),
  defineRoute({
    name: 'finops-subscriptions-upsert',
    service: 'finops',
    method: 'POST',
    path: 'Subscriptions',
    auth: 'user',
    openapi: {
      summary: 'Create or update the row of a subscriptionId',
      description:
        'subscriptionId is a GUID, trimmed. description null/omitted → "". budget omitted or null clears it. ' +
        'infraSupportCost defaults to 400 on create and changes on update only when sent. Negative amounts → 400.',
      tags,
      responses: {
        200: { description: 'The stored Subscription', schema: Subscription },
        400: { description: 'Validation problem', schema: Problem },
        409: { description: 'A concurrent insert of the same id won', schema: Problem },
      },
    },
    input: { body: CreateSubscriptionDto },
    async handler({ services, input, caller, request }) {
      const dto = input.body;
      try {
        const { row } = await withAudit(
          services.prisma,
          (tx) => upsertSubscription(tx, dto),
          ({ row: r, created }) => ({
            actor: caller,
            action: created ? 'subscription.created' : 'subscription.updated',
            target: { type: 'subscription', id: r.subscriptionId },
            details: {
              description: r.description,
              budget: dto.budget ?? null,
              infraSupportCost: dto.infraSupportCost,
            },
            request,
          }),
        );
        return ok(subscriptionOut(row));
      } catch (e) {
        if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002') {
          throw conflict('A subscription with this ID already exists');
        }
        throw e;
      }
    },
  }),
  defineRoute({
    name: 'finops-subscriptions-update',
    service: 'finops',
    method: 'PUT',
    path: 'Subscriptions/{id}',
    auth: 'user',
    openapi: {
      summary: 'Update description, budget and/or infraSupportCost',
      description:
        'Only the fields present change (a description edit keeps the budget, W10); budget null clears it.',
      tags,
      responses: { 200: { description: 'Subscription', schema: Subscription }, 404: notFoundDoc },
    },
    input: { params: idParams, body: UpdateSubscriptionDto },
    async handler({ services, input, caller, request }) {
      const { params, body: dto } = input;
      const row = await withAudit(
        services.prisma,
        (tx) => updateSubscription(tx, params.id, dto),
        (r) =>
          r
            ? {
                actor: caller,
                action: 'subscription.updated',
                target: { type: 'subscription', id: r.subscriptionId },
                details: { ...dto },
                request,
              }
            : undefined,
      );
      if (!row) throw notFound(NOT_FOUND);
      return ok(subscriptionOut(row));
    },
  }),
  defineRoute({
    name: 'finops-subscriptions-delete',
    service: 'finops',
    method: 'DELETE',
    path: 'Subscriptions/{id}',
    auth: 'admin',
    openapi: {
      summary: 'Delete a row (administrators only, W16)',
      tags,
      responses: { 204: { description: 'Deleted' }, 404: notFoundDoc },
    },
    input: { params: idParams },
    async handler({ services, input, caller, request }) {
      const deleted = await withAudit(
        services.prisma,
        (tx) => deleteSubscription(tx, input.params.id),
        (subscriptionId) =>
          subscriptionId === null
            ? undefined
            : {
                actor: caller,
                action: 'subscription.deleted',
                target: { type: 'subscription', id: subscriptionId },
                request,
              },
      );
      if (!deleted) throw notFound(NOT_FOUND);
      return noContent();
    },
  }),
];
