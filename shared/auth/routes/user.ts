import type { HttpRequest } from '@azure/functions';
import { z } from 'zod';
import type { AppServices } from '../../app/services.js';
import { type AuditActor, recordAudit } from '../../audit/record.js';
import { escapeHtml } from '../../http/html.js';
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS, MAX_PASSWORD_CHARS } from '../../http/limits.js';
import { pagingQuery } from '../../http/paging.js';
import { badRequest, conflict, forbidden, notFound } from '../../http/problem.js';
import { emptyOk, json, noContent, ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { changePassword, confirmReset, countResetRequest, sendResetCode } from '../password-reset.js';
import { MIN_PASSWORD_LENGTH } from '../passwords.js';
import {
  addDeviceToken,
  countUsers,
  deleteUserRow,
  deviceTokensOfGroup,
  deviceTokensOfUser,
  listUsers,
  updateUserRow,
} from '../queries/users.js';
import { NOTIFICATION_KEY_HEADER, requireNotificationService } from '../service-key.js';
import { revokeSessions, USER_CACHE_SECONDS } from '../sessions.js';
import { constantTimeEquals } from '../swagger-gate.js';
import { admitPasswordAttempt, clearAttempts, throttleLimits } from '../throttle.js';
import { isUniqueViolation, normalizeEmail, toUserDto, type UserRow } from '../users.js';
import {
  AUTH_UNPAGED_ROWS,
  authPage,
  existingUser,
  groupIdParams,
  guid,
  listAnswer,
  params,
  requireLoginEnabled,
  requireSelfOrAdmin,
  responses,
  userDtoSchema,
  userIdParams,
} from './common.js';

/** The rule of every new password (create, change, reset, the reset page). */
export const password = () =>
  z
    .string()
    .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
    .max(MAX_PASSWORD_CHARS);

const createBody = z.object({
  username: z.string().trim().min(3, 'must be at least 3 characters').max(MAX_NAME_CHARS),
  userEmail: z.email('must be an email address').trim().max(MAX_EMAIL_CHARS),
  password: password(),
  repeatPassword: z.string().max(MAX_PASSWORD_CHARS),
});
const updateBody = z.object({
  id: guid(),
  username: z.string().trim().min(3, 'must be at least 3 characters').max(MAX_NAME_CHARS),
  email: z.email('must be an email address').trim().max(MAX_EMAIL_CHARS),
  isAdmin: z.boolean(),
});
const updatePasswordBody = z.object({
  currentPassword: z.string().min(1, 'is required').max(MAX_PASSWORD_CHARS),
  newPassword: password(),
});
const confirmBody = z.object({
  email: z.email('must be an email address').trim().max(MAX_EMAIL_CHARS),
  code: z.string().trim().min(1, 'is required').max(200),
  newPassword: password(),
});
// Push tokens are at most a few hundred characters; the cap keeps them under the B-tree limit.
const deviceTokenBody = z.object({ deviceToken: z.string().trim().min(1, 'is required').max(512) });
const emailParams = z.object({ email: z.string().trim().min(3).max(MAX_EMAIL_CHARS) });
const tokenList = z.array(z.string());

const dto = (u: UserRow) => ok(toUserDto(u));
/** The original answers Ok(null) → 204 for a missing user on its lookups. */
const dtoOr204 = (u: UserRow | null) => (u ? dto(u) : noContent());

const lastAdmin = () => conflict('The last administrator cannot be demoted or deleted.');

/**
 * Whether a new password account becomes an administrator: only with the one-time bootstrap
 * secret, for an ADMIN_EMAILS address, while no administrator exists. Registering a listed address
 * proves nothing about who owns it.
 */
async function bootstrapsAdmin(
  services: AppServices,
  email: string,
  secret: string | null,
): Promise<boolean> {
  const expected = services.config.auth.ADMIN_BOOTSTRAP_SECRET;
  if (!expected || !secret || !services.auth.isListedAdmin(email)) return false;
  if (!constantTimeEquals(secret, expected)) return false;
  const first = (await services.auth.users.adminCount()) === 0;
  services.log.warn(
    { audit: 'admin-bootstrap', email: normalizeEmail(email), granted: first },
    'admin bootstrap',
  );
  return first;
}

/** Deletes a user (never the last administrator); its rows cascade. */
async function deleteUser(
  services: AppServices,
  user: UserRow,
  audit: { actor: AuditActor; request: HttpRequest },
): Promise<void> {
  // Device tokens, clusters, subscriptions, groups, actions and reset codes cascade.
  const r = await services.auth.users.keepingAnAdmin(user.id, async (tx) => {
    await deleteUserRow(tx, user.id);
    await recordAudit(tx, {
      ...audit,
      action: 'user.deleted',
      target: { type: 'user', id: user.id },
      details: { email: user.email, username: user.username, wasAdmin: user.isAdmin },
    });
  });
  if (r === 'last-admin') throw lastAdmin();
}

/** The fields an update changed, as { field: { from, to } }. */
function changes(before: UserRow, after: Partial<UserRow>): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const k of ['username', 'email', 'isAdmin'] as const) {
    if (after[k] !== undefined && after[k] !== before[k]) out[k] = { from: before[k], to: after[k] };
  }
  return out;
}

const PAGED = `Paged (page, pageSize; X-Total-Count); without paging, the first ${AUTH_UNPAGED_ROWS}.`;

const T = ['User'];

export const userRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-user-create',
    service: 'auth',
    method: 'POST',
    path: 'User/create',
    auth: 'none',
    openapi: {
      summary: 'Create an account with an email and password (welcome email sent)',
      tags: T,
      body: createBody,
      responses: responses({ 201: { description: 'The new user', schema: userDtoSchema } }, 400, 403, 409),
    },
    async handler({ services, body, request }) {
      requireLoginEnabled(services);
      const b = await body(createBody);
      if (b.password !== b.repeatPassword) {
        throw badRequest('Passwords do not match.', { repeatPassword: ['Passwords do not match.'] });
      }
      const { auth } = services;
      if (auth.isBlocked(b.userEmail)) throw forbidden('The domain of this account is blocked.');
      const passwordHash = await services.auth.passwords.hash(b.password);
      let user: UserRow;
      try {
        const isAdmin = await bootstrapsAdmin(
          services,
          b.userEmail,
          request.headers.get('x-admin-bootstrap'),
        );
        user = await services.prisma.$transaction(async (tx) => {
          const u = await auth.users.create(
            { email: b.userEmail, username: b.username, passwordHash, isAdmin },
            tx,
          );
          await recordAudit(tx, {
            actor: { userId: u.id, email: u.email },
            action: 'user.created',
            target: { type: 'user', id: u.id },
            details: { username: u.username, isAdmin: u.isAdmin },
            request,
          });
          return u;
        });
        auth.users.forget(user.id, user.email);
      } catch (e) {
        if (isUniqueViolation(e)) throw conflict('An account with this email or user name already exists.');
        throw e;
      }
      auth.sendInBackground(
        {
          to: user.email,
          subject: 'finwatch - Account Creation',
          text: `Welcome to finwatch, ${user.username}. Your account was created; sign in with ${user.email}.`,
          html: `<p>Welcome to finwatch, ${escapeHtml(user.username)}.</p><p>Your account was created; sign in with ${escapeHtml(user.email)}.</p>`,
        },
        'welcome email',
      );
      return json(201, toUserDto(user));
    },
  }),
  defineRoute({
    name: 'auth-user-delete-by-id',
    service: 'auth',
    method: 'DELETE',
    path: 'User/delete/{userId}',
    auth: 'admin',
    openapi: {
      summary: 'Delete a user and its tokens, clusters, subscriptions, groups and actions',
      tags: T,
      params: userIdParams,
      responses: responses({ 200: { description: 'Deleted (empty body)' } }, 400, 401, 403, 404, 409),
    },
    async handler({ services, params: p, caller, request }) {
      const { userId } = params(userIdParams, p);
      await deleteUser(services, await existingUser(services, userId), { actor: caller, request });
      return emptyOk();
    },
  }),
  defineRoute({
    name: 'auth-user-delete-self',
    service: 'auth',
    method: 'DELETE',
    path: 'User/delete',
    auth: 'user',
    openapi: {
      summary: 'Delete the caller',
      tags: T,
      responses: responses({ 200: { description: 'Deleted (empty body)' } }, 401, 403, 409),
    },
    async handler({ services, caller, request }) {
      await deleteUser(services, await existingUser(services, caller.userId), { actor: caller, request });
      return emptyOk();
    },
  }),
  defineRoute({
    name: 'auth-user-update',
    service: 'auth',
    method: 'PUT',
    path: 'User/update',
    auth: 'admin',
    openapi: {
      summary: "Change a user's username, email and administrator flag",
      tags: T,
      body: updateBody,
      responses: responses(
        { 200: { description: 'The updated user', schema: userDtoSchema } },
        400,
        401,
        403,
        404,
        409,
      ),
    },
    async handler({ services, body, caller, request }) {
      const b = await body(updateBody);
      const user = await existingUser(services, b.id);
      if (services.auth.isBlocked(b.email)) throw forbidden('The domain of this email is blocked.');
      const data = { username: b.username, email: normalizeEmail(b.email), isAdmin: b.isAdmin };
      const audited = async (tx: Parameters<typeof recordAudit>[0]) =>
        recordAudit(tx, {
          actor: caller,
          action: 'user.updated',
          target: { type: 'user', id: user.id },
          details: changes(user, data),
          request,
        });
      try {
        if (user.isAdmin && !b.isAdmin) {
          const r = await services.auth.users.keepingAnAdmin(user.id, async (tx) => {
            const u = await updateUserRow(tx, user.id, data);
            await audited(tx);
            return u;
          });
          if (r === 'last-admin') throw lastAdmin();
          services.auth.users.forget(r.id, r.email);
          return dto(r);
        }
        const updated = await services.prisma.$transaction(async (tx) => {
          const u = await services.auth.users.update(user.id, data, tx);
          await audited(tx);
          return u;
        });
        services.auth.users.forget(updated.id, user.email);
        return dto(updated);
      } catch (e) {
        if (isUniqueViolation(e)) throw conflict('Another user has this email or user name.');
        throw e;
      }
    },
  }),
  defineRoute({
    name: 'auth-user-reset-password-confirm',
    service: 'auth',
    method: 'POST',
    path: 'User/resetPassword/confirm',
    auth: 'none',
    openapi: {
      summary: 'Set a new password with the emailed reset code (single use, 30 minutes)',
      tags: T,
      body: confirmBody,
      responses: responses({ 204: { description: 'Password changed; older tokens stop working' } }, 400, 403),
    },
    async handler({ services, body, request }) {
      requireLoginEnabled(services);
      const b = await body(confirmBody);
      if ((await confirmReset(services, b, request)) !== 'ok') {
        throw badRequest('The reset code is invalid or has expired.');
      }
      return noContent();
    },
  }),
  defineRoute({
    name: 'auth-user-reset-password',
    service: 'auth',
    method: 'POST',
    path: 'User/resetPassword/{email}',
    auth: 'none',
    openapi: {
      summary: 'Email a single-use reset code to a known account; answers the same for any email',
      tags: T,
      params: emailParams,
      responses: responses(
        { 200: { description: 'Accepted (empty body), whether or not the account exists' } },
        400,
        403,
        429,
      ),
    },
    async handler({ services, params: p, request }) {
      requireLoginEnabled(services);
      const { email } = params(emailParams, p);
      await countResetRequest(services, email, request);
      // Everything else happens after the answer, so known and unknown emails answer alike.
      services.auth.background('password reset', () => sendResetCode(services, email, request));
      return emptyOk();
    },
  }),
  defineRoute({
    name: 'auth-user-update-password',
    service: 'auth',
    method: 'POST',
    path: 'User/updatePassword',
    auth: 'user',
    openapi: {
      summary: "Change the caller's password; tokens issued before stop working",
      tags: T,
      body: updatePasswordBody,
      responses: responses(
        { 200: { description: 'A new own token for the caller', schema: z.object({ token: z.string() }) } },
        400,
        401,
        403,
        429,
      ),
    },
    async handler({ services, caller, body, request }) {
      requireLoginEnabled(services);
      const b = await body(updatePasswordBody);
      const user = await existingUser(services, caller.userId);
      // Guesses of the current password are bounded per account on their own: they never touch
      // the account's sign-in (a wrong current password must not lock its owner out).
      const key = { account: user.email, kind: 'passwordChange' as const, clientAddress: '' };
      const audited = (reason: string) =>
        recordAudit(services.prisma, {
          actor: caller,
          action: 'password.changeFailed',
          target: { type: 'user', id: user.id },
          details: { reason },
          request,
        });
      await admitPasswordAttempt(services.prisma, key, throttleLimits(services.config.auth)).catch(
        async (e: unknown) => {
          await audited('too many wrong current passwords');
          throw e;
        },
      );
      if (!(await services.auth.passwords.check(user.passwordHash, b.currentPassword))) {
        await audited('wrong current password');
        throw badRequest('Invalid password', { currentPassword: ['Invalid password'] });
      }
      await clearAttempts(services.prisma, key);
      const updated = await changePassword(services, user, b.newPassword, { actor: caller, request });
      return json(200, { token: services.auth.issueToken(updated) });
    },
  }),
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
      params: groupIdParams,
      responses: responses({ 200: { description: 'Users', schema: z.array(userDtoSchema) } }, 400, 401, 403),
    },
    input: { query: pagingQuery },
    async handler({ services, params: p, input: { query } }) {
      const { groupId } = params(groupIdParams, p);
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
      params: userIdParams,
      responses: responses(
        { 200: { description: 'The user', schema: userDtoSchema }, 204: { description: 'No such user' } },
        400,
        401,
        403,
      ),
    },
    async handler({ services, params: p }) {
      const { userId } = params(userIdParams, p);
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
      params: z.object({ userEmail: z.string() }),
      responses: responses(
        { 200: { description: 'The user', schema: userDtoSchema }, 204: { description: 'No such user' } },
        401,
        403,
      ),
    },
    async handler({ services, params: p }) {
      return dtoOr204(await services.auth.users.byEmail(p.userEmail ?? ''));
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
      params: z.object({ userName: z.string() }),
      responses: responses(
        { 200: { description: 'The user', schema: userDtoSchema }, 204: { description: 'No such user' } },
        401,
        403,
      ),
    },
    async handler({ services, params: p }) {
      return dtoOr204(await services.auth.users.byUsername(p.userName ?? ''));
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
  defineRoute({
    name: 'auth-user-update-device-token',
    service: 'auth',
    method: 'POST',
    path: 'User/UpdateUserDeviceToken',
    auth: 'user',
    openapi: {
      summary: "Add a push device token to the caller's list",
      tags: T,
      body: deviceTokenBody,
      responses: responses({ 200: { description: 'Stored (empty body)' } }, 400, 401, 403),
    },
    async handler({ services, caller, body, request }) {
      const { deviceToken } = await body(deviceTokenBody);
      await services.prisma.$transaction(async (tx) => {
        if (!(await addDeviceToken(tx, caller.userId, deviceToken))) return;
        await recordAudit(tx, {
          actor: caller,
          action: 'deviceToken.added',
          target: { type: 'user', id: caller.userId },
          // A token's tail identifies it to a person without storing a push credential.
          details: { deviceTokenEnd: deviceToken.slice(-6) },
          request,
        });
      });
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
      params: userIdParams,
      responses: responses({ 200: { description: 'Device tokens', schema: tokenList } }, 400, 401, 403),
    },
    input: { query: pagingQuery },
    async handler({ services, caller, params: p, input: { query } }) {
      const { userId } = params(userIdParams, p);
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
      params: groupIdParams,
      responses: responses({ 200: { description: 'Device tokens only', schema: tokenList } }, 400, 401),
    },
    input: { query: pagingQuery },
    async handler({ services, params: p, request, input: { query } }) {
      // The key first: an anonymous caller learns nothing of the route's rules.
      requireNotificationService(services.config.auth, request);
      const { groupId } = params(groupIdParams, p);
      const { paging, window } = authPage(query);
      const { rows, total } = await deviceTokensOfGroup(services.prisma, groupId, window);
      return listAnswer(rows, total, paging);
    },
  }),
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
      params: userIdParams,
      responses: responses({ 204: { description: 'Sessions ended' } }, 400, 401, 403, 404),
    },
    async handler({ services, params: p, caller, request }) {
      const { userId } = params(userIdParams, p);
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
      params: emailParams,
      responses: responses({ 200: { description: 'The user', schema: userDtoSchema } }, 400, 401, 403, 404),
    },
    async handler({ services, caller, params: p }) {
      const { email } = params(emailParams, p);
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
