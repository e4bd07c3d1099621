import { noContent } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { revokeSessions, USER_CACHE_SECONDS } from '../sessions.js';
import { existingUser, responses, userIdParams } from './common.js';
import { T } from './user-common.js';

export const userSessionsRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-user-revoke-sessions',
    service: 'auth',
    method: 'POST',
    path: 'User/{userId}/revokeSessions',
    auth: 'admin',
    openapi: {
      summary: 'End every session of a user: tokens issued before now are refused (401)',
      description: `Other instances refuse them within ${USER_CACHE_SECONDS} seconds (their user cache).`,
      tags: T,
      responses: responses({ 204: { description: 'Sessions ended' } }, 400, 401, 403, 404),
    },
    input: { params: userIdParams },
    async handler({
      services,
      input: {
        params: { userId },
      },
      caller,
      request,
    }) {
      await existingUser(services, userId);
      await revokeSessions(services, userId, { actor: caller, request, scope: 'admin' });
      return noContent();
    },
  }),
  defineRoute({
    name: 'auth-user-sign-out-everywhere',
    service: 'auth',
    method: 'POST',
    path: 'User/signOutEverywhere',
    auth: 'user',
    openapi: {
      summary: 'End every session of the caller, this one included',
      description: `Other instances refuse the old tokens within ${USER_CACHE_SECONDS} seconds (their user cache).`,
      tags: T,
      responses: responses({ 204: { description: 'Signed out everywhere' } }, 401, 403),
    },
    async handler({ services, caller, request }) {
      await revokeSessions(services, caller.userId, { actor: caller, request, scope: 'self' });
      return noContent();
    },
  }),
];
