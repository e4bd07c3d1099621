import { z } from 'zod';
import { HttpError } from '../../http/problem.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { confirmReset, liveResetCode } from '../password-reset.js';
import { MIN_PASSWORD_LENGTH } from '../passwords.js';
import { resetDone, resetForm, resetRefused, resetUnavailable } from '../reset-page.js';
import { password } from './user.js';

const MAX_FORM_BYTES = 16 * 1024;
const newPasswordForm = z.object({ newPassword: password(), repeatPassword: z.string() });

/** The person-facing reset page linked from the reset email (`PasswordReset__LinkUrl` unset). */
export const resetPageRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-reset-password-page',
    service: 'auth',
    method: 'GET',
    path: 'ResetPassword',
    auth: 'none',
    openapi: {
      summary: 'The password reset page of the emailed link (HTML; works without JavaScript)',
      tags: ['User'],
      query: z.object({ email: z.string(), code: z.string() }),
      responses: {
        200: { description: 'The form', contentType: 'text/html' },
        400: {
          description: 'The link is expired, spent or incomplete (HTML page)',
          contentType: 'text/html',
        },
      },
    },
    async handler({ services, query }) {
      if (!services.config.auth.ENABLED_LOGIN_AUTH) return resetUnavailable();
      const email = (query.get('email') ?? '').trim();
      const code = (query.get('code') ?? '').trim();
      // Checked, not spent: the person sees a dead link at once rather than after typing twice.
      if (!email || !code || !(await liveResetCode(services, email, code))) return resetRefused();
      return resetForm(email, code, MIN_PASSWORD_LENGTH);
    },
  }),
  defineRoute({
    name: 'auth-reset-password-page-submit',
    service: 'auth',
    method: 'POST',
    path: 'ResetPassword',
    auth: 'none',
    openapi: {
      summary: 'The reset page form (application/x-www-form-urlencoded): spends the code, sets the password',
      tags: ['User'],
      responses: {
        200: { description: 'Password changed (HTML page)', contentType: 'text/html' },
        400: {
          description: 'Form problem (the form again) or a dead code (HTML page)',
          contentType: 'text/html',
        },
      },
    },
    async handler({ services, request }) {
      if (!services.config.auth.ENABLED_LOGIN_AUTH) return resetUnavailable();
      const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') {
        throw new HttpError(415, 'Send the form as application/x-www-form-urlencoded.');
      }
      const text = await request.text();
      if (Buffer.byteLength(text) > MAX_FORM_BYTES) throw new HttpError(413, 'The form is too large.');
      const form = new URLSearchParams(text);
      const email = (form.get('email') ?? '').trim();
      const code = (form.get('code') ?? '').trim();
      if (!email || !code) return resetRefused();
      const r = newPasswordForm.safeParse({
        newPassword: form.get('newPassword') ?? '',
        repeatPassword: form.get('repeatPassword') ?? '',
      });
      if (!r.success) {
        const problem = `The new password ${r.error.issues[0]?.message ?? 'is invalid'}.`;
        return resetForm(email, code, MIN_PASSWORD_LENGTH, problem, 400);
      }
      if (r.data.newPassword !== r.data.repeatPassword) {
        return resetForm(email, code, MIN_PASSWORD_LENGTH, 'The two passwords do not match.', 400);
      }
      const outcome = await confirmReset(services, { email, code, newPassword: r.data.newPassword }, request);
      return outcome === 'ok' ? resetDone() : resetRefused();
    },
  }),
];
