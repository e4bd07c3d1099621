import type { LRUCache } from 'lru-cache';
import { type ContentCoding, compressBytes, decompressBytes } from './compression.js';

/**
 * An answer's body as a cache keeps it: as built, compressed in the codings clients have asked
 * for, or both. A coding not held yet is made once, from the bytes as built (decompressed from a
 * held coding when those were not kept), and kept beside the others.
 */
export interface CodedBody {
  plain?: Buffer;
  coded: Partial<Record<ContentCoding, Buffer>>;
}

/** The bytes an entry holds, every form counted. */
export function codedBytes(b: CodedBody): number {
  return (b.plain?.length ?? 0) + (b.coded.br?.length ?? 0) + (b.coded.gzip?.length ?? 0);
}

/** The body as built: kept, or decompressed from a coding held. */
export async function plainOf(b: CodedBody): Promise<Buffer> {
  if (b.plain) return b.plain;
  const held = (Object.keys(b.coded) as ContentCoding[]).find((c) => b.coded[c] !== undefined);
  if (!held) throw new Error('a kept body holds neither its bytes nor a coding of them');
  return decompressBytes(b.coded[held]!, held);
}

/**
 * The body in `coding`, made and kept under `key` when the entry does not hold it yet. The entry
 * is replaced by a new object because lru-cache counts a size only when the value changes; not
 * when it has been replaced or pushed out meanwhile, nor when `fits` refuses the grown entry.
 */
export async function inCoding<T extends CodedBody>(
  cache: LRUCache<string, T>,
  key: string | undefined,
  entry: T,
  coding: ContentCoding,
  fits: (grown: T) => boolean = () => true,
): Promise<Buffer> {
  const held = entry.coded[coding];
  if (held) return held;
  const coded = await compressBytes(await plainOf(entry), coding);
  const grown: T = { ...entry, coded: { ...entry.coded, [coding]: coded } };
  if (key !== undefined && cache.peek(key) === entry && fits(grown)) cache.set(key, grown);
  return coded;
}
