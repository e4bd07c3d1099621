import { LRUCache } from 'lru-cache';

/**
 * The one shape of the host's kept bytes (answers, compressed copies): least recently used out
 * first, bounded by the total size, no entry larger than a quarter of it (one must not push out all
 * the others). `maxBytes` 0: nothing is kept (undefined). `sizeOf` must count an entry's bookkeeping
 * too, so that many tiny entries are still bounded; lru-cache wants sizes of at least 1.
 */
export function byteBoundedCache<V extends {}>(
  maxBytes: number,
  sizeOf: (value: V) => number,
  maxEntryBytes = Math.max(1, Math.floor(maxBytes / 4)),
): LRUCache<string, V> | undefined {
  if (maxBytes <= 0) return undefined;
  return new LRUCache<string, V>({
    maxSize: maxBytes,
    maxEntrySize: maxEntryBytes,
    sizeCalculation: (value) => Math.max(1, sizeOf(value)),
  });
}
