import { LRUCache } from 'lru-cache';

/** Bounds of one cache; both hold, whichever is reached first evicts the least recently used. */
export interface CacheBounds {
  maxEntries: number;
  maxBytes: number;
}

export const DEFAULT_CACHE_BOUNDS: CacheBounds = { maxEntries: 10_000, maxBytes: 8 * 1024 * 1024 };

/** A rough size in bytes of a key and its value (UTF-16 strings), enough to bound memory. */
function approximateBytes(key: string, value: unknown): number {
  let size = 64 + key.length * 2;
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) size += typeof v === 'string' ? 16 + v.length * 2 : 16;
  }
  return size;
}

/**
 * A TTL cache kept in a module object (no process-wide state; one per host). Bounded by entries
 * and by bytes, and expired entries are purged by a timer, not only when read again: anonymous
 * callers choose the keys, so nothing here may grow with what they send.
 */
export class TtlCache<V> {
  // lru-cache refuses null and undefined values; a box lets a cached miss (null) be stored.
  readonly #entries: LRUCache<string, { value: V }>;
  /**
   * `now` (milliseconds) is the clock entries expire by: lru-cache keeps its own reference to
   * `performance` otherwise, which fake timers cannot reach, so tests pass one they move.
   */
  constructor(
    ttlMs: number,
    bounds: CacheBounds = DEFAULT_CACHE_BOUNDS,
    private readonly enabled = true,
    now?: () => number,
  ) {
    this.#entries = new LRUCache<string, { value: V }>({
      max: bounds.maxEntries,
      maxSize: bounds.maxBytes,
      sizeCalculation: (box, key) => approximateBytes(key, box.value),
      ttl: ttlMs,
      ttlAutopurge: true,
      // An injected clock is read on every check: lru-cache otherwise keeps its last reading until
      // a 1 ms timer clears it, and a request handled before that timer runs would not see a
      // clock that was moved past the window (seen as a flaky two-host session test).
      ...(now ? { perf: { now }, ttlResolution: 0 } : {}),
    });
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Bytes held, as counted by the size estimate. */
  get bytes(): number {
    return this.#entries.calculatedSize;
  }

  get(key: string): V | undefined {
    if (!this.enabled) return undefined;
    return this.#entries.get(key)?.value;
  }

  set(key: string, value: V): void {
    if (!this.enabled) return;
    this.#entries.set(key, { value });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops every entry whose value matches (e.g. every key of one user). */
  deleteWhere(match: (value: V) => boolean): void {
    for (const [key, box] of this.#entries.entries()) if (match(box.value)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
