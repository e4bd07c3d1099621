import { describe, expect, it } from 'vitest';
import { validate } from '../../shared/http/body.js';
import { queryObject } from '../../shared/http/input.js';
import {
  MAX_PAGE_SIZE as MAX_LIST_ROWS,
  MAX_UNPAGED_ROWS,
  pageOf,
  pagingQuery,
} from '../../shared/http/paging.js';

/** A query string through the paging schema and rule, as a route's validated input gets it. */
const paging = (query: URLSearchParams, defaultPageSize?: number) =>
  pageOf(validate(pagingQuery, queryObject(pagingQuery, query), 'query'), defaultPageSize);

import { HttpError } from '../../shared/http/problem.js';

const q = (s: string) => new URLSearchParams(s);

describe('list paging', () => {
  it('answers an unpaged list whole up to the unpaged cap, as the web client reads history in one call', () => {
    expect(paging(q(''))).toEqual({ page: 1, pageSize: MAX_UNPAGED_ROWS, skip: 0, explicit: false });
    expect(MAX_UNPAGED_ROWS).toBeGreaterThanOrEqual(51_000);
  });

  it("keeps the original's default page size where it had one", () => {
    expect(paging(q(''), 10)).toMatchObject({ pageSize: 10, explicit: false });
    expect(paging(q('page=3'), 50)).toMatchObject({ page: 3, pageSize: 50, skip: 100, explicit: true });
  });

  it('refuses a page size over the page cap and a page or size below 1 with 400', () => {
    for (const bad of [
      `pageSize=${MAX_LIST_ROWS + 1}`,
      'page=0',
      'pageSize=-5',
      'page=abc',
      'pageSize=1.5',
    ]) {
      expect(() => paging(q(bad)), bad).toThrow(HttpError);
    }
    expect(paging(q(`pageSize=${MAX_LIST_ROWS}`)).pageSize).toBe(MAX_LIST_ROWS);
  });
});
