import type { HttpRequest } from '@azure/functions';
import type { AuthSettings } from '../config/auth.js';
import { HttpError } from '../http/problem.js';
import { constantTimeEquals } from './swagger-gate.js';

/** The header the sibling Notification service sends its key in (or `Authorization: Bearer <key>`). */
export const NOTIFICATION_KEY_HEADER = 'X-Notification-Key';

function presentedKey(request: Pick<HttpRequest, 'headers'>): string | null {
  const header = request.headers.get(NOTIFICATION_KEY_HEADER);
  if (header) return header.trim();
  const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
  return bearer ? bearer[1]! : null;
}

/**
 * The push-token list of a monitor group is for the Notification service only: group ids are small
 * integers, so an anonymous route handed every user's push tokens to anyone who counted. The
 * service sends `Notification__ServiceKey`; the original's anonymous behaviour needs
 * `Notification__AllowAnonymousDeviceTokens=true`.
 */
export function requireNotificationService(
  settings: Pick<AuthSettings, 'Notification__ServiceKey' | 'Notification__AllowAnonymousDeviceTokens'>,
  request: Pick<HttpRequest, 'headers'>,
): void {
  if (settings.Notification__AllowAnonymousDeviceTokens) return;
  const expected = settings.Notification__ServiceKey;
  const presented = presentedKey(request);
  if (expected && presented && constantTimeEquals(presented, expected)) return;
  throw new HttpError(
    401,
    expected
      ? `The Notification service key is required (${NOTIFICATION_KEY_HEADER} or Authorization: Bearer).`
      : 'No Notification service key is configured (Notification__ServiceKey); this list is not served.',
    { headers: { 'WWW-Authenticate': 'Bearer' } },
  );
}
