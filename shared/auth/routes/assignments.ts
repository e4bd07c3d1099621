import { z } from 'zod';
import { pagingQuery } from '../../http/paging.js';
import { badRequest } from '../../http/problem.js';
import { emptyOk } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import {
  createAction,
  emptyGroup,
  groupsOfUser,
  joinGroup,
  listActions,
  setGroups,
} from '../queries/assignments.js';
import {
  AUTH_UNPAGED_ROWS,
  authPage,
  existingUser,
  guid,
  int32,
  int32Param,
  listAnswer,
  responses,
  userIdParams,
} from './common.js';

const actionBody = z.object({
  action: z.string().trim().min(1, 'Action is required').max(4000),
  timeStamp: z.iso
    .datetime({ offset: true, local: true, error: 'must be an ISO 8601 date and time' })
    .nullish(),
});
const actionSchema = z.object({
  id: z.number().int(),
  userId: z.string(),
  action: z.string(),
  timeStamp: z.string(),
});

const groupItem = z.object({ userId: guid(), groupMonitorId: int32() });
const assignBody = z.object({ groupMonitorId: int32() });
const groupsBody = z.array(groupItem).min(1, 'must list at least one assignment');
const groupSchema = z.object({ id: z.string(), userId: z.string(), groupMonitorId: z.number().int() });
const groupParams = z.object({ groupMonitorId: int32Param() });

const PAGED = `Paged (page, pageSize; X-Total-Count); without paging, the first ${AUTH_UNPAGED_ROWS}.`;

export const userActionRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-user-action-create',
    service: 'auth',
    method: 'POST',
    path: 'UserAction/create',
    auth: 'user',
    openapi: {
      summary: "Record an action of the caller (timeStamp defaults to the server's clock)",
      tags: ['UserAction'],
      responses: responses({ 200: { description: 'Stored (empty body)' } }, 400, 401, 403),
    },
    input: { body: actionBody },
    async handler({ services, caller, input: { body: b } }) {
      const timeStamp = b.timeStamp ? new Date(b.timeStamp) : new Date();
      if (Number.isNaN(timeStamp.getTime()))
        throw badRequest('timeStamp is not a date', { timeStamp: ['is not a date'] });
      await createAction(services.prisma, caller.userId, b.action, timeStamp);
      return emptyOk();
    },
  }),
  defineRoute({
    name: 'auth-user-action-list',
    service: 'auth',
    method: 'GET',
    path: 'UserAction',
    auth: 'user',
    openapi: {
      summary: "The caller's actions; every user's for an administrator",
      description: PAGED,
      tags: ['UserAction'],
      responses: responses(
        { 200: { description: 'Actions, newest first', schema: z.array(actionSchema) } },
        401,
        403,
      ),
    },
    input: { query: pagingQuery },
    async handler({ services, caller, input: { query } }) {
      const { paging, window } = authPage(query);
      const { rows, total } = await listActions(
        services.prisma,
        caller.isAdmin ? undefined : caller.userId,
        window,
      );
      return listAnswer(
        rows.map((r) => ({
          id: r.id,
          userId: r.userId,
          action: r.action,
          timeStamp: r.timeStamp.toISOString(),
        })),
        total,
        paging,
      );
    },
  }),
];

export const usersMonitorGroupRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-monitor-group-assign-self',
    service: 'auth',
    method: 'POST',
    path: 'UsersMonitorGroup/AssignUserToGroup',
    auth: 'user',
    openapi: {
      summary: 'Assign the caller (never another user) to a monitor group',
      tags: ['UsersMonitorGroup'],
      responses: responses({ 200: { description: 'Assigned (empty body)' } }, 400, 401, 403),
    },
    input: { body: assignBody },
    async handler({ services, caller, input: { body: b }, request }) {
      if (b.groupMonitorId > 0) {
        await joinGroup(services.prisma, caller.userId, b.groupMonitorId, { actor: caller, request });
      }
      return emptyOk();
    },
  }),
  defineRoute({
    name: 'auth-monitor-group-replace',
    service: 'auth',
    method: 'POST',
    path: 'UsersMonitorGroup/create',
    auth: 'admin',
    openapi: {
      summary: "Replace the listed users' monitor groups in one transaction",
      tags: ['UsersMonitorGroup'],
      responses: responses({ 200: { description: 'Replaced (empty body)' } }, 400, 401, 403, 404),
    },
    input: { body: groupsBody },
    async handler({ services, input: { body: items }, caller, request }) {
      const userIds = [...new Set(items.map((i) => i.userId))];
      for (const id of userIds) await existingUser(services, id);
      const data = items
        .filter((i) => i.groupMonitorId > 0)
        .map((i) => ({ userId: i.userId, groupMonitorId: i.groupMonitorId }));
      await setGroups(services.prisma, userIds, data, { actor: caller, request });
      return emptyOk();
    },
  }),
  defineRoute({
    name: 'auth-monitor-group-mine',
    service: 'auth',
    method: 'GET',
    path: 'UsersMonitorGroup/GetAll',
    auth: 'user',
    openapi: {
      summary: "The caller's monitor groups",
      description: PAGED,
      tags: ['UsersMonitorGroup'],
      responses: responses({ 200: { description: 'Assignments', schema: z.array(groupSchema) } }, 401, 403),
    },
    input: { query: pagingQuery },
    async handler({ services, caller, input: { query } }) {
      const { paging, window } = authPage(query);
      const { rows, total } = await groupsOfUser(services.prisma, caller.userId, window);
      return listAnswer(rows, total, paging);
    },
  }),
  defineRoute({
    name: 'auth-monitor-group-by-user',
    service: 'auth',
    method: 'GET',
    path: 'UsersMonitorGroup/GetAllByUserId/{userId}',
    // Administrators only, as in the original; a user's own groups are UsersMonitorGroup/GetAll.
    auth: 'admin',
    openapi: {
      summary: "A user's monitor groups (administrators; the caller's own are at GetAll)",
      description: PAGED,
      tags: ['UsersMonitorGroup'],
      responses: responses(
        { 200: { description: 'Assignments', schema: z.array(groupSchema) } },
        400,
        401,
        403,
      ),
    },
    input: { params: userIdParams, query: pagingQuery },
    async handler({
      services,
      input: {
        params: { userId },
        query,
      },
    }) {
      const { paging, window } = authPage(query);
      const { rows, total } = await groupsOfUser(services.prisma, userId, window);
      return listAnswer(rows, total, paging);
    },
  }),
  defineRoute({
    name: 'auth-monitor-group-delete',
    service: 'auth',
    method: 'DELETE',
    path: 'UsersMonitorGroup/{groupMonitorId}',
    auth: 'admin',
    openapi: {
      summary: 'Remove every user from a monitor group',
      tags: ['UsersMonitorGroup'],
      responses: responses({ 200: { description: 'Removed (empty body)' } }, 400, 401, 403),
    },
    input: { params: groupParams },
    async handler({
      services,
      input: {
        params: { groupMonitorId },
      },
      caller,
      request,
    }) {
      await emptyGroup(services.prisma, groupMonitorId, { actor: caller, request });
      return emptyOk();
    },
  }),
];
