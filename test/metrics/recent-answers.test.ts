import { gunzipSync } from 'node:zlib';
import type { HttpResponseInit } from '@azure/functions';
import { describe, expect, it, vi } from 'vitest';
import { RecentAnswers } from '../../shared/metrics/recent-answers.js';

/** A list answer large enough to be compressed (JSON of `n` rows saying which build made them). */
function list(build: number, rows = 200): HttpResponseInit {
  const body = JSON.stringify(Array.from({ length: rows }, (_, i) => ({ build, i, pod: `pod-${i}` })));
  return { status: 200, body, headers: { 'Content-Type': 'application/json', 'X-Resolution': 'raw' } };
}

/** The answer's JSON as a client reads it, whatever its coding. */
function read(r: HttpResponseInit): Array<{ build: number }> {
  const headers = r.headers as Record<string, string>;
  const bytes = r.body as Buffer;
  return JSON.parse((headers['Content-Encoding'] === 'gzip' ? gunzipSync(bytes) : bytes).toString());
}

function setup(freshMs = 15_000) {
  let now = 1_000_000;
  let builds = 0;
  const answers = new RecentAnswers(16 * 1024 * 1024, freshMs, 1024, () => now);
  const build = async () => list(++builds);
  return {
    answers,
    build,
    builds: () => builds,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('recent sample list answers', () => {
  it('sends the same answer again while fresh, compressed as the client asks, with the list headers', async () => {
    const t = setup();
    const first = await t.answers.answer('k', 'gzip', t.build);
    t.advance(14_999);
    const again = await t.answers.answer('k', 'gzip', t.build);
    const plain = await t.answers.answer('k', null, t.build);
    const br = await t.answers.answer('k', 'br', t.build);
    expect(t.builds()).toBe(1);
    expect(read(first)[0]!.build).toBe(1);
    expect(read(again)).toEqual(read(first));
    expect(read(plain)).toEqual(read(first));
    expect((br.headers as Record<string, string>)['Content-Encoding']).toBe('br');
    expect((again.headers as Record<string, string>)['X-Resolution']).toBe('raw');
    expect((again.headers as Record<string, string>).Vary).toBe('Accept-Encoding');
    // Another question is another answer.
    expect(read(await t.answers.answer('other', 'gzip', t.build))[0]!.build).toBe(2);
  });

  it('builds once for requests arriving together', async () => {
    const t = setup();
    const all = await Promise.all(Array.from({ length: 10 }, () => t.answers.answer('k', 'gzip', t.build)));
    expect(t.builds()).toBe(1);
    expect(new Set(all.map((r) => read(r)[0]!.build))).toEqual(new Set([1]));
  });

  it('past fresh, sends the kept answer while one rebuild runs; past twice fresh, waits for a new one', async () => {
    const t = setup();
    await t.answers.answer('k', 'gzip', t.build);
    t.advance(15_000);
    let release!: () => void;
    const slow = () =>
      new Promise<HttpResponseInit>((resolve) => {
        release = () => resolve(list(2));
      });
    const stale = await t.answers.answer('k', 'gzip', slow);
    const stillStale = await t.answers.answer('k', 'gzip', slow);
    expect(read(stale)[0]!.build).toBe(1);
    expect(read(stillStale)[0]!.build).toBe(1);
    release();
    // Once the rebuild is kept (its compression runs on the thread pool), it is what is sent.
    await vi.waitFor(async () => expect(read(await t.answers.answer('k', 'gzip', slow))[0]!.build).toBe(2));
    // Thirty seconds later (twice fresh) nothing kept is sent: the request waits for a new build.
    t.advance(30_000);
    expect(read(await t.answers.answer('k', 'gzip', t.build))[0]!.build).toBe(2);
    expect(t.builds()).toBe(2);
  });

  it('keeps no error answer, forgets everything on clear, and keeps nothing with 0 seconds', async () => {
    const t = setup();
    const failed = await t.answers.answer('k', 'gzip', async () => ({ status: 503, body: 'busy' }));
    expect(failed.status).toBe(503);
    expect(read(await t.answers.answer('k', 'gzip', t.build))[0]!.build).toBe(1);
    t.answers.clear();
    expect(read(await t.answers.answer('k', 'gzip', t.build))[0]!.build).toBe(2);
    // A build that was running when the answers were forgotten is sent to its callers, not kept.
    let release!: () => void;
    const running = t.answers.answer(
      'r',
      'gzip',
      () =>
        new Promise<HttpResponseInit>((resolve) => {
          release = () => resolve(list(-1));
        }),
    );
    t.answers.clear();
    release();
    expect(read(await running)[0]!.build).toBe(-1);
    expect(read(await t.answers.answer('r', 'gzip', t.build))[0]!.build).toBe(3);
    const off = setup(0);
    await off.answers.answer('k', 'gzip', off.build);
    await off.answers.answer('k', 'gzip', off.build);
    expect(off.builds()).toBe(2);
  });
});
