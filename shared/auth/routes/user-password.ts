import { z } from 'zod';
import { recordAudit } from '../../audit/record.js';
import { MAX_EMAIL_CHARS, MAX_PASSWORD_CHARS } from '../../http/limits.js';
import { badRequest } from '../../http/problem.js';
import { emptyOk, json, noContent } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { changePassword, confirmReset, countResetRequest, sendResetCode } from '../password-reset.js';
import { admitPasswordAttempt, clearAttempts, throttleLimits } from '../throttle.js';
import { existingUser, requireLoginEnabled, responses } from './common.js';
import { emailParams, password, T } from './user-common.js';

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

export const userPasswordRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-user-reset-password-confirm',
    service: 'auth',
    method: 'POST',
    path: 'User/resetPassword/confirm',
    auth: 'none',
    openapi: {
      summary: 'Set a new password with the emailed reset code (single use, 30 minutes)',
      tags: T,
      responses: responses({ 204: { description: 'Password changed; older tokens stop working' } }, 400, 403),
    },
    before: ({ services }) => requireLoginEnabled(services),
    input: { body: confirmBody },
    async handler({ services, input: { body: b }, request }) {
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
      responses: responses(
        { 200: { description: 'Accepted (empty body), whether or not the account exists' } },
        400,
        403,
        429,
      ),
    },
    before: ({ services }) => requireLoginEnabled(services),
    input: { params: emailParams },
    async handler({
      services,
      input: {
        params: { email },
      },
      request,
    }) {
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
      responses: responses(
        { 200: { description: 'A new own token for the caller', schema: z.object({ token: z.string() }) } },
        400,
        401,
        403,
        429,
      ),
    },
    before: ({ services }) => requireLoginEnabled(services),
    input: { body: updatePasswordBody },
    async handler({ services, caller, input: { body: b }, request }) {
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
];
