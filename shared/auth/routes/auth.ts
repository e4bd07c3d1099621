import type { HttpRequest } from '@azure/functions';
import { z } from 'zod';
import type { AppServices } from '../../app/services.js';
import { pruneInBackground } from '../../audit/housekeeping.js';
import { recordAudit } from '../../audit/record.js';
import { badRequest, forbidden, HttpError } from '../../http/problem.js';
import { json } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { constantTimeEquals } from '../swagger-gate.js';
import { normalizeEmail, type UserRow } from '../users.js';
import { requireLoginEnabled, responses } from './common.js';

const tokenSchema = z.object({ token: z.string() });
const loginBody = z.object({
  username: z.string().trim().min(1, 'is required').describe('An email or a user name'),
  password: z.string().min(1, 'is required'),
});
const azureBody = z.object({
  email: z.email('must be an email address').trim(),
  apiKey: z.string().min(1, 'is required'),
});

/** Failed sign-ins per account allowed within the window before 429. */
export const LOGIN_MAX_FAILURES = 10;
export const LOGIN_WINDOW_MS = 15 * 60_000;
const PLACEHOLDER_API_KEYS = new Set(['your_auth_api_key', 'changeme', 'change-me']);

/** 429 with Retry-After while the account has LOGIN_MAX_FAILURES failures in the window. */
async function checkThrottle(services: AppServices, account: string): Promise<void> {
  const since = new Date(Date.now() - LOGIN_WINDOW_MS);
  const recent = await services.prisma.loginFailure.findMany({
    where: { account, createdAt: { gt: since } },
    orderBy: { createdAt: 'desc' },
    take: LOGIN_MAX_FAILURES,
    select: { createdAt: true },
  });
  if (recent.length < LOGIN_MAX_FAILURES) return;
  const oldest = recent[recent.length - 1]!.createdAt.getTime();
  const retryAfter = Math.max(1, Math.ceil((oldest + LOGIN_WINDOW_MS - Date.now()) / 1000));
  throw new HttpError(429, 'Too many failed sign-in attempts for this account; try again later.', {
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/** Promotes an ADMIN_EMAILS account seen at sign-in; records the sign-in time and its audit record. */
async function signedIn(
  services: AppServices,
  user: UserRow,
  request: HttpRequest,
  method: 'password' | 'mobile',
): Promise<UserRow> {
  const promote = !user.isAdmin && services.auth.isListedAdmin(user.email);
  const current = await services.prisma.$transaction(async (tx) => {
    const u = await tx.user.update({
      where: { id: user.id },
      data: { lastLogon: new Date(), ...(promote ? { isAdmin: true } : {}) },
    });
    await recordAudit(tx, {
      actor: { userId: user.id, email: user.email },
      action: 'signIn.succeeded',
      target: { type: 'user', id: user.id },
      details: { method, ...(promote ? { promotedToAdmin: true } : {}) },
      request,
    });
    return u;
  });
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
): Promise<void> {
  await recordAudit(services.prisma, {
    actor: user ? { userId: user.id, email: user.email } : { email: account },
    action: 'signIn.failed',
    ...(user ? { target: { type: 'user', id: user.id } } : {}),
    details: { reason },
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
      body: loginBody,
      responses: responses({ 200: { description: 'An own token', schema: tokenSchema } }, 400, 403, 429),
    },
    async handler({ services, body, request }) {
      requireLoginEnabled(services);
      const b = await body(loginBody);
      const { auth, prisma } = services;
      const user = b.username.includes('@')
        ? ((await auth.users.byEmail(b.username)) ?? (await auth.users.byUsername(b.username)))
        : await auth.users.byUsername(b.username);
      // One counter per account whichever name is typed; unknown names count by what was typed.
      const account = user ? user.email : normalizeEmail(b.username);
      await checkThrottle(services, account).catch(async (e: unknown) => {
        await signInFailed(services, request, account, user, 'too many failed attempts');
        throw e;
      });
      // Unknown accounts and accounts without a password verify against a dummy hash: same cost.
      const valid = await auth.passwords.check(user?.passwordHash, b.password);
      if (!user || !valid) {
        await prisma.$transaction([
          // Failures older than the window no longer count: drop them as new ones arrive.
          prisma.loginFailure.deleteMany({
            where: { account, createdAt: { lt: new Date(Date.now() - LOGIN_WINDOW_MS) } },
          }),
          prisma.loginFailure.create({ data: { account } }),
        ]);
        const reason = !user ? 'unknown account' : user.passwordHash ? 'wrong password' : 'no password';
        await signInFailed(services, request, account, user, reason);
        throw badRequest('Invalid credentials.');
      }
      if (auth.isBlocked(user.email)) {
        await signInFailed(services, request, account, user, 'blocked domain');
        throw forbidden('The domain of this account is blocked.');
      }
      await prisma.loginFailure.deleteMany({ where: { account } });
      const current = await signedIn(services, user, request, 'password');
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
    async handler({ services, caller }) {
      const user = await services.auth.users.byId(caller.userId);
      if (!user) throw new HttpError(401, 'The token does not belong to a known user.');
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
      body: azureBody,
      responses: responses({ 200: { description: 'An own token', schema: tokenSchema } }, 400, 403),
    },
    async handler({ services, body, request }) {
      const b = await body(azureBody);
      const { auth, config } = services;
      const expected = config.auth.MOBILE_API_KEY;
      // The key is checked (constant time) before anything is looked up or created.
      const keyOk =
        expected !== undefined &&
        !PLACEHOLDER_API_KEYS.has(expected.toLowerCase()) &&
        constantTimeEquals(b.apiKey, expected);
      if (!keyOk) {
        await signInFailed(services, request, normalizeEmail(b.email), null, 'invalid mobile API key');
        throw badRequest('Invalid API key.');
      }
      if (auth.isBlocked(b.email)) throw forbidden('The domain of this account is blocked.');
      const existing = await auth.users.byEmail(b.email);
      const user = existing ?? (await auth.userForDirectoryIdentity(b.email));
      if (!existing && config.auth.DEMO_MODE) {
        await services.prisma.userMonitorGroup.createMany({
          data: [{ userId: user.id, groupMonitorId: config.auth.DEMO_MONITOR_GROUP_ID }],
          skipDuplicates: true,
        });
      }
      const current = await signedIn(services, user, request, 'mobile');
      return json(200, { token: auth.issueToken(current) });
    },
  }),
];
