import { z } from 'zod';
import { pagingQuery } from '../../http/paging.js';
import { emptyOk } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { addDeviceTokenOf, deviceTokensOfGroup, deviceTokensOfUser } from '../queries/users.js';
import { NOTIFICATION_KEY_HEADER, requireNotificationService } from '../service-key.js';
import {
  authPage,
  groupIdParams,
  listAnswer,
  requireSelfOrAdmin,
  responses,
  userIdParams,
} from './common.js';
import { PAGED, T } from './user-common.js';

const deviceTokenBody = z.object({ deviceToken: z.string().trim().min(1, 'is required').max(512) });
const tokenList = z.array(z.string());

export const userDevicesRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-user-update-device-token',
    service: 'auth',
    method: 'POST',
    path: 'User/UpdateUserDeviceToken',
    auth: 'user',
    openapi: {
      summary: "Add a push device token to the caller's list",
      tags: T,
      responses: responses({ 200: { description: 'Stored (empty body)' } }, 400, 401, 403),
    },
    input: { body: deviceTokenBody },
    async handler({
      services,
      caller,
      input: {
        body: { deviceToken },
      },
      request,
    }) {
      await addDeviceTokenOf(services.prisma, caller.userId, deviceToken, { actor: caller, request });
      return emptyOk();
    },
  }),
  defineRoute({
    name: 'auth-user-device-tokens',
    service: 'auth',
    method: 'GET',
    path: 'User/GetUserDeviceTokenList',
    auth: 'user',
    openapi: {
      summary: "The caller's device tokens",
      description: PAGED,
      tags: T,
      responses: responses({ 200: { description: 'Device tokens', schema: tokenList } }, 401, 403),
    },
    input: { query: pagingQuery },
    async handler({ services, caller, input: { query } }) {
      const { paging, window } = authPage(query);
      const { rows, total } = await deviceTokensOfUser(services.prisma, caller.userId, window);
      return listAnswer(rows, total, paging);
    },
  }),
  defineRoute({
    name: 'auth-user-device-tokens-by-user',
    service: 'auth',
    method: 'GET',
    path: 'User/GetUserDeviceTokenListByUserId/{userId}',
    auth: 'user',
    openapi: {
      summary: "A user's device tokens (that user or an administrator)",
      description: PAGED,
      tags: T,
      responses: responses({ 200: { description: 'Device tokens', schema: tokenList } }, 400, 401, 403),
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
      const { rows, total } = await deviceTokensOfUser(services.prisma, userId, window);
      return listAnswer(rows, total, paging);
    },
  }),
  defineRoute({
    name: 'auth-user-device-tokens-by-group',
    service: 'auth',
    method: 'GET',
    path: 'User/GetUserDeviceTokenListByGroupId/{groupId}',
    auth: 'none',
    openapi: {
      summary: 'Device tokens of the users of a monitor group (the Notification service, with its key)',
      description: `${PAGED} The Notification service sends Notification__ServiceKey in ${NOTIFICATION_KEY_HEADER} (or as a bearer token); Notification__AllowAnonymousDeviceTokens=true serves anyone, as the original did.`,
      tags: T,
      responses: responses({ 200: { description: 'Device tokens only', schema: tokenList } }, 400, 401),
    },
    // The key first: an anonymous caller learns nothing of the route's rules.
    before: ({ services, request }) => requireNotificationService(services.config.auth, request),
    input: { params: groupIdParams, query: pagingQuery },
    async handler({
      services,
      input: {
        params: { groupId },
        query,
      },
    }) {
      const { paging, window } = authPage(query);
      const { rows, total } = await deviceTokensOfGroup(services.prisma, groupId, window);
      return listAnswer(rows, total, paging);
    },
  }),
];
