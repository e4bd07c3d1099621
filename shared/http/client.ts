import type { HttpRequest } from '@azure/functions';

/** Who sent a request, as far as the platform's front end can tell. */
export interface ClientInfo {
  /** The address the front end saw; `unknown` when no front end said. */
  address: string;
  userAgent: string | null;
}

const MAX_USER_AGENT = 512;

/**
 * The client address is the last X-Forwarded-For entry: Azure's front ends append the address they
 * accepted the connection from (`ip:port` on App Service; Front Door documents the append in
 * learn.microsoft.com/azure/frontdoor/front-door-http-headers-protocol), so the entries before it
 * are whatever the client claimed and must not key a rate limit. The local host appends its
 * socket's address the same way (test/audit/audit-trail.test.ts checks a claimed address is ignored).
 */
export function clientAddressOf(request: Pick<HttpRequest, 'headers'>): string {
  const forwarded = request.headers.get('x-forwarded-for') ?? '';
  const last = forwarded.split(',').at(-1)?.trim() ?? '';
  if (!last) return 'unknown';
  // [v6]:port, v4:port, or a bare address of either family.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(last);
  if (bracketed) return bracketed[1]!.toLowerCase();
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?$/i.exec(last);
  if (v4) return v4[1]!;
  return last.toLowerCase().slice(0, 64);
}

export function clientOf(request: Pick<HttpRequest, 'headers'>): ClientInfo {
  const agent = request.headers.get('user-agent');
  return { address: clientAddressOf(request), userAgent: agent ? agent.slice(0, MAX_USER_AGENT) : null };
}
