import { z } from 'zod';
import type { AppServices } from '../../app/services.js';
import { guid, int32, intText } from '../../http/fields.js';
import { INT32_MAX, INT32_MIN } from '../../http/limits.js';
import { type Paging, pagedHeaders, pageOf } from '../../http/paging.js';
import { forbidden, HttpError, notFound } from '../../http/problem.js';
import { ok } from '../../http/respond.js';
import type { OpenApiInfo } from '../../http/route.js';
import type { Caller } from '../caller.js';
import type { UserRow } from '../users.js';

/** The field schemas of every route (one GUID check, one 32-bit integer rule). */
export { guid, int32 };

export const userDtoSchema = z.object({
  id: z.string().describe('uuid'),
  username: z.string(),
  email: z.string(),
  isAdmin: z.boolean(),
});

export const userIdParams = z.object({ userId: guid() });
/** A path value holding a 32-bit integer, by the one rule of whole numbers in path and query. */
export const int32Param = () => intText(INT32_MIN, INT32_MAX);
export const groupIdParams = z.object({ groupId: int32Param() });

/** ENABLED_LOGIN_AUTH=false: username/password sign-in, create and password changes are refused. */
export function requireLoginEnabled(services: AppServices): void {
  if (!services.config.auth.ENABLED_LOGIN_AUTH) throw new HttpError(403, 'Login is disabled.');
}

/** Reads of a user's data: that user or an administrator only. */
export function requireSelfOrAdmin(caller: Caller, userId: string): void {
  if (caller.isAdmin || caller.userId.toLowerCase() === userId.toLowerCase()) return;
  throw forbidden('This user is not authorized to view this operation.');
}

export async function existingUser(services: AppServices, userId: string): Promise<UserRow> {
  const user = await services.auth.users.byId(userId);
  if (!user) throw notFound('User not found.');
  return user;
}

export const problem = (description: string) => ({ description, contentType: 'application/problem+json' });

/** Common error answers in the OpenAPI document. */
export function responses(
  ok: OpenApiInfo['responses'],
  ...codes: (400 | 401 | 403 | 404 | 409 | 429)[]
): NonNullable<OpenApiInfo['responses']> {
  const text: Record<number, string> = {
    400: 'The request is invalid',
    401: 'Missing, invalid or expired Bearer token',
    403: 'Not allowed (not an administrator, not the user, blocked domain or login disabled)',
    404: 'Not found',
    409: 'Conflicts with the current state',
    429: 'Too many attempts (failed sign-ins, reset requests); see Retry-After',
  };
  const out: NonNullable<OpenApiInfo['responses']> = { ...ok };
  for (const c of codes) out[c] = problem(text[c]!);
  return out;
}

/**
 * Auth lists answer at most this many rows when the client does not page (the original web client
 * reads plain arrays and never pages); X-Total-Count tells the true number, so a cut is visible.
 */
export const AUTH_UNPAGED_ROWS = 10_000;

/** The page of an auth list's validated paging query, as `{ skip, take }` for a query module. */
export function authPage(query: { page?: number; pageSize?: number }) {
  const p = pageOf(query, AUTH_UNPAGED_ROWS);
  return { paging: p, window: { skip: p.skip, take: p.pageSize } };
}

/** The array answer of a paged list, with X-Total-Count, X-Page and X-Page-Size. */
export function listAnswer<T>(rows: T[], total: number, paging: Paging) {
  return ok(rows, pagedHeaders(total, paging));
}
