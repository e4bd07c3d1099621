import type { HttpRequest } from '@azure/functions';
import { z } from 'zod';
import type { AppServices } from '../../app/services.js';
import { pruneInBackground } from '../../audit/housekeeping.js';
import { recordAudit } from '../../audit/record.js';
import { clientAddressOf } from '../../http/client.js';
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS, MAX_PASSWORD_CHARS, MAX_SECRET_CHARS } from '../../http/limits.js';
import { badRequest, forbidden, HttpError, unauthorized } from '../../http/problem.js';
import { json } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { assignGroup } from '../queries/assignments.js';
import { recordSignIn } from '../queries/users.js';
import { constantTimeEquals } from '../swagger-gate.js';
import { admitPasswordAttempt, rememberSignIn, throttleLimits } from '../throttle.js';
import { normalizeEmail, type UserRow } from '../users.js';
import { requireLoginEnabled, responses } from './common.js';

const tokenSchema = z.object({ token: z.string() });
const loginBody = z.object({
  username: z.string().trim().min(1, 'is required').max(MAX_NAME_CHARS).describe('An email or a user name'),
  password: z.string().min(1, 'is required').max(MAX_PASSWORD_CHARS),
});
const azureBody = z.object({
  email: z.email('must be an email address').trim().max(MAX_EMAIL_CHARS),
  apiKey: z.string().min(1, 'is required').max(MAX_SECRET_CHARS),
});

export { LOGIN_MAX_FAILURES, LOGIN_WINDOW_MS } from '../throttle.js';

const PLACEHOLDER_API_KEYS = new Set(['your_auth_api_key', 'changeme', 'change-me']);

/**
 * Records the sign-in time and its audit record together. It never promotes an ADMIN_EMAILS
 * account: a password or the mobile key proves nothing about who owns the address, and a promotion
 * here undid admins' demotions.
 */
async function signedIn(
  services: AppServices,
  user: UserRow,
  request: HttpRequest,
  method: 'password' | 'mobile' | 'directory',
  extra: Record<string, unknown> = {},
): Promise<UserRow> {
  const current = await recordSignIn(services.prisma, user, new Date(), { method, ...extra }, request);
  services.auth.users.forget(user.id, current.email);
  pruneInBackground(services);
  return current;
}

/** A refused sign-in writes nothing else, so its record is written on its own. */
async function signInFailed(
  services: AppServices,
  request: HttpRequest,
  account: string,
  user: UserRow | null,
  reason: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await recordAudit(services.prisma, {
    actor: user ? { userId: user.id, email: user.email } : { email: account },
    action: 'signIn.failed',
    ...(user ? { target: { type: 'user', id: user.id } } : {}),
    details: { reason, ...extra },
    request,
  });
}

export const authApiRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-login',
    service: 'auth',
    method: 'POST',
    path: 'Auth/login',
    auth: 'none',
    openapi: {
      summary: 'Sign in with an email (or user name) and password',
      tags: ['Auth'],
      responses: responses({ 200: { description: 'An own token', schema: tokenSchema } }, 400, 403, 429),
    },
    before: ({ services }) => requireLoginEnabled(services),
    input: { body: loginBody },
    async handler({ services, input: { body: b }, request }) {
      const { auth, prisma } = services;
      const user = b.username.includes('@')
        ? ((await auth.users.byEmail(b.username)) ?? (await auth.users.byUsername(b.username)))
        : await auth.users.byUsername(b.username);
      // One counter per account whichever name is typed; unknown names count by what was typed.
      const account = user ? user.email : normalizeEmail(b.username);
      const key = { account, kind: 'signIn' as const, clientAddress: clientAddressOf(request) };
      const { delayedSeconds } = await admitPasswordAttempt(
        prisma,
        key,
        throttleLimits(services.config.auth),
      ).catch(async (e: unknown) => {
        await signInFailed(services, request, account, user, 'too many failed attempts from this address');
        throw e;
      });
      // The account-wide slow-down, when it applied, is on the record of the attempt it delayed.
      const slowed = delayedSeconds > 0 ? { delayedSeconds } : {};
      // Unknown accounts and accounts without a password verify against a dummy hash: same cost.
      const valid = await auth.passwords.check(user?.passwordHash, b.password);
      if (!user || !valid) {
        const reason = !user ? 'unknown account' : user.passwordHash ? 'wrong password' : 'no password';
        await signInFailed(services, request, account, user, reason, slowed);
        throw badRequest('Invalid credentials.');
      }
      if (auth.isBlocked(user.email)) {
        await signInFailed(services, request, account, user, 'blocked domain', slowed);
        throw forbidden('The domain of this account is blocked.');
      }
      await rememberSignIn(prisma, key);
      const current = await signedIn(services, user, request, 'password', slowed);
      return json(200, { token: auth.issueToken(current) });
    },
  }),
  defineRoute({
    name: 'auth-refresh-token',
    service: 'auth',
    method: 'POST',
    path: 'Auth/refreshToken',
    auth: 'user',
    openapi: {
      summary: 'A new own token for the caller of a valid token',
      tags: ['Auth'],
      responses: responses({ 200: { description: 'A new own token', schema: tokenSchema } }, 401, 403),
    },
    async handler({ services, caller, request }) {
      const known = await services.auth.users.byId(caller.userId);
      if (!known) throw new HttpError(401, 'The token does not belong to a known user.');
      // A directory token exchanged for an own token is how the web client and the console sign a
      // directory user in: that is the sign-in the audit trail and lastLogon record. Renewing an own
      // token is not a sign-in.
      const user =
        caller.tokenKind === 'directory' ? await signedIn(services, known, request, 'directory') : known;
      return json(200, { token: services.auth.issueToken(user) });
    },
  }),
  defineRoute({
    name: 'auth-azure',
    service: 'auth',
    method: 'POST',
    path: 'Auth/azure',
    auth: 'none',
    openapi: {
      summary: 'Mobile sign-in with the mobile API key; creates the user on first use',
      tags: ['Auth'],
      responses: responses({ 200: { description: 'An own token', schema: tokenSchema } }, 400, 401, 403),
    },
    input: { body: azureBody },
    async handler({ services, input: { body: b }, request }) {
      const { auth, config, log } = services;
      const strict = config.auth.MOBILE_API_KEY_STRICT;
      const email = normalizeEmail(b.email);
      const audit = (outcome: string, extra: Record<string, unknown> = {}) =>
        log.warn({ audit: 'mobile-key', email, strict, outcome, ...extra }, 'mobile key sign-in');
      /** Every refusal is logged and lands in the audit trail. */
      const refuse = async (reason: string, user: UserRow | null = null) => {
        audit(`refused: ${reason}`, user ? { userId: user.id } : {});
        await signInFailed(services, request, email, user, reason);
      };
      const expected = config.auth.MOBILE_API_KEY;
      // The key is checked (constant time) before anything is looked up or created.
      const keyOk =
        expected !== undefined &&
        !PLACEHOLDER_API_KEYS.has(expected.toLowerCase()) &&
        constantTimeEquals(b.apiKey, expected);
      if (!keyOk) {
        await refuse('invalid mobile API key');
        throw badRequest('Invalid API key.');
      }
      if (auth.isBlocked(b.email)) {
        await refuse('blocked domain');
        throw forbidden('The domain of this account is blocked.');
      }
      // Strict mode: the key says "our app", a directory token says who is using it.
      let proven = false;
      if (strict) {
        const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
        if (!m) {
          await refuse('no directory token');
          throw unauthorized('A directory token (Authorization: Bearer) is required with the mobile key.');
        }
        const names = (await auth.directoryEmails(m[1]!)).map(normalizeEmail);
        if (!names.includes(normalizeEmail(b.email))) {
          await refuse('directory token names another identity');
          throw forbidden('The directory token does not belong to this email.');
        }
        proven = true;
      }
      const existing = await auth.users.byEmail(b.email);
      // The key ships in every app install: on its own it must not open an administrator's account
      // or one protected by a password (contract weakness: the shared key as a master key).
      if (existing && !proven && (existing.isAdmin || existing.passwordHash)) {
        await refuse('administrator or password account', existing);
        throw forbidden(
          'This account cannot sign in with the mobile key; sign in with its password or the directory.',
        );
      }
      const user =
        existing ?? (await auth.userForDirectoryIdentity(b.email, undefined, { signedIn: proven }));
      if (!existing && config.auth.DEMO_MODE) {
        await assignGroup(services.prisma, user.id, config.auth.DEMO_MONITOR_GROUP_ID);
      }
      const current = await signedIn(services, user, request, 'mobile');
      audit(existing ? 'token issued' : 'token issued: user created', { userId: user.id });
      return json(200, { token: auth.issueToken(current) });
    },
  }),
];
