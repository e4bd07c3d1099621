/** Headers the web client must read across origins (the original did not expose them, W7). */
export const EXPOSED_HEADERS = ['X-Total-Count', 'X-Page', 'X-Page-Size', 'Location', 'Retry-After'];

export interface CorsPolicy {
  /** '*' or an explicit list of origins. */
  origins: '*' | string[];
}

export function parseCorsOrigins(value: string | undefined): CorsPolicy {
  const v = (value ?? '*').trim();
  if (v === '' || v === '*') return { origins: '*' };
  return {
    origins: v
      .split(',')
      .map((o) => o.trim().replace(/\/$/, ''))
      .filter(Boolean),
  };
}

/** CORS headers for an actual response; none when the origin is not allowed. */
export function corsHeaders(policy: CorsPolicy, origin: string | null): Record<string, string> {
  if (!origin) return {};
  if (policy.origins !== '*' && !policy.origins.includes(origin.replace(/\/$/, ''))) return {};
  return {
    'Access-Control-Allow-Origin': policy.origins === '*' ? '*' : origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '),
    ...(policy.origins === '*' ? {} : { Vary: 'Origin' }),
  };
}

export function preflightHeaders(
  policy: CorsPolicy,
  origin: string | null,
  requestHeaders: string | null,
): Record<string, string> {
  const base = corsHeaders(policy, origin);
  if (!base['Access-Control-Allow-Origin']) return {};
  return {
    ...base,
    'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, PATCH, OPTIONS',
    'Access-Control-Allow-Headers': requestHeaders ?? 'Authorization, Content-Type',
    'Access-Control-Max-Age': '600',
  };
}
