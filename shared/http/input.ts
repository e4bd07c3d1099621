import type { HttpRequest } from '@azure/functions';
import { z } from 'zod';
import { validate } from './body.js';
import type { RouteInput, ValidInput } from './route.js';

/** The schema under optional/default/pipe wrappers, to see whether a query field is a list. */
function core(schema: unknown): unknown {
  let s = schema as { def?: { type?: string; innerType?: unknown; in?: unknown } };
  for (let i = 0; i < 10 && s?.def; i++) {
    const t = s.def.type;
    if (t === 'optional' || t === 'nullable' || t === 'default' || t === 'prefault' || t === 'catch')
      s = s.def.innerType as typeof s;
    else if (t === 'pipe') s = s.def.in as typeof s;
    else break;
  }
  return s;
}

/**
 * The query string as the schema's object: names matched case-insensitively (an exact-case name
 * wins), the first value of a repeated name, all values where the schema wants a list. Names the
 * schema does not know are left out, as ASP.NET Core ignores them.
 */
export function queryObject(schema: unknown, query: URLSearchParams): Record<string, string | string[]> {
  const s = core(schema);
  if (!(s instanceof z.ZodObject)) return Object.fromEntries(query);
  const shape = s.shape as Record<string, unknown>;
  const byLower = new Map(Object.keys(shape).map((k) => [k.toLowerCase(), k]));
  const out: Record<string, string | string[]> = {};
  const exact = new Set<string>();
  for (const [name, value] of query) {
    const key = name in shape ? name : byLower.get(name.toLowerCase());
    if (key === undefined) continue;
    if (core(shape[key]) instanceof z.ZodArray) {
      const list = (out[key] as string[] | undefined) ?? [];
      list.push(value);
      out[key] = list;
      continue;
    }
    // The first value wins; a later exact-case spelling wins over an other-case one.
    if (key in out && (exact.has(key) || name !== key)) continue;
    out[key] = value;
    if (name === key) exact.add(key);
  }
  return out;
}

/**
 * Validates a route's declared input; undeclared parts stay undefined. `readBody` parses the JSON
 * body with the host's rules (size, content type, string checks) and is called only when the
 * route declares a body.
 */
export async function validateInput(
  input: RouteInput | undefined,
  params: Record<string, string>,
  request: Pick<HttpRequest, 'query'>,
  readBody: () => Promise<unknown>,
): Promise<ValidInput> {
  if (!input) return { params, query: undefined, body: undefined };
  return {
    params: input.params ? validate(input.params, params, 'path') : params,
    query: input.query ? validate(input.query, queryObject(input.query, request.query), 'query') : undefined,
    body: input.body ? validate(input.body, await readBody(), 'request body') : undefined,
  };
}
