import { z } from 'zod';
import { pagingQuery } from '../../http/paging.js';
import { forbidden, notFound } from '../../http/problem.js';
import { ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { countUsers, listUsers } from '../queries/users.js';
import { normalizeEmail, toUserDto } from '../users.js';
import {
  authPage,
  existingUser,
  groupIdParams,
  listAnswer,
  responses,
  userDtoSchema,
  userIdParams,
} from './common.js';
import { dto, dtoOr204, emailParams, PAGED, T } from './user-common.js';

export const userLookupRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-user-get-all',
    service: 'auth',
    method: 'GET',
    path: 'User/GetAll',
    auth: 'admin',
    openapi: {
      summary: 'All users',
      tags: T,
      description: PAGED,
      responses: responses({ 200: { description: 'Users', schema: z.array(userDtoSchema) } }, 401, 403),
    },
    input: { query: pagingQuery },
    async handler({ services, input: { query } }) {
      const { paging, window } = authPage(query);
      const { rows, total } = await listUsers(services.prisma, window);
      return listAnswer(rows.map(toUserDto), total, paging);
    },
  }),
  defineRoute({
    name: 'auth-user-get-all-by-group',
    service: 'auth',
    method: 'GET',
    path: 'User/GetAllByGroupId/{groupId}',
    auth: 'user',
    openapi: {
      summary: 'Users of a monitor group',
      description: PAGED,
      tags: T,
      responses: responses({ 200: { description: 'Users', schema: z.array(userDtoSchema) } }, 400, 401, 403),
    },
    input: { params: groupIdParams, query: pagingQuery },
    async handler({
      services,
      input: {
        params: { groupId },
        query,
      },
    }) {
      const { paging, window } = authPage(query);
      const { rows, total } = await listUsers(services.prisma, window, groupId);
      return listAnswer(rows.map(toUserDto), total, paging);
    },
  }),
  defineRoute({
    name: 'auth-user-get-by-id',
    service: 'auth',
    method: 'GET',
    path: 'User/GetById/{userId}',
    auth: 'user',
    openapi: {
      summary: 'A user by id',
      tags: T,
      responses: responses(
        { 200: { description: 'The user', schema: userDtoSchema }, 204: { description: 'No such user' } },
        400,
        401,
        403,
      ),
    },
    input: { params: userIdParams },
    async handler({
      services,
      input: {
        params: { userId },
      },
    }) {
      return dtoOr204(await services.auth.users.byId(userId));
    },
  }),
  defineRoute({
    name: 'auth-user-get-by-email',
    service: 'auth',
    method: 'GET',
    path: 'User/GetByEmail/{userEmail}',
    auth: 'user',
    openapi: {
      summary: 'A user by email',
      tags: T,
      responses: responses(
        { 200: { description: 'The user', schema: userDtoSchema }, 204: { description: 'No such user' } },
        401,
        403,
      ),
    },
    input: { params: z.object({ userEmail: z.string() }) },
    async handler({ services, input: { params } }) {
      return dtoOr204(await services.auth.users.byEmail(params.userEmail));
    },
  }),
  defineRoute({
    name: 'auth-user-get-by-username',
    service: 'auth',
    method: 'GET',
    path: 'User/GetByUserName/{userName}',
    auth: 'user',
    openapi: {
      summary: 'A user by user name',
      tags: T,
      responses: responses(
        { 200: { description: 'The user', schema: userDtoSchema }, 204: { description: 'No such user' } },
        401,
        403,
      ),
    },
    input: { params: z.object({ userName: z.string() }) },
    async handler({ services, input: { params } }) {
      return dtoOr204(await services.auth.users.byUsername(params.userName));
    },
  }),
  defineRoute({
    name: 'auth-user-get-count',
    service: 'auth',
    method: 'GET',
    path: 'User/GetUserCount',
    auth: 'user',
    openapi: {
      summary: 'Number of users',
      tags: T,
      responses: responses({ 200: { description: 'A number', schema: z.number().int() } }, 401, 403),
    },
    async handler({ services }) {
      return ok(await countUsers(services.prisma));
    },
  }),
  defineRoute({
    name: 'auth-user-details-by-token',
    service: 'auth',
    method: 'GET',
    path: 'User/GetUserDetailsByToken',
    auth: 'user',
    openapi: {
      summary: 'The caller',
      tags: T,
      responses: responses({ 200: { description: 'The caller', schema: userDtoSchema } }, 401, 403),
    },
    async handler({ caller }) {
      return ok({
        id: caller.userId,
        username: caller.username,
        email: caller.email,
        isAdmin: caller.isAdmin,
      });
    },
  }),
  // After the literal User/... routes: the router prefers literals anyway.
  defineRoute({
    name: 'auth-user-by-email-or-directory',
    service: 'auth',
    method: 'GET',
    path: 'User/{email}',
    auth: 'user',
    openapi: {
      summary: 'A user by email; the caller, or a directory user created on first lookup',
      tags: T,
      responses: responses({ 200: { description: 'The user', schema: userDtoSchema } }, 400, 401, 403, 404),
    },
    input: { params: emailParams },
    async handler({
      services,
      caller,
      input: {
        params: { email },
      },
    }) {
      const { auth } = services;
      const existing = await auth.users.byEmail(email);
      if (existing) return dto(existing);
      if (normalizeEmail(email) === normalizeEmail(caller.email)) {
        return dto(await existingUser(services, caller.userId));
      }
      if (!email.includes('@')) throw notFound('User not found.');
      if (auth.isBlocked(email)) throw forbidden('The domain of this email is blocked.');
      const found = await auth.graph.find(email);
      if (!found) throw notFound('User not found.');
      return dto(await auth.userForDirectoryIdentity(found.email, found.displayName));
    },
  }),
];
