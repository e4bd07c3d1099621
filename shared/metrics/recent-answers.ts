import type { HttpResponseInit } from '@azure/functions';
import type { LRUCache } from 'lru-cache';
import { byteBoundedCache } from '../http/byte-bounded-cache.js';
import { type CodedBody, codedBytes, inCoding, plainOf } from '../http/coded-body.js';
import { type ContentCoding, compressBytes, negotiateEncoding } from '../http/compression.js';
import { headerRecord } from '../http/headers.js';
import { bytesOf } from '../http/stream-body.js';

/**
 * The body as built is kept only when it is smaller than the compression threshold; otherwise at
 * least one coding is.
 */
interface Recent extends CodedBody {
  /** When the build started: the answer holds what was stored up to then. */
  builtAt: number;
  headers: Record<string, string>;
}

const ENTRY_OVERHEAD = 256;
const sizeOf = (r: Recent) => codedBytes(r) + ENTRY_OVERHEAD;

/**
 * Sample list answers (pods, nodes, PVCs) a host has just built, sent again to whoever asks the
 * same question within a few seconds. Dashboards poll: every open page asks the same lists again
 * and again, and a day of a namespace is tens of thousands of rows, built and compressed at a cost
 * of hundreds of milliseconds, while what it shows changes once per agent cycle (30 s).
 *
 * An answer is fresh for `freshMs` after its build started. Past that, and up to twice that, it is
 * still sent while one rebuild runs in the background (so a poll never waits for a rebuild another
 * poll has already started); older, a request waits for the rebuild. So an answer sent misses at
 * most the samples written in the last 2 × freshMs. Concurrent requests for a missing answer share
 * one build. Answers are kept compressed (in the coding of the request that built them; another
 * coding is made from it once): a day of a namespace is 10 MB of JSON but 0.7 MB of gzip. The
 * caller puts every input that shapes the answer in the key (the caller's visible clusters
 * included) and checks access before asking; nothing here knows who asks.
 */
export class RecentAnswers {
  private readonly cache: LRUCache<string, Recent> | undefined;
  private readonly building = new Map<string, Promise<Recent | HttpResponseInit>>();
  /** Counts clears: a build started before one keeps nothing (it may show what was removed). */
  private generation = 0;

  constructor(
    maxBytes: number,
    private readonly freshMs: number,
    /** Http__CompressionMinBytes: smaller answers are kept as they are. */
    private readonly minCompressBytes: number,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = freshMs > 0 ? byteBoundedCache<Recent>(maxBytes, sizeOf) : undefined;
  }

  /** Forgets every answer (after a cleanup removed what they show). */
  clear(): void {
    this.cache?.clear();
    this.building.clear();
    this.generation++;
  }

  async answer(
    key: string,
    acceptEncoding: string | null,
    build: () => Promise<HttpResponseInit>,
  ): Promise<HttpResponseInit> {
    const cache = this.cache;
    if (!cache) return build();
    const coding = negotiateEncoding(acceptEncoding);
    const kept = cache.get(key);
    const age = kept ? this.now() - kept.builtAt : Number.POSITIVE_INFINITY;
    if (kept && age < 2 * this.freshMs) {
      if (age >= this.freshMs) void this.rebuild(key, coding, build).catch(() => undefined);
      return this.send(cache, key, kept, coding);
    }
    const built = await this.rebuild(key, coding, build);
    return 'builtAt' in built ? this.send(cache, key, built, coding) : built;
  }

  /** One build per key at a time; a 200 in hand is kept, anything else is handed back as it is. */
  private rebuild(
    key: string,
    coding: ContentCoding | undefined,
    build: () => Promise<HttpResponseInit>,
  ): Promise<Recent | HttpResponseInit> {
    const running = this.building.get(key);
    if (running) return running;
    const builtAt = this.now();
    const generation = this.generation;
    const made = (async (): Promise<Recent | HttpResponseInit> => {
      const response = await build();
      const body = bytesOf(response.body);
      if (!body || (response.status ?? 200) !== 200) return response;
      const headers = headerRecord(response.headers);
      const recent: Recent =
        body.length < this.minCompressBytes
          ? { builtAt, headers, plain: body, coded: {} }
          : { builtAt, headers, coded: { [coding ?? 'gzip']: await compressBytes(body, coding ?? 'gzip') } };
      if (generation === this.generation) this.cache?.set(key, recent);
      return recent;
    })();
    this.building.set(key, made);
    const done = () => {
      if (this.building.get(key) === made) this.building.delete(key);
    };
    made.then(done, done);
    return made;
  }

  private async send(
    cache: LRUCache<string, Recent>,
    key: string,
    r: Recent,
    coding: ContentCoding | undefined,
  ): Promise<HttpResponseInit> {
    const headers = { ...r.headers, Vary: 'Accept-Encoding' };
    // Small answers go out as built; the dispatcher leaves them uncompressed as it always does.
    if (r.plain) return { status: 200, body: r.plain, headers };
    if (!coding) return { status: 200, body: await plainOf(r), headers };
    const coded = await inCoding(cache, key, r, coding);
    return { status: 200, body: coded, headers: { ...headers, 'Content-Encoding': coding } };
  }
}
