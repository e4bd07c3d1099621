import { pipeline, type Readable, Transform } from 'node:stream';
import type { LRUCache } from 'lru-cache';
import { byteBoundedCache } from './byte-bounded-cache.js';

/**
 * Whole answers (compressed bytes) by key, least recently used first out, bounded by their total
 * size. Only for answers that cannot change under the same key.
 */
export class AnswerCache {
  /** None when the bound is 0: nothing is kept. */
  private readonly entries: LRUCache<string, Buffer> | undefined;

  constructor(
    readonly maxBytes: number,
    /** An answer larger than this is never kept: one must not push out all the others. */
    readonly maxEntryBytes = Math.floor(maxBytes / 4),
  ) {
    this.entries = byteBoundedCache<Buffer>(maxBytes, (value) => value.length, maxEntryBytes);
  }

  get(key: string): Buffer | undefined {
    return this.entries?.get(key);
  }

  set(key: string, value: Buffer): void {
    this.entries?.set(key, value);
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  /**
   * `source` passed through unchanged, its bytes kept under `key` once it has ended whole (not when
   * it fails, is abandoned or grows past maxEntryBytes). Destroying the returned stream destroys
   * the source.
   */
  fillFrom(key: string, source: Readable): Readable {
    if (!this.entries) return source;
    let parts: Buffer[] | undefined = [];
    let size = 0;
    const cache = this;
    const tee = new Transform({
      transform(chunk: Buffer, _enc, done) {
        if (parts) {
          size += chunk.length;
          if (size > cache.maxEntryBytes) parts = undefined;
          else parts.push(chunk);
        }
        done(null, chunk);
      },
      flush(done) {
        if (parts) cache.set(key, Buffer.concat(parts));
        done();
      },
    });
    pipeline(source, tee, () => {});
    return tee;
  }
}
