import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { byteBoundedCache } from '../../shared/http/byte-bounded-cache.js';
import { type CodedBody, codedBytes, inCoding, plainOf } from '../../shared/http/coded-body.js';
import { compressBytes } from '../../shared/http/compression.js';

const text = Buffer.from(JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ i, pod: `pod-${i}` }))));

describe('a kept body in the codings clients ask for', () => {
  it('gives the bytes as built from a body kept only in gzip, and makes br from them once', async () => {
    const cache = byteBoundedCache<CodedBody>(16 * 1024 * 1024, codedBytes)!;
    const entry: CodedBody = { coded: { gzip: await compressBytes(text, 'gzip') } };
    cache.set('k', entry);
    expect(await plainOf(entry)).toEqual(text);
    const br = await inCoding(cache, 'k', entry, 'br');
    expect(brotliDecompressSync(br)).toEqual(text);
    const grown = cache.get('k')!;
    expect(grown).not.toBe(entry);
    expect(grown.coded.br).toBe(br);
    expect(cache.calculatedSize).toBe(codedBytes(grown));
    // Held now: the same bytes, nothing made again.
    expect(await inCoding(cache, 'k', grown, 'br')).toBe(br);
    expect(gunzipSync(await inCoding(cache, 'k', grown, 'gzip'))).toEqual(text);
  });

  it('keeps nothing when the entry was replaced meanwhile or the grown entry does not fit', async () => {
    const cache = byteBoundedCache<CodedBody>(16 * 1024 * 1024, codedBytes)!;
    const old: CodedBody = { plain: text, coded: {} };
    const replaced: CodedBody = { plain: text, coded: {} };
    cache.set('k', replaced);
    expect(gunzipSync(await inCoding(cache, 'k', old, 'gzip'))).toEqual(text);
    expect(cache.get('k')).toBe(replaced);
    await inCoding(cache, 'k', replaced, 'gzip', () => false);
    expect(cache.get('k')).toBe(replaced);
    await inCoding(cache, undefined, replaced, 'gzip');
    expect(cache.get('k')).toBe(replaced);
  });
});
