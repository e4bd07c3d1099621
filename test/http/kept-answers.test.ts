import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { HttpResponseInit } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { KeptAnswers } from '../../shared/http/kept-answers.js';

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

/** A build that counts its calls. */
function builder(body: string | Buffer, headers: Record<string, string> = JSON_TYPE, status = 200) {
  const calls = { n: 0 };
  const build = async (): Promise<HttpResponseInit> => {
    calls.n++;
    return { status, body, headers: { ...headers } };
  };
  return { calls, build };
}

describe('KeptAnswers', () => {
  it('builds an answer once per key and sends the same bytes after, each coding compressed once', async () => {
    const cache = new KeptAnswers(1 << 20, 1024);
    const json = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i })));
    const { calls, build } = builder(json, { ...JSON_TYPE, 'X-Total-Count': '200' });
    const plain = await cache.answer('k', null, build);
    const gz1 = await cache.answer('k', 'gzip', build);
    const gz2 = await cache.answer('k', 'gzip, deflate', build);
    const br = await cache.answer('k', 'gzip, deflate, br, zstd', build);
    expect(calls.n).toBe(1);
    expect(plain.headers).toEqual({ ...JSON_TYPE, 'X-Total-Count': '200', Vary: 'Accept-Encoding' });
    expect(gz1.headers).toMatchObject({
      'Content-Encoding': 'gzip',
      Vary: 'Accept-Encoding',
      'X-Total-Count': '200',
    });
    expect(gz2.body).toBe(gz1.body);
    expect(zlib.gunzipSync(gz1.body as Buffer).toString()).toBe(json);
    expect(zlib.brotliDecompressSync(br.body as Buffer).toString()).toBe(json);
    expect(Buffer.from(plain.body as Buffer).toString()).toBe(json);
  });

  it('counts compressed bytes against its bound and pushes out the least recently used answer', async () => {
    // Random base64 compresses little: an entry asked for gzip grows by about three quarters.
    const cache = new KeptAnswers(19_000, 0);
    const bodies = Array.from({ length: 6 }, () => randomBytes(2000).toString('base64').slice(0, 2000));
    const builds = bodies.map((b) => builder(b));
    for (let i = 0; i < 4; i++) await cache.answer(`k${i}`, 'gzip', builds[i]!.build);
    await cache.answer('k4', null, builds[4]!.build);
    expect(cache.size).toBe(5);
    await cache.answer('k5', null, builds[5]!.build);
    expect(cache.size).toBe(5);
    await cache.answer('k0', null, builds[0]!.build);
    expect(builds[0]!.calls.n).toBe(2); // k0, the least recently used, had been pushed out
    expect(builds[4]!.calls.n).toBe(1);
  });

  it('keeps nothing when its bound is 0: every answer is built, and handed on as built', async () => {
    const cache = new KeptAnswers(0, 1024);
    const json = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i })));
    const { calls, build } = builder(json);
    const first = await cache.answer('k', 'gzip', build);
    const second = await cache.answer('k', 'gzip', build);
    expect(calls.n).toBe(2);
    expect(cache.size).toBe(0);
    // Uncompressed: the dispatcher compresses it, as it does every answer not kept.
    expect(second.body).toBe(json);
    expect(first.headers).toEqual(JSON_TYPE);
  });

  it('passes streamed answers, errors and unkeyed answers through, building them every time', async () => {
    const cache = new KeptAnswers(1 << 20, 1024);
    const failed = builder('{"status":404}', JSON_TYPE, 404);
    expect((await cache.answer('missing', null, failed.build)).status).toBe(404);
    await cache.answer('missing', null, failed.build);
    expect(failed.calls.n).toBe(2);
    let streams = 0;
    const streamed = async (): Promise<HttpResponseInit> => {
      streams++;
      return { status: 200, body: Readable.from([Buffer.from('[]')]), headers: JSON_TYPE };
    };
    await cache.answer('s', 'gzip', streamed);
    const again = await cache.answer('s', 'gzip', streamed);
    expect(streams).toBe(2);
    expect(again.body).toBeInstanceOf(Readable);
    const unkeyed = builder('[1]');
    await cache.answer(undefined, null, unkeyed.build);
    await cache.answer(undefined, null, unkeyed.build);
    expect([unkeyed.calls.n, cache.size]).toEqual([2, 0]);
  });

  it('sends answers below the compression threshold as they are, with Vary, as the dispatcher does', async () => {
    const cache = new KeptAnswers(1 << 20, 1024);
    const small = await cache.answer('small', 'gzip, br', builder('[1,2,3]').build);
    expect(small.headers).toEqual({ ...JSON_TYPE, Vary: 'Accept-Encoding' });
    expect(Buffer.from(small.body as Buffer).toString()).toBe('[1,2,3]');
  });
});
