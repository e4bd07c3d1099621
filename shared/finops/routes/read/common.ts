import type { HttpResponseInit } from '@azure/functions';
import { z } from 'zod';
import { idText } from '../../../http/fields.js';
import {
  MAX_PAGE_SIZE,
  MAX_UNPAGED_ROWS,
  type Paging,
  pagedHeaders,
  pageOf,
  pagingQuery,
} from '../../../http/paging.js';

export { MAX_UNPAGED_ROWS, type Paging, pagedHeaders, pageOf, pagingQuery };

/** The largest `pageSize` a client may ask for, and the cap of the dashboard's lists. */
export const MAX_LIST_ROWS = MAX_PAGE_SIZE;

/** 200 with a JSON body already serialised (text or its UTF-8 bytes, not through stringify's replacer). */
export function okJsonText(json: string | Buffer, headers: Record<string, string> = {}): HttpResponseInit {
  return {
    status: 200,
    body: json,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  };
}

/** The path of a route about one run: `analysisRunId`, a positive 32-bit integer. */
export const runIdParams = z.object({ analysisRunId: idText() });
/** The path of a route about one row: `id`, a positive 32-bit integer. */
export const idParams = z.object({ id: idText() });
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
