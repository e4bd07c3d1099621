import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { text as streamText } from 'node:stream/consumers';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../shared/http/answer-cache.js';
import {
  COPIED_FROM_BYTES,
  CompressedCopies,
  compressBytes,
  compressResponse,
  FAST_FROM_BYTES,
  negotiateEncoding,
} from '../../shared/http/compression.js';
import { PerKeyLimit } from '../../shared/http/per-user-limit.js';
import { jsonArrayStream } from '../../shared/http/stream-body.js';

describe('Accept-Encoding negotiation', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['br;q=1.0, gzip;q=0.8', 'br'],
    ['gzip;q=0, br;q=0', undefined],
    ['identity', undefined],
    ['*', 'br'],
    ['*;q=0.1, gzip;q=0.9', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP;Q=0.7', 'gzip'],
    ['gzip;q=abc', undefined],
    ['', undefined],
  ])('answers %j with %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };
const big = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row-${i}` })));

describe('compressResponse', () => {
  it('gzips a JSON body over the threshold and says so in Content-Encoding and Vary', async () => {
    const out = await compressResponse({ status: 200, body: big, headers: JSON_HEADERS }, 'gzip', 1024);
    const headers = out.headers as Record<string, string>;
    expect(headers['Content-Encoding']).toBe('gzip');
    expect(headers.Vary).toBe('Accept-Encoding');
    expect(zlib.gunzipSync(out.body as Buffer).toString()).toBe(big);
  });

  it('answers br when the client prefers it, and the body decodes to the original', async () => {
    const out = await compressResponse({ status: 200, body: big, headers: JSON_HEADERS }, 'br, gzip', 1024);
    expect((out.headers as Record<string, string>)['Content-Encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(out.body as Buffer).toString()).toBe(big);
  });

  it('compresses bodies of a MB and more at a faster level, in both codings, and they decode to the original', async () => {
    let n = 0;
    const rows: string[] = [];
    for (let i = 0; n < FAST_FROM_BYTES + 1000; i++) {
      const row = JSON.stringify({
        t: 1_700_000_000_000 + i * 300_000,
        cpu: ((i * 7919) % 1000) / 997,
        pod: `p-${i % 120}`,
      });
      rows.push(row);
      n += row.length + 1;
    }
    const bytes = Buffer.from(`[${rows.join(',')}]`);
    const gzip = await compressBytes(bytes, 'gzip');
    const br = await compressBytes(bytes, 'br');
    expect(zlib.gunzipSync(gzip).equals(bytes)).toBe(true);
    expect(zlib.brotliDecompressSync(br).equals(bytes)).toBe(true);
    // The default levels would make them smaller: these are the faster ones.
    expect(gzip.length).toBeGreaterThan(zlib.gzipSync(bytes).length);
    const defaultBr = zlib.brotliCompressSync(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      },
    });
    expect(br.length).toBeGreaterThan(defaultBr.length);
  });

  it('leaves a body under the threshold as it is, with Vary still set', async () => {
    const small = '{"ok":true}';
    const out = await compressResponse({ status: 200, body: small, headers: JSON_HEADERS }, 'gzip', 1024);
    expect(out.body).toBe(small);
    expect((out.headers as Record<string, string>)['Content-Encoding']).toBeUndefined();
    expect((out.headers as Record<string, string>).Vary).toBe('Accept-Encoding');
  });

  it('never compresses for a client that does not ask', async () => {
    const out = await compressResponse({ status: 200, body: big, headers: JSON_HEADERS }, null, 1024);
    expect(out.body).toBe(big);
  });

  it('adds Accept-Encoding to an existing Vary instead of replacing it', async () => {
    const out = await compressResponse(
      { status: 200, body: big, headers: { ...JSON_HEADERS, Vary: 'Origin' } },
      'gzip',
      1024,
    );
    expect((out.headers as Record<string, string>).Vary).toBe('Origin, Accept-Encoding');
  });

  it('leaves images and already encoded bodies alone', async () => {
    const png = Buffer.alloc(4096, 1);
    const image = await compressResponse(
      { status: 200, body: png, headers: { 'Content-Type': 'image/png' } },
      'gzip',
      0,
    );
    expect(image.body).toBe(png);
    const encoded = await compressResponse(
      { status: 200, body: big, headers: { ...JSON_HEADERS, 'Content-Encoding': 'br' } },
      'gzip',
      0,
    );
    expect(encoded.body).toBe(big);
  });

  it('compresses a streamed body as it streams, and the decoded stream is the JSON array', async () => {
    async function* rows() {
      for (let i = 0; i < 5000; i++) yield { id: i, cost: i / 4 };
    }
    const out = await compressResponse(
      { status: 200, body: jsonArrayStream(rows()), headers: JSON_HEADERS },
      'gzip',
      1024,
    );
    expect((out.headers as Record<string, string>)['Content-Encoding']).toBe('gzip');
    const decoded = await streamText((out.body as Readable).pipe(zlib.createGunzip()));
    const parsed = JSON.parse(decoded) as Array<{ id: number; cost: number }>;
    expect(parsed).toHaveLength(5000);
    expect(parsed[4999]).toEqual({ id: 4999, cost: 1249.75 });
  });

  it('ends the row source when the client abandons a compressed stream', async () => {
    let closed = false;
    async function* rows() {
      try {
        for (let i = 0; ; i++) yield { id: i, pad: 'x'.repeat(200) };
      } finally {
        closed = true;
      }
    }
    const out = await compressResponse(
      { status: 200, body: jsonArrayStream(rows()), headers: JSON_HEADERS },
      'br',
      1024,
    );
    const body = out.body as Readable;
    await new Promise<void>((resolve) => body.once('data', () => resolve()));
    body.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
  });
});

describe('compressed copies', () => {
  const page = (seed: string) =>
    JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, name: `${seed}-${i}` })));

  const MiB = 1024 * 1024;

  it('hands the same compressed bytes for the same answer again, without compressing anew', async () => {
    const body = page('same');
    expect(body.length).toBeGreaterThan(COPIED_FROM_BYTES);
    const copies = new CompressedCopies(16 * MiB);
    const first = await compressResponse({ status: 200, body, headers: JSON_HEADERS }, 'br', 1024, copies);
    const second = await compressResponse(
      { status: 200, body: Buffer.from(body), headers: JSON_HEADERS },
      'br',
      1024,
      copies,
    );
    // The very same buffer: the second answer was not compressed again.
    expect(second.body).toBe(first.body);
    expect(zlib.brotliDecompressSync(second.body as Buffer).toString()).toBe(body);
  });

  it('never answers one body with the copy of another, nor one coding with the other', async () => {
    const copies = new CompressedCopies(16 * MiB);
    const a = Buffer.from(page('tenant-a'));
    const b = Buffer.from(page('tenant-b'));
    const aGzip = await copies.copy(a, 'gzip');
    const bGzip = await copies.copy(b, 'gzip');
    const aBr = await copies.copy(a, 'br');
    expect(zlib.gunzipSync(aGzip).toString()).toBe(a.toString());
    expect(zlib.gunzipSync(bGzip).toString()).toBe(b.toString());
    expect(zlib.brotliDecompressSync(aBr).toString()).toBe(a.toString());
  });

  it('compresses small answers every time and keeps no copy of them', async () => {
    const copies = new CompressedCopies(16 * MiB);
    const small = Buffer.from('x'.repeat(COPIED_FROM_BYTES - 1));
    const one = await copies.copy(small, 'gzip');
    const two = await copies.copy(small, 'gzip');
    expect(two).not.toBe(one);
    expect(copies.held().entries).toBe(0);
  });

  it('stays within its byte bound however many different answers pass', async () => {
    // Random bytes do not compress: 48 x 512 KiB is 24 MiB offered to a 16 MiB store.
    const copies = new CompressedCopies(16 * MiB);
    for (let i = 0; i < 48; i++) await copies.copy(randomBytes(512 * 1024), 'gzip');
    expect(copies.held().bytes).toBeLessThanOrEqual(16 * MiB);
    expect(copies.held().bytes).toBeGreaterThan(8 * MiB);
  });

  it('keeps nothing when its bound is 0, and still compresses every answer', async () => {
    const copies = new CompressedCopies(0);
    const body = Buffer.from(page('none'));
    const one = await copies.copy(body, 'gzip');
    const two = await copies.copy(body, 'gzip');
    expect(two).not.toBe(one);
    expect(zlib.gunzipSync(two).toString()).toBe(body.toString());
    expect(copies.held()).toEqual({ entries: 0, bytes: 0 });
  });
});

describe('jsonArrayStream', () => {
  it('writes an empty source as []', async () => {
    async function* none() {}
    expect(await streamText(jsonArrayStream(none()))).toBe('[]');
  });

  it('writes money decimals and bigints as JSON numbers, like the buffered answers', async () => {
    async function* one() {
      yield { n: 3n, when: 'x' };
    }
    expect(await streamText(Readable.from(jsonArrayStream(one())))).toBe('[{"n":3,"when":"x"}]');
  });
});

describe('PerKeyLimit', () => {
  it('admits up to the limit per key, refuses beyond, and admits again after a release', () => {
    const limit = new PerKeyLimit(2);
    const a1 = limit.tryAcquire('a');
    const a2 = limit.tryAcquire('a');
    expect(a1).toBeTypeOf('function');
    expect(a2).toBeTypeOf('function');
    expect(limit.tryAcquire('a')).toBeUndefined();
    expect(limit.tryAcquire('b')).toBeTypeOf('function');
    a1!();
    a1!(); // a second release of the same slot frees nothing more
    expect(limit.active('a')).toBe(1);
    expect(limit.tryAcquire('a')).toBeTypeOf('function');
    expect(limit.tryAcquire('a')).toBeUndefined();
  });
});

describe('AnswerCache', () => {
  it('evicts the least recently used answers beyond its byte bound, and never keeps an oversized one', () => {
    const cache = new AnswerCache(100, 60);
    cache.set('a', Buffer.alloc(40));
    cache.set('b', Buffer.alloc(40));
    cache.get('a'); // a is now the most recently used
    cache.set('c', Buffer.alloc(40));
    expect([cache.get('a')?.length, cache.get('b'), cache.get('c')?.length]).toEqual([40, undefined, 40]);
    cache.set('big', Buffer.alloc(61));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('keeps nothing when its bound is 0, and passes a streamed answer on whole', async () => {
    const cache = new AnswerCache(0);
    cache.set('a', Buffer.alloc(10));
    expect(cache.get('a')).toBeUndefined();
    const passed = await streamText(
      cache.fillFrom('k', Readable.from([Buffer.from('ab'), Buffer.from('cd')])),
    );
    expect(passed).toBe('abcd');
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps a streamed answer only once it has ended whole', async () => {
    const cache = new AnswerCache(1000);
    const passed = await streamText(
      cache.fillFrom('k', Readable.from([Buffer.from('ab'), Buffer.from('cd')])),
    );
    expect(passed).toBe('abcd');
    expect(cache.get('k')?.toString()).toBe('abcd');
    const broken = cache.fillFrom(
      'broken',
      new Readable({
        read() {
          this.push(Buffer.from('x'));
          this.destroy(new Error('database went away'));
        },
      }),
    );
    await expect(streamText(broken)).rejects.toThrow('database went away');
    expect(cache.get('broken')).toBeUndefined();
  });
});
