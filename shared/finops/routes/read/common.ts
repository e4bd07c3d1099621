import type { HttpResponseInit } from '@azure/functions';
import { z } from 'zod';
import { badRequest } from '../../../http/problem.js';
import { pagingHeaders } from '../../../http/respond.js';

/** The largest `pageSize` a client may ask for, and the cap of the dashboard's lists. */
export const MAX_LIST_ROWS = 5000;

/**
 * The most rows an unpaged list answers. Routes the original left unbounded (W6) still answer the
 * whole list when no `page`/`pageSize` is given, as the web client expects (it reads six months of
 * history by group and service in one call: about 51,000 rows for a realistic subscription), but
 * never more than this; `X-Total-Count` then tells the true size so a client can page for the rest.
 */
export const MAX_UNPAGED_ROWS = 100_000;

/** A path parameter that must be a positive 32-bit integer (a run or row id): 400 otherwise. */
export function idParam(params: Record<string, string>, name: string): number {
  const raw = (params[name] ?? '').trim();
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > 2_147_483_647) {
    throw badRequest(`The path parameter '${name}' must be a positive integer.`, {
      [name]: [`The value '${raw}' is not valid.`],
    });
  }
  return Number(raw);
}

/** A required, non-blank string path parameter, trimmed. */
export function textParam(params: Record<string, string>, name: string): string {
  const v = (params[name] ?? '').trim();
  if (!v) throw badRequest(`The path parameter '${name}' is required.`, { [name]: ['A value is required.'] });
  return v;
}

export interface Paging {
  page: number;
  pageSize: number;
  skip: number;
  /** Whether the client sent page or pageSize. */
  explicit: boolean;
}

function positiveInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const t = raw.trim();
  if (!/^-?\d{1,10}$/.test(t) || Number(t) < 1) {
    throw badRequest(`The query parameter '${name}' must be a positive integer.`, {
      [name]: [`The value '${raw}' is not valid; use an integer of 1 or more.`],
    });
  }
  if (name === 'pageSize' && Number(t) > MAX_LIST_ROWS) {
    throw badRequest(`The query parameter 'pageSize' must not exceed ${MAX_LIST_ROWS}.`, {
      pageSize: [`At most ${MAX_LIST_ROWS} rows per page.`],
    });
  }
  return Number(t);
}

/**
 * `page`/`pageSize` as the original read them; a value of 0 or less, or not a number, is a 400
 * (the original turned it into an SQL error and a 500, W6). `defaultPageSize` undefined means the
 * original answered the whole list: then an unpaged request gets up to MAX_UNPAGED_ROWS rows.
 */
export function paging(query: URLSearchParams, defaultPageSize?: number): Paging {
  const page = positiveInt(query, 'page');
  const size = positiveInt(query, 'pageSize');
  const explicit = page !== undefined || size !== undefined;
  const pageSize = size ?? defaultPageSize ?? MAX_UNPAGED_ROWS;
  const p = page ?? 1;
  const skip = (p - 1) * pageSize;
  if (skip > 2_147_483_647) {
    throw badRequest("The query parameter 'page' is too large.", {
      page: ['The page starts past any stored row.'],
    });
  }
  return { page: p, pageSize, skip, explicit };
}

export const listHeaders = (total: number, p: Paging) => pagingHeaders(total, p.page, p.pageSize);

/** 200 with a JSON body already serialised (text or its UTF-8 bytes, not through stringify's replacer). */
export function okJsonText(json: string | Buffer, headers: Record<string, string> = {}): HttpResponseInit {
  return {
    status: 200,
    body: json,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  };
}

// OpenAPI descriptions of the common parameters.
export const runIdParams = z.object({ analysisRunId: z.string().regex(/^\d+$/) });
export const idParams = z.object({ id: z.string().regex(/^\d+$/) });
export const pagingQuery = z.object({
  page: z.string().optional().describe('1-based page number (default 1)'),
  pageSize: z.string().optional().describe(`rows per page (at most ${MAX_LIST_ROWS})`),
});
export const PAGED_HEADERS_NOTE =
  'Paging headers X-Total-Count, X-Page and X-Page-Size are set (exposed through CORS).';
export const UNPAGED_NOTE = `Without page/pageSize the whole list is answered, at most ${MAX_UNPAGED_ROWS} rows; X-Total-Count tells the true size.`;
export const STREAMED_NOTE =
  'The unpaged answer is streamed (chunked; br or gzip when accepted). A user may have ' +
  'Http__MaxHeavyRequestsPerUser (2) of them in flight at once: 429 with Retry-After beyond.';

/** The 429 of a heavy (unpaged, streamed) list, for the OpenAPI responses. */
export const HEAVY_429: Record<number, { description: string }> = {
  429: { description: 'Too many unpaged answers of this user in flight; see Retry-After' },
};
