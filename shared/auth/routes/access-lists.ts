import { z } from 'zod';
import { pagingQuery } from '../../http/paging.js';
import { emptyOk } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import {
  type AccessListStore,
  addToAccessList,
  replaceAccessList,
  userClusters,
  userSubscriptions,
} from '../queries/assignments.js';
import {
  AUTH_UNPAGED_ROWS,
  authPage,
  existingUser,
  guid,
  listAnswer,
  requireSelfOrAdmin,
  responses,
  userIdParams,
} from './common.js';

/**
 * A per-user access list (clusters, subscriptions): the original's UserClusters and
 * UserSubscriptions controllers are the same three routes over a different table and field.
 */
interface AccessList<F extends string, L extends string> {
  controller: string;
  /** Singular noun for summaries: "cluster", "subscription". */
  noun: string;
  field: F;
  listKey: L;
  item: z.ZodType<string>;
  /** Entries of a bulk body as sent (nullable for clusters, as the original accepted). */
  listItem: z.ZodType<string | null>;
  /** The audit action of a change of this list. */
  auditAction: 'userClusters.changed' | 'userSubscriptions.changed';
  /** What a bulk replace stores: blanks or nil GUIDs dropped, duplicates collapsed. */
  keep(values: Array<string | null>): string[];
  /** Its table (shared/auth/queries/assignments.ts). */
  store: AccessListStore;
}

function accessListRoutes<F extends string, L extends string>(kind: AccessList<F, L>): RouteDefinition[] {
  const addBody = z.object({ userId: guid(), [kind.field]: kind.item }) as unknown as z.ZodType<
    { userId: string } & Record<F, string>
  >;
  const replaceBody = z.object({
    userId: guid(),
    [kind.listKey]: z.array(kind.listItem, { error: 'is required (an empty list removes all)' }),
  }) as unknown as z.ZodType<{ userId: string } & Record<L, Array<string | null>>>;
  const rowSchema = z.object({ userId: z.string(), [kind.field]: z.string() });
  const slug = kind.controller.replace(/^User/, '').toLowerCase();
  return [
    defineRoute({
      name: `auth-user-${slug}-add`,
      service: 'auth',
      method: 'POST',
      path: kind.controller,
      auth: 'admin',
      openapi: {
        summary: `Give a user access to a ${kind.noun}`,
        tags: [kind.controller],
        responses: responses({ 200: { description: 'Stored (empty body)' } }, 400, 401, 403, 404),
      },
      input: { body: addBody },
      async handler({ services, input: { body: b }, caller, request }) {
        await existingUser(services, b.userId);
        await addToAccessList(services.prisma, kind.store, kind.auditAction, b.userId, b[kind.field], {
          actor: caller,
          request,
        });
        return emptyOk();
      },
    }),
    defineRoute({
      name: `auth-user-${slug}-replace`,
      service: 'auth',
      method: 'POST',
      path: `${kind.controller}/CreateOrUpdate`,
      auth: 'admin',
      openapi: {
        summary: `Replace a user's ${kind.noun}s in one transaction (an empty list removes all)`,
        tags: [kind.controller],
        responses: responses({ 200: { description: 'Replaced (empty body)' } }, 400, 401, 403, 404),
      },
      input: { body: replaceBody },
      async handler({ services, input: { body: b }, caller, request }) {
        await existingUser(services, b.userId);
        const values = kind.keep(b[kind.listKey]);
        await replaceAccessList(services.prisma, kind.store, kind.auditAction, b.userId, values, {
          actor: caller,
          request,
        });
        return emptyOk();
      },
    }),
    defineRoute({
      name: `auth-user-${slug}-by-user`,
      service: 'auth',
      method: 'GET',
      path: `${kind.controller}/GetAllByUserId/{userId}`,
      auth: 'user',
      openapi: {
        summary: `A user's ${kind.noun}s (that user or an administrator)`,
        description: `Paged (page, pageSize; X-Total-Count); without paging, the first ${AUTH_UNPAGED_ROWS}.`,
        tags: [kind.controller],
        responses: responses(
          { 200: { description: `${kind.noun}s`, schema: z.array(rowSchema) } },
          400,
          401,
          403,
        ),
      },
      input: { params: userIdParams, query: pagingQuery },
      async handler({
        services,
        caller,
        input: {
          params: { userId },
          query,
        },
      }) {
        requireSelfOrAdmin(caller, userId);
        const { paging, window } = authPage(query);
        const { rows, total } = await kind.store.page(services.prisma, userId, window);
        return listAnswer(
          rows.map((value) => ({ userId, [kind.field]: value })),
          total,
          paging,
        );
      },
    }),
  ];
}

const NIL_GUID = '00000000-0000-0000-0000-000000000000';

export const userClustersRoutes = accessListRoutes({
  controller: 'UserClusters',
  noun: 'cluster',
  field: 'clusterName',
  listKey: 'clusters',
  item: z.string().trim().min(1, 'is required').max(256),
  listItem: z.string().max(256).nullable(),
  auditAction: 'userClusters.changed',
  keep: (values) => [...new Set(values.map((c) => c?.trim() ?? '').filter(Boolean))],
  store: userClusters,
});

export const userSubscriptionsRoutes = accessListRoutes({
  controller: 'UserSubscriptions',
  noun: 'subscription',
  field: 'subscriptionId',
  listKey: 'subscriptions',
  item: guid(),
  listItem: guid(),
  auditAction: 'userSubscriptions.changed',
  keep: (values) => [...new Set(values.filter((s): s is string => !!s && s !== NIL_GUID))],
  store: userSubscriptions,
});
