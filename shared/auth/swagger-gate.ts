import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '../config/index.js';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time equality of two strings (hashes first, so lengths do not leak). */
export function constantTimeEquals(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * The basic-auth gate of the auth service's Swagger UI: 'ok' only for the configured
 * SwaggerUICredentials__username/password; refused (never open) when they are unset.
 */
export function checkSwaggerCredentials(
  config: Pick<AppConfig, 'auth'>,
  authorizationHeader: string | null | undefined,
): 'ok' | 'refused' {
  const user = config.auth.SwaggerUICredentials__username;
  const password = config.auth.SwaggerUICredentials__password;
  if (!user || !password || !authorizationHeader) return 'refused';
  const m = /^\s*basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorizationHeader);
  if (!m) return 'refused';
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return 'refused';
  const okUser = constantTimeEquals(decoded.slice(0, i), user);
  const okPassword = constantTimeEquals(decoded.slice(i + 1), password);
  return okUser && okPassword ? 'ok' : 'refused';
}
