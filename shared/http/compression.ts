import { createHash } from 'node:crypto';
import { pipeline, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { HttpResponseInit } from '@azure/functions';
import type { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';
import { byteBoundedCache } from './byte-bounded-cache.js';
import { dropHeader, headerRecord, headerValue } from './headers.js';
import { bytesOf, isStreamBody, toReadable } from './stream-body.js';

export type ContentCoding = 'br' | 'gzip';

/** negotiator's `encoding` with its `preferred` option, which its type declarations leave out. */
type EncodingWithPreference = (
  this: Negotiator,
  available: readonly string[],
  options: { preferred: readonly string[] },
) => string | undefined;

/**
 * The coding to answer with, from Accept-Encoding's q-values (negotiator: RFC 9110 section
 * 12.5.3): the highest-weighted of br and gzip, br on a tie (smaller at the same speed at the
 * quality used here); `*` stands for any coding not named; q=0 or a malformed weight refuses.
 * None acceptable: identity. `offered`: the codings the answer is available in, best first.
 */
export function negotiateEncoding(
  header: string | null | undefined,
  offered: readonly ContentCoding[] = ['br', 'gzip'],
): ContentCoding | undefined {
  if (!header) return undefined;
  // x-gzip is gzip's old name (RFC 9110 section 8.4.1.3).
  const names = offered.flatMap((c) => (c === 'gzip' ? ['gzip', 'x-gzip'] : [c]));
  const negotiator = new Negotiator({ headers: { 'accept-encoding': header } });
  const best = (negotiator.encoding as EncodingWithPreference).call(negotiator, names, { preferred: names });
  return best === undefined ? undefined : best === 'br' ? 'br' : 'gzip';
}

/** Content types worth compressing: text, JSON, JavaScript, XML and SVG; never images or archives. */
export function compressible(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return /^(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml|javascript)|image\/svg\+xml)/i.test(
    contentType.trim(),
  );
}

// Brotli's default quality (11) costs tens of times gzip's CPU; 4 compresses JSON better than gzip
// at about gzip's speed. gzip stays at zlib's default level.
const BROTLI_OPTIONS = (sizeHint?: number): zlib.BrotliOptions => ({
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    ...(sizeHint ? { [zlib.constants.BROTLI_PARAM_SIZE_HINT]: sizeHint } : {}),
  },
});
const gzipAsync = promisify(zlib.gzip);
const brotliAsync = promisify(zlib.brotliCompress);
const gunzipAsync = promisify(zlib.gunzip);
const unbrotliAsync = promisify(zlib.brotliDecompress);

/**
 * Bodies from this size on are compressed at a faster level: brotli quality 1, gzip level 3. A
 * sample list of a few MB (a namespace's day) cost tens of milliseconds of CPU to compress at the
 * default levels, per request; the faster levels halve (gzip) or quarter (brotli) that for answers
 * 11 to 16 % larger (measured on 3.8 MB of pod rows: gzip 34 -> 17 ms, brotli 50 -> 12 ms), which
 * on a link of a few MB/s costs less time than it saves. Smaller bodies keep the default levels.
 */
export const FAST_FROM_BYTES = 1024 * 1024;
const FAST_BROTLI: zlib.BrotliOptions = {
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 1,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  },
};
const FAST_GZIP: zlib.ZlibOptions = { level: 3 };

/** Compresses bytes in hand off the event loop (zlib's thread pool). */
export async function compressBytes(bytes: Buffer, coding: ContentCoding): Promise<Buffer> {
  const fast = bytes.length >= FAST_FROM_BYTES;
  if (coding === 'br') return brotliAsync(bytes, fast ? FAST_BROTLI : BROTLI_OPTIONS(bytes.length));
  return fast ? gzipAsync(bytes, FAST_GZIP) : gzipAsync(bytes);
}

/** The bytes compressBytes was given, back from what it made. */
export async function decompressBytes(bytes: Buffer, coding: ContentCoding): Promise<Buffer> {
  return coding === 'br' ? unbrotliAsync(bytes) : gunzipAsync(bytes);
}

/** Bodies under this many bytes are compressed every time: cheap, and they would only churn the copies. */
export const COPIED_FROM_BYTES = 8 * 1024;

/**
 * Compressed copies of answer bodies, found by a SHA-256 of the body and the coding. Dashboards
 * and the web client fetch the same unchanged answers again and again, and every browser asks for
 * br or gzip: hashing 100 KiB costs tens of microseconds, compressing it milliseconds. Keyed by the
 * bytes themselves, a copy can only ever answer a request whose answer is exactly those bytes, so
 * nothing needs invalidating and no caller can be handed another's answer. One store per host,
 * bounded by bytes (0: none kept).
 */
export class CompressedCopies {
  private readonly copies: LRUCache<string, Buffer> | undefined;

  constructor(maxBytes: number) {
    this.copies = byteBoundedCache<Buffer>(maxBytes, (b) => b.length + 128);
  }

  /** compressBytes, from a kept copy when the same bytes were compressed the same way before. */
  async copy(bytes: Buffer, coding: ContentCoding): Promise<Buffer> {
    const copies = this.copies;
    if (!copies || bytes.length < COPIED_FROM_BYTES) return compressBytes(bytes, coding);
    const key = `${coding}:${createHash('sha256').update(bytes).digest('base64')}`;
    const kept = copies.get(key);
    if (kept) return kept;
    const coded = await compressBytes(bytes, coding);
    copies.set(key, coded);
    return coded;
  }

  /** What the store holds (entries and bytes), for tests and diagnostics. */
  held(): { entries: number; bytes: number } {
    return { entries: this.copies?.size ?? 0, bytes: this.copies?.calculatedSize ?? 0 };
  }
}

/**
 * A compressing stream behind `source`. The pipeline destroys the source when the compressed side
 * is destroyed (a client that went away), so whatever the source holds (a database reader, a slot
 * of the per-user limit) is released.
 */
export function compressStream(source: Readable, coding: ContentCoding): Readable {
  const compressor = coding === 'br' ? zlib.createBrotliCompress(BROTLI_OPTIONS()) : zlib.createGzip();
  pipeline(source, compressor, () => {
    // Errors reach the consumer through the compressor, which pipeline destroys with them.
  });
  return compressor;
}

/**
 * The response compressed for a client that accepts br or gzip: bodies in hand of at least
 * `minBytes`, and every streamed body (its size is not known in advance). Neither Azure Functions
 * nor the local host compresses, so this runs in the shared dispatcher. Every compressible answer
 * carries `Vary: Accept-Encoding`, compressed or not, so a cache never hands one client another's
 * coding.
 */
export async function compressResponse(
  response: HttpResponseInit,
  acceptEncoding: string | null,
  minBytes: number,
  /** The host's compressed copies; none: every answer is compressed afresh. */
  copies?: CompressedCopies,
): Promise<HttpResponseInit> {
  const { body } = response;
  if (body === undefined || body === null || response.jsonBody !== undefined) return response;
  const status = response.status ?? 200;
  if (status < 200 || status === 204 || status === 304) return response;
  const headers = headerRecord(response.headers);
  if (!compressible(headerValue(headers, 'content-type'))) return response;
  if (headerValue(headers, 'content-encoding')) return response;
  const vary = headerValue(headers, 'vary');
  if (!vary || !/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) {
    dropHeader(headers, 'vary');
    headers.Vary = vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding';
  }
  const coding = negotiateEncoding(acceptEncoding);
  if (isStreamBody(body)) {
    if (!coding) return { ...response, headers };
    dropHeader(headers, 'content-length');
    headers['Content-Encoding'] = coding;
    return { ...response, headers, body: compressStream(toReadable(body), coding) };
  }
  const bytes = bytesOf(body);
  if (!coding || !bytes || bytes.length < minBytes) return { ...response, headers };
  dropHeader(headers, 'content-length');
  headers['Content-Encoding'] = coding;
  return {
    ...response,
    headers,
    body: copies ? await copies.copy(bytes, coding) : await compressBytes(bytes, coding),
  };
}
