import { z } from 'zod';
import { intText } from './fields.js';
import { badRequest } from './problem.js';

/**
 * The one paging rule of every list: `page` (1-based) and `pageSize` in the query, and the
 * X-Total-Count / X-Page / X-Page-Size headers on the answer. Every list is bounded: a route that
 * the original answered whole still answers at most `MAX_UNPAGED_ROWS` without paging, and
 * X-Total-Count then says how many there are, so a cut is always visible.
 */

/** The largest `pageSize` a client may ask for. */
export const MAX_PAGE_SIZE = 5000;

/** The most rows a list answers when the client did not ask for a page. */
export const MAX_UNPAGED_ROWS = 100_000;

/** Merge into a route's query schema: `pagingQuery.extend({...})` or `z.object({...pagingQuery.shape})`. */
export const pagingQuery = z.object({
  page: intText(1, 2_147_483_647).optional().describe('1-based page number (default 1)'),
  pageSize: intText(1, MAX_PAGE_SIZE).optional().describe(`rows per page (at most ${MAX_PAGE_SIZE})`),
});

export interface Paging {
  page: number;
  pageSize: number;
  /** Rows before the page. */
  skip: number;
  /** Whether the client sent page or pageSize. */
  explicit: boolean;
}

/**
 * The page a validated query asks for. `defaultPageSize` undefined: the list is answered whole
 * (up to MAX_UNPAGED_ROWS) when the client does not page.
 */
export function pageOf(query: { page?: number; pageSize?: number }, defaultPageSize?: number): Paging {
  const explicit = query.page !== undefined || query.pageSize !== undefined;
  const pageSize = query.pageSize ?? defaultPageSize ?? MAX_UNPAGED_ROWS;
  const page = query.page ?? 1;
  const skip = (page - 1) * pageSize;
  // PostgreSQL's OFFSET takes a bigint, but no list holds 2^31 rows: past that is a client error.
  if (skip > 2_147_483_647) throw badRequest('page is too large', { page: ['starts past any stored row'] });
  return { page, pageSize, skip, explicit };
}

/** The paging headers of an answer: the true total and the page served. */
export function pagedHeaders(
  total: number,
  paging: Pick<Paging, 'page' | 'pageSize'>,
): Record<string, string> {
  return {
    'X-Total-Count': String(total),
    'X-Page': String(paging.page),
    'X-Page-Size': String(paging.pageSize),
  };
}

/**
 * The total of a page for X-Total-Count, counted one way for every list: a page shorter than asked
 * for is the last one, so it tells the total itself; only a full page (or an empty page past the
 * start) needs `count()`.
 */
export async function pageTotal(
  rows: readonly unknown[],
  skip: number,
  take: number,
  count: () => Promise<number>,
): Promise<number> {
  if (rows.length > 0 && rows.length < take) return skip + rows.length;
  if (rows.length === 0 && skip === 0) return 0;
  return count();
}

/** A page read by `find` and its total by pageTotal's rule (`count` runs only when the page cannot tell). */
export async function countedPage<Row>(
  find: () => Promise<Row[]>,
  window: { skip: number; take: number },
  count: () => Promise<number>,
): Promise<{ rows: Row[]; total: number }> {
  const rows = await find();
  return { rows, total: await pageTotal(rows, window.skip, window.take, count) };
}
