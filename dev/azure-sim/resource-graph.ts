/** Resource Graph `POST /providers/Microsoft.ResourceGraph/resources` (2021-03-01) over synthetic data. */

import { compileQuery, KqlError } from './kql.js';
import { hashString } from './prng.js';
import type { SimSubscription } from './subscription.js';

export interface GraphContext {
  subscription(id: string): SimSubscription;
  maxPageSize: number;
}

export interface GraphAnswer {
  status: number;
  body: unknown;
}

function badRequest(code: string, message: string): GraphAnswer {
  return {
    status: 400,
    body: {
      error: {
        code: 'BadRequest',
        message: 'Please provide below info when asking for support: timestamp, correlationId.',
        details: [{ code, message }],
      },
    },
  };
}

export function handleGraph(body: unknown, ctx: GraphContext): GraphAnswer {
  const b = (body ?? {}) as Record<string, unknown>;
  const subs = b['subscriptions'];
  if (!Array.isArray(subs) || subs.length === 0 || !subs.every((s) => typeof s === 'string')) {
    return badRequest('InvalidSubscriptions', 'subscriptions must be a non-empty array of ids.');
  }
  if (typeof b['query'] !== 'string') return badRequest('InvalidQuery', 'query is required.');
  const options = (b['options'] ?? {}) as Record<string, unknown>;
  if (options['resultFormat'] !== undefined && options['resultFormat'] !== 'objectArray') {
    return badRequest('UnsupportedResultFormat', 'The simulator serves resultFormat objectArray only.');
  }
  let run: ReturnType<typeof compileQuery>;
  try {
    run = compileQuery(b['query']);
  } catch (err) {
    if (err instanceof KqlError) return badRequest('InvalidQuery', err.message);
    throw err;
  }
  const top = options['$top'] === undefined ? 100 : Number(options['$top']);
  if (!Number.isInteger(top) || top < 1 || top > 1000) {
    return badRequest('InvalidTop', '$top must be an integer between 1 and 1000.');
  }
  const pageSize = Math.min(top, ctx.maxPageSize);
  const fingerprint = hashString(`${(subs as string[]).join(',').toLowerCase()}|${b['query']}`);
  let offset = Number(options['$skip'] ?? 0);
  const token = options['$skipToken'];
  if (token !== undefined && token !== null) {
    let parsed: { o?: unknown; h?: unknown } = {};
    try {
      parsed = JSON.parse(Buffer.from(String(token), 'base64').toString('utf8')) as typeof parsed;
    } catch {
      // fall through to the check below
    }
    if (typeof parsed.o !== 'number' || parsed.h !== fingerprint) {
      return badRequest('InvalidSkipToken', 'The $skipToken is not valid for this query.');
    }
    offset = parsed.o;
  }
  const scoped = (subs as string[]).map((id) => ctx.subscription(id));
  const rows = run((table) => {
    const pick = (s: SimSubscription) =>
      table === 'resources' ? s.resources : table === 'resourcecontainers' ? s.containers : s.advisor;
    return scoped.flatMap(pick) as unknown as Array<Record<string, unknown>>;
  });
  const data = rows.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return {
    status: 200,
    body: {
      totalRecords: rows.length,
      count: data.length,
      resultTruncated: 'false',
      ...(next < rows.length
        ? { $skipToken: Buffer.from(JSON.stringify({ o: next, h: fingerprint })).toString('base64') }
        : {}),
      data,
      facets: [],
    },
  };
}
