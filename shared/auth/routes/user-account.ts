/** User routes: create, delete, update (the account itself). */
import type { HttpRequest } from '@azure/functions';
import { z } from 'zod';
import type { AppServices } from '../../app/services.js';
import { type AuditActor, type AuditEntry, recordAudit, withAudit } from '../../audit/record.js';
import { escapeHtml } from '../../http/html.js';
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS, MAX_PASSWORD_CHARS } from '../../http/limits.js';
import { badRequest, conflict, forbidden } from '../../http/problem.js';
import { emptyOk, json } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { deleteUserRow, updateUserRow } from '../queries/users.js';
import { constantTimeEquals } from '../swagger-gate.js';
import { isUniqueViolation, normalizeEmail, toUserDto, type UserRow } from '../users.js';
import { existingUser, guid, requireLoginEnabled, responses, userDtoSchema, userIdParams } from './common.js';
import { dto, password, T } from './user-common.js';

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

export const userAccountRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-user-create',
    service: 'auth',
    method: 'POST',
    path: 'User/create',
    auth: 'none',
    openapi: {
      summary: 'Create an account with an email and password (welcome email sent)',
      tags: T,
      responses: responses({ 201: { description: 'The new user', schema: userDtoSchema } }, 400, 403, 409),
    },
    before: ({ services }) => requireLoginEnabled(services),
    input: { body: createBody },
    async handler({ services, input: { body: b }, request }) {
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
        user = await withAudit(
          services.prisma,
          (tx) => auth.users.create({ email: b.userEmail, username: b.username, passwordHash, isAdmin }, tx),
          (u) => ({
            actor: { userId: u.id, email: u.email },
            action: 'user.created',
            target: { type: 'user', id: u.id },
            details: { username: u.username, isAdmin: u.isAdmin },
            request,
          }),
        );
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
      responses: responses({ 200: { description: 'Deleted (empty body)' } }, 400, 401, 403, 404, 409),
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
      responses: responses(
        { 200: { description: 'The updated user', schema: userDtoSchema } },
        400,
        401,
        403,
        404,
        409,
      ),
    },
    input: { body: updateBody },
    async handler({ services, input: { body: b }, caller, request }) {
      const user = await existingUser(services, b.id);
      if (services.auth.isBlocked(b.email)) throw forbidden('The domain of this email is blocked.');
      const data = { username: b.username, email: normalizeEmail(b.email), isAdmin: b.isAdmin };
      const entry: AuditEntry = {
        actor: caller,
        action: 'user.updated',
        target: { type: 'user', id: user.id },
        details: changes(user, data),
        request,
      };
      try {
        if (user.isAdmin && !b.isAdmin) {
          const r = await services.auth.users.keepingAnAdmin(user.id, async (tx) => {
            const u = await updateUserRow(tx, user.id, data);
            await recordAudit(tx, entry);
            return u;
          });
          if (r === 'last-admin') throw lastAdmin();
          services.auth.users.forget(r.id, r.email);
          return dto(r);
        }
        const updated = await withAudit(
          services.prisma,
          (tx) => services.auth.users.update(user.id, data, tx),
          () => entry,
        );
        services.auth.users.forget(updated.id, user.email);
        return dto(updated);
      } catch (e) {
        if (isUniqueViolation(e)) throw conflict('Another user has this email or user name.');
        throw e;
      }
    },
  }),
];
