import type { HttpResponseInit } from '@azure/functions';
import type { LRUCache } from 'lru-cache';
import { byteBoundedCache } from './byte-bounded-cache.js';
import { type CodedBody, codedBytes, inCoding } from './coded-body.js';
import { compressible, negotiateEncoding } from './compression.js';
import { headerRecord, headerValue } from './headers.js';
import { bytesOf } from './stream-body.js';

/** The body as built, and compressed per coding a client has asked for (made once, on its first request). */
interface Kept extends CodedBody {
  plain: Buffer;
  headers: Record<string, string>;
}

/** What an entry's bookkeeping costs beside its bytes, so a million tiny answers are still bounded. */
const ENTRY_OVERHEAD = 256;
const sizeOf = (k: Kept) => codedBytes(k) + ENTRY_OVERHEAD;

/**
 * Whole 200 answers that cannot change under their key (pages of runs, which are never edited once
 * written), kept as bytes with their headers, least recently used out first, bounded by their
 * total size. Beside each answer it keeps the br or gzip bytes a client asked for: the dispatcher
 * would otherwise compress the same bytes again for every browser request, which costs more CPU
 * than building the page. The caller decides the key (every input that shapes the answer, looked
 * up in the database on every request, so a deleted run or a changed figure is another key) and
 * authenticates before asking: nothing here knows who asks.
 */
export class KeptAnswers {
  /** None when the bound is 0: every answer is built. */
  private readonly cache: LRUCache<string, Kept> | undefined;

  private readonly maxEntryBytes: number;

  constructor(
    maxBytes: number,
    /** Http__CompressionMinBytes: smaller answers go out as they are, as the dispatcher sends them. */
    private readonly minCompressBytes: number,
  ) {
    // One answer must not push out all the others.
    this.maxEntryBytes = Math.floor(maxBytes / 4);
    this.cache = byteBoundedCache<Kept>(maxBytes, sizeOf, this.maxEntryBytes);
  }

  get size(): number {
    return this.cache?.size ?? 0;
  }

  /**
   * The answer kept under `key`, or `build()`'s (kept when it is a 200 with its bytes in hand;
   * a streamed answer is passed on as it is). No key: always built, never kept.
   */
  async answer(
    key: string | undefined,
    acceptEncoding: string | null,
    build: () => Promise<HttpResponseInit>,
  ): Promise<HttpResponseInit> {
    const cache = this.cache;
    if (!cache) return build();
    let kept = key === undefined ? undefined : cache.get(key);
    if (!kept) {
      const built = await build();
      const plain = bytesOf(built.body);
      if (key === undefined || !plain || (built.status ?? 200) !== 200) return built;
      kept = { plain, headers: headerRecord(built.headers), coded: {} };
      cache.set(key, kept);
    }
    const coding = negotiateEncoding(acceptEncoding);
    if (!compressible(headerValue(kept.headers, 'content-type'))) {
      return { status: 200, body: kept.plain, headers: { ...kept.headers } };
    }
    const headers = { ...kept.headers, Vary: 'Accept-Encoding' };
    if (!coding || kept.plain.length < this.minCompressBytes) {
      return { status: 200, body: kept.plain, headers };
    }
    // Not kept when it would outgrow the entry bound: lru-cache would then drop the answer itself.
    const coded = await inCoding(cache, key, kept, coding, (grown) => sizeOf(grown) <= this.maxEntryBytes);
    return { status: 200, body: coded, headers: { ...headers, 'Content-Encoding': coding } };
  }
}
