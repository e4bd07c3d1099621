import type { HttpResponseInit } from '@azure/functions';
import type { Service } from './route.js';

/**
 * Headers every answer carries. Browsers must not sniff a JSON or problem body into HTML, no URL
 * (which may hold an id or an email) leaks through Referer, nothing of the auth service (tokens,
 * users) is kept by a cache, and no page of ours can be framed (clickjacking).
 */
export function securityHeaders(
  response: HttpResponseInit,
  service: Service | undefined,
): Record<string, string> {
  const out: Record<string, string> = {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
  if (service === 'auth') out['Cache-Control'] = 'no-store';
  const type = headerOf(response, 'content-type') ?? '';
  if (/^\s*text\/html/i.test(type)) {
    out['Content-Security-Policy'] = "frame-ancestors 'none'";
    out['X-Frame-Options'] = 'DENY';
  }
  return out;
}

function headerOf(response: HttpResponseInit, name: string): string | undefined {
  const h = response.headers;
  if (!h) return undefined;
  if (h instanceof Headers) return h.get(name) ?? undefined;
  if (Array.isArray(h)) return h.find(([k]) => k.toLowerCase() === name)?.[1];
  for (const [k, v] of Object.entries(h as Record<string, string>)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** The service of a request path (`/auth/api/...`, `/finops/api/...`), if any. */
export function serviceOfPath(pathname: string): Service | undefined {
  const m = /^\/*(auth|finops|metrics)\/api(?:\/|$)/i.exec(pathname);
  return m ? (m[1]!.toLowerCase() as Service) : undefined;
}
