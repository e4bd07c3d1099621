import { pipeline, type Readable, Transform } from 'node:stream';

/**
 * Whole answers (compressed bytes) by key, least recently used first out, bounded by their total
 * size. Only for answers that cannot change under the same key.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    readonly maxBytes: number,
    /** An answer larger than this is never kept: one must not push out all the others. */
    readonly maxEntryBytes = Math.floor(maxBytes / 4),
  ) {}

  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.maxEntryBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.length;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * `source` passed through unchanged, its bytes kept under `key` once it has ended whole (not when
   * it fails, is abandoned or grows past maxEntryBytes). Destroying the returned stream destroys
   * the source.
   */
  fillFrom(key: string, source: Readable): Readable {
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
