import { z } from 'zod';
import { recordAudit } from '../../../audit/record.js';
import { Prisma } from '../../../db/generated/client.js';
import { badRequest, conflict, notFound } from '../../../http/problem.js';
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
import { idParam, idParams, listHeaders, paging, pagingQuery, UNPAGED_NOTE } from './common.js';

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
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
  // Checked in the handler, so that the 400 carries the original's message as its detail.
  subscriptionId: z
    .string()
    .nullable()
    .optional()
    .describe('Required: the cloud subscription GUID (trimmed).'),
  description: Description,
  budget: Money.nullable().optional(),
  infraSupportCost: Money.nullable().optional(),
});

/** The trimmed GUID of a POST body, or 400 with the original's message ("SubscriptionId is required"). */
function subscriptionIdOf(value: string | null | undefined): string {
  const id = (value ?? '').trim();
  if (!id) throw badRequest('SubscriptionId is required', { subscriptionId: ['SubscriptionId is required'] });
  if (!GUID.test(id)) {
    throw badRequest('SubscriptionId must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)', {
      subscriptionId: [`The value '${id.slice(0, 100)}' is not a GUID.`],
    });
  }
  return id;
}

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
      query: pagingQuery,
      responses: { 200: { description: 'Subscription[]', schema: z.array(Subscription) } },
    },
    async handler({ services, query }) {
      const p = paging(query);
      const { rows, total } = await listSubscriptions(services.prisma, p.skip, p.pageSize);
      return ok(rows.map(subscriptionOut), listHeaders(total, p));
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
    async handler({ services, params }) {
      const row = await subscriptionByCloudId(services.prisma, params.subscriptionId ?? '');
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
      params: idParams,
      responses: { 200: { description: 'Subscription', schema: Subscription }, 404: notFoundDoc },
    },
    async handler({ services, params }) {
      const row = await subscriptionById(services.prisma, idParam(params, 'id'));
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
      body: CreateSubscriptionDto,
      responses: {
        200: { description: 'The stored Subscription', schema: Subscription },
        400: { description: 'Validation problem', schema: Problem },
        409: { description: 'A concurrent insert of the same id won', schema: Problem },
      },
    },
    async handler({ services, body, caller, request }) {
      const dto = await body(CreateSubscriptionDto);
      const subscriptionId = subscriptionIdOf(dto.subscriptionId);
      try {
        const row = await services.prisma.$transaction(async (tx) => {
          const existed = await tx.subscription.findUnique({
            where: { subscriptionId: subscriptionId.toLowerCase() },
            select: { id: true },
          });
          const r = await upsertSubscription(tx, { ...dto, subscriptionId });
          await recordAudit(tx, {
            actor: caller,
            action: existed ? 'subscription.updated' : 'subscription.created',
            target: { type: 'subscription', id: r.subscriptionId },
            details: {
              description: r.description,
              budget: dto.budget ?? null,
              infraSupportCost: dto.infraSupportCost,
            },
            request,
          });
          return r;
        });
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
      params: idParams,
      body: UpdateSubscriptionDto,
      responses: { 200: { description: 'Subscription', schema: Subscription }, 404: notFoundDoc },
    },
    async handler({ services, params, body, caller, request }) {
      const id = idParam(params, 'id');
      const dto = await body(UpdateSubscriptionDto);
      if (dto === null || typeof dto !== 'object') throw badRequest('A JSON object is required.');
      const row = await services.prisma.$transaction(async (tx) => {
        const r = await updateSubscription(tx, id, dto);
        if (r) {
          await recordAudit(tx, {
            actor: caller,
            action: 'subscription.updated',
            target: { type: 'subscription', id: r.subscriptionId },
            details: { ...dto },
            request,
          });
        }
        return r;
      });
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
      params: idParams,
      responses: { 204: { description: 'Deleted' }, 404: notFoundDoc },
    },
    async handler({ services, params, caller, request }) {
      const id = idParam(params, 'id');
      const deleted = await services.prisma.$transaction(async (tx) => {
        const row = await tx.subscription.findUnique({ where: { id }, select: { subscriptionId: true } });
        if (!row || !(await deleteSubscription(tx, id))) return false;
        await recordAudit(tx, {
          actor: caller,
          action: 'subscription.deleted',
          target: { type: 'subscription', id: row.subscriptionId },
          request,
        });
        return true;
      });
      if (!deleted) throw notFound(NOT_FOUND);
      return noContent();
    },
  }),
];
