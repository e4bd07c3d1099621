// Unpaged history answers are streamed: same rows and
// order as the paged answers, chunked with no Content-Length, compressed on request, a bounded
// number of heavy requests per user, and memory that does not grow with the answers in flight.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heavyLimitOf } from '../../shared/http/dispatch.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { createUser, ensureAuth, insertFixtureRun, type TestUser } from './support.js';

const SUB = '77777777-aaaa-4aaa-8aaa-000000000017';
const EXTRA_ROWS = 20_000;
const BIG_SUB = '77777777-aaaa-4aaa-8aaa-0000000000b1';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Bytes on the wire (after any content coding). */
  wireBytes: number;
  /** Rows counted in the decoded body without keeping it (when keep is false). */
  rows: number;
  text?: string;
}

/**
 * A GET on node:http that counts what arrives: fetch would decode the content coding and hide the
 * wire size. With keep=false nothing of the body is held, so the test's own memory stays small.
 */
function rawGet(
  url: string,
  headers: Record<string, string>,
  opts: {
    keep?: boolean;
    onFirstChunk?: () => void;
    /** Stop reading after the first chunk until this settles: a slow client. */
    holdUntil?: Promise<void>;
    abortAfterFirstChunk?: boolean;
  } = {},
): Promise<RawAnswer> {
  const marker = Buffer.from('"costType":');
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let wireBytes = 0;
      let rows = 0;
      let tail = Buffer.alloc(0);
      const parts: Buffer[] = [];
      const coding = res.headers['content-encoding'];
      const decoded =
        coding === 'gzip'
          ? res.pipe(zlib.createGunzip())
          : coding === 'br'
            ? res.pipe(zlib.createBrotliDecompress())
            : res;
      let first = true;
      res.on('data', (c: Buffer) => {
        wireBytes += c.length;
        if (!first) return;
        first = false;
        opts.onFirstChunk?.();
        if (opts.holdUntil) {
          res.pause();
          void opts.holdUntil.then(() => res.resume());
        }
        if (opts.abortAfterFirstChunk) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, wireBytes, rows });
        }
      });
      decoded.on('data', (c: Buffer) => {
        // Each row has exactly one "costType" member; the tail keeps a member split across chunks.
        const window = tail.length ? Buffer.concat([tail, c]) : c;
        let at = window.indexOf(marker);
        let end = 0;
        while (at >= 0) {
          rows++;
          end = at + marker.length;
          at = window.indexOf(marker, end);
        }
        tail = Buffer.from(window.subarray(Math.max(end, window.length - marker.length + 1)));
        if (opts.keep) parts.push(c);
      });
      decoded.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          wireBytes,
          rows,
          ...(opts.keep ? { text: Buffer.concat(parts).toString('utf8') } : {}),
        }),
      );
      decoded.on('error', reject);
    });
    req.on('error', (e) => (opts.abortAfterFirstChunk ? undefined : reject(e)));
  });
}

describe('unpaged history answers are streamed (fixture runs inserted with Prisma and SQL)', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  let runId = 0;
  let runRows = 0;
  const auth = (u: TestUser) => ({ authorization: `Bearer ${u.token}` });

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    const p = host.services.prisma;
    user = await createUser(p, false);
    await ensureAuth(host, user);
    await insertFixtureRun(p, {
      subscriptionId: SUB,
      subscriptionName: 'Stream',
      runDate: new Date('2026-03-01T00:00:00Z'),
      days: 20,
    });
    const run = await insertFixtureRun(p, {
      subscriptionId: SUB,
      subscriptionName: 'Stream',
      runDate: new Date('2026-04-01T00:00:00Z'),
      days: 20,
    });
    runId = run.id;
    // Many rows per day sharing a costDate, so the keyset's id tie-break is exercised.
    await p.$executeRawUnsafe(
      `INSERT INTO "HistoricalCosts" ("analysisRunId","subscriptionId","costDate","costType","resourceGroup","name","cost","recordedAt")
       SELECT $1, $2, timestamp '2026-03-31' - make_interval(days => d), 'Service', 'rg-data', 'Service ' || s,
              round((d * 0.37 + s)::numeric, 4), timestamp '2026-04-01'
       FROM generate_series(1, 100) d, generate_series(1, ${EXTRA_ROWS / 100}) s`,
      runId,
      SUB,
    );
    runRows = await p.historicalCost.count({ where: { analysisRunId: runId } });
    // The history total the engine keeps with a run it writes (fixture runs have none): with it, a
    // compressed answer may be cached. The resource totals stay unwritten, as resources are added below.
    await p.analysisRun.update({ where: { id: runId }, data: { historicalCostCount: runRows } });
  }, 120_000);
  afterAll(async () => {
    await host?.close();
  });

  it('answers the whole run chunked, in the same rows and order as the pages, with X-Total-Count', async () => {
    const whole = await rawGet(`${host.url}/finops/api/HistoricalCosts/analysis/${runId}`, auth(user), {
      keep: true,
    });
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBeUndefined();
    expect(whole.headers['transfer-encoding']).toBe('chunked');
    expect(whole.headers['x-total-count']).toBe(String(runRows));
    const rows = JSON.parse(whole.text!) as Array<{ id: number }>;
    expect(rows).toHaveLength(runRows);
    expect(runRows).toBeGreaterThan(EXTRA_ROWS);
    // Byte for byte: the streamed rows are serialised by their own code, the pages by stringify.
    const pages: string[] = [];
    for (let page = 1, seen = 0; seen < runRows; page++) {
      const res = await api.get(`/finops/api/HistoricalCosts/analysis/${runId}?page=${page}&pageSize=5000`, {
        token: user.token,
      });
      expect(res.status).toBe(200);
      if (res.body.length === 0) break;
      seen += res.body.length;
      pages.push(res.text.slice(1, -1));
    }
    expect(whole.text).toBe(`[${pages.join(',')}]`);
  });

  it('streams unpaged resource lists (type, group, flags, search) byte for byte as one big page', async () => {
    // 4,500 more resources over 3 pages of the keyset, names repeating so the id tie-break counts.
    await host.services.prisma.$executeRawUnsafe(
      `INSERT INTO "ResourceAnalyses" ("analysisRunId","resourceId","resourceType","resourceName","resourceGroup",
         "location","propertiesJson","tagsJson","flags","recordedAt")
       SELECT $1, '/r/big-' || g, CASE WHEN g % 2 = 0 THEN 'microsoft.compute/disks' ELSE 'microsoft.web/sites' END,
              'big-' || (g % 1500), 'RG-BIG', 'westeurope', '{}', '{"env":"prod"}',
              CASE WHEN g % 3 = 0 THEN 'Unattached disk' WHEN g % 3 = 1 THEN '' ELSE 'Old snapshot' END, timestamp '2026-04-01'
       FROM generate_series(1, 4500) g`,
      runId,
    );
    const base = `/finops/api/Resources/analysis/${runId}`;
    for (const [path, sep] of [
      ['/type/microsoft.compute%2Fdisks', '?'],
      ['/resourcegroup/rg-big', '?'],
      ['/flags', '?'],
      ['/search?searchTerm=BIG-', '&'],
    ] as const) {
      const whole = await rawGet(`${host.url}${base}${path}`, auth(user), { keep: true });
      const page = await api.get(`${base}${path}${sep}pageSize=5000`, { token: user.token });
      expect(whole.status).toBe(200);
      expect(whole.headers['transfer-encoding']).toBe('chunked');
      expect(whole.headers['x-total-count']).toBe(page.headers.get('x-total-count'));
      expect(Number(whole.headers['x-total-count'])).toBeGreaterThan(2000);
      expect(whole.text).toBe(page.text);
    }
  });

  it('answers a subscription across runs within dates as the pages do', async () => {
    const q = 'startDate=2026-02-20&endDate=2026-03-25';
    const path = `/finops/api/HistoricalCosts/subscription/${SUB}`;
    const whole = await api.get(`${path}?${q}`, { token: user.token });
    const paged = await api.get(`${path}?${q}&pageSize=5000`, { token: user.token });
    const rest = await api.get(`${path}?${q}&pageSize=5000&page=2`, { token: user.token });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('x-total-count')).toBe(paged.headers.get('x-total-count'));
    expect(whole.body).toEqual([...paged.body, ...rest.body]);
    expect(new Set(whole.body.map((r: { analysisRunId: number }) => r.analysisRunId)).size).toBe(2);
  });

  it('sends at least 5x fewer bytes with gzip or br, decoding to the identical answer', async () => {
    const url = `${host.url}/finops/api/HistoricalCosts/analysis/${runId}`;
    const plain = await rawGet(url, auth(user), { keep: true });
    const gzip = await rawGet(url, { ...auth(user), 'accept-encoding': 'gzip' }, { keep: true });
    const br = await rawGet(url, { ...auth(user), 'accept-encoding': 'br;q=1, gzip;q=0.5' }, { keep: true });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers.vary).toMatch(/Accept-Encoding/i);
    expect(gzip.text).toBe(plain.text);
    expect(br.text).toBe(plain.text);
    expect(plain.wireBytes / gzip.wireBytes).toBeGreaterThan(5);
    expect(plain.wireBytes / br.wireBytes).toBeGreaterThan(5);
  });

  it('answers a repeated compressed run history whole from memory, and follows a new infra support cost', async () => {
    const url = `${host.url}/finops/api/HistoricalCosts/analysis/${runId}`;
    const gz = { ...auth(user), 'accept-encoding': 'gzip' };
    const first = await rawGet(url, gz, { keep: true });
    const second = await rawGet(url, gz, { keep: true });
    expect(second.headers['content-length']).toBe(String(second.wireBytes));
    expect(second.headers['content-encoding']).toBe('gzip');
    expect(second.headers['x-total-count']).toBe(String(runRows));
    expect(second.text).toBe(first.text);
    const before = JSON.parse(second.text!) as Array<{ infraSupportCost: number }>;
    expect(before[0]!.infraSupportCost).toBe(400);
    await host.services.prisma.subscription.create({
      data: { subscriptionId: SUB, infraSupportCost: 725.5 },
    });
    try {
      const after = JSON.parse((await rawGet(url, gz, { keep: true })).text!) as Array<{
        infraSupportCost: number;
      }>;
      expect(after).toHaveLength(runRows);
      expect(after.every((r) => r.infraSupportCost === 725.5)).toBe(true);
    } finally {
      await host.services.prisma.subscription.deleteMany({ where: { subscriptionId: SUB } });
    }
  });

  it('serves 10 concurrent unpaged answers with Version answering and memory far below what they hold', async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => createUser(host.services.prisma, false)));
    const url = `${host.url}/finops/api/HistoricalCosts/analysis/${runId}`;
    await rawGet(url, auth(user)); // warm: the run's tags are cached, the database has its pages
    globalThis.gc?.();
    const baseline = process.memoryUsage().rss;
    // Each client stops after its first chunk until all ten have one: every answer is then in
    // flight at once, and what the host holds for them is measured at that moment, not sampled.
    let letGo!: () => void;
    const holdUntil = new Promise<void>((r) => {
      letGo = r;
    });
    let started = 0;
    let allStarted!: () => void;
    const streaming = new Promise<void>((r) => {
      allStarted = r;
    });
    const answers = users.flatMap((u) =>
      [0, 1].map(() =>
        rawGet(url, auth(u), {
          holdUntil,
          onFirstChunk: () => {
            if (++started === 10) allStarted();
          },
        }),
      ),
    );
    await streaming;
    const held = process.memoryUsage().rss;
    const version = await api.get('/finops/api/Version');
    letGo();
    const done = await Promise.all(answers);
    expect(version.status).toBe(200);
    expect(done.map((d) => d.status)).toEqual(Array(10).fill(200));
    expect(done.map((d) => d.rows)).toEqual(Array(10).fill(runRows));
    const served = done.reduce((n, d) => n + d.wireBytes, 0);
    const growth = held - baseline;
    // Holding each answer whole (rows as objects plus their JSON, as before streaming) grew this
    // process by about 320 MB here for these 66 MB served; streamed, each answer holds one page of
    // rows at a time: 50-185 MB measured, the test client's buffers and uncollected garbage
    // included (no --expose-gc), the high end in full-suite runs. The bound sits between the two.
    expect(served).toBeGreaterThan(60 * 1024 * 1024);
    expect(growth).toBeLessThan(240 * 1024 * 1024);
  }, 120_000);

  it('refuses a third heavy request of one user with 429 and Retry-After, and admits again after', async () => {
    const url = `${host.url}/finops/api/HistoricalCosts/analysis/${runId}`;
    // Two slow clients: each reads one chunk, then stops, so both answers stay in flight.
    let letGo!: () => void;
    const holdUntil = new Promise<void>((r) => {
      letGo = r;
    });
    let started = 0;
    let bothStarted!: () => void;
    const twoInFlight = new Promise<void>((r) => {
      bothStarted = r;
    });
    const onFirstChunk = () => {
      if (++started === 2) bothStarted();
    };
    // The held answers (about 50 MiB each) are far larger than what loopback socket buffers can
    // absorb (Linux autotunes them up to tcp_rmem's maximum, 32 MiB here), or a paused client
    // could still receive all of one and free its slot.
    const bigRun = await host.services.prisma.analysisRun.create({
      data: {
        subscriptionId: BIG_SUB,
        subscriptionName: 'Big',
        runDate: new Date('2026-04-01T00:00:00Z'),
        totalMonthlyCost: 1,
        totalResourcesAnalyzed: 0,
        periodFrom: new Date('2026-04-01T00:00:00Z'),
        periodTo: new Date('2026-04-01T00:00:00Z'),
      },
    });
    await host.services.prisma.$executeRawUnsafe(
      `INSERT INTO "HistoricalCosts" ("analysisRunId","subscriptionId","costDate","costType","resourceGroup","name","cost","recordedAt")
       SELECT $1, $2, timestamp '2026-03-31' - make_interval(days => d), 'Service', 'rg-big',
              'Service ' || s || repeat('.', 2400), 1.25, timestamp '2026-04-01'
       FROM generate_series(1, 100) d, generate_series(1, 200) s`,
      bigRun.id,
      BIG_SUB,
    );
    const bigUrl = `${host.url}/finops/api/HistoricalCosts/subscription/${BIG_SUB}`;
    const gz = { ...auth(user), 'accept-encoding': 'gzip' };
    await rawGet(url, gz); // made once, then kept (see the cache test)
    const inFlight = [0, 1].map(() => rawGet(bigUrl, auth(user), { onFirstChunk, holdUntil }));
    await twoInFlight;
    const third = await api.get(`/finops/api/HistoricalCosts/analysis/${runId}`, {
      token: user.token,
      headers: { 'accept-encoding': 'identity' },
    });
    // An answer already made is not heavy: the same user still gets it.
    const kept = await rawGet(url, gz);
    // A paged request is not heavy and is answered meanwhile, as is another user's heavy one.
    const page = await api.get(`/finops/api/HistoricalCosts/analysis/${runId}?pageSize=10`, {
      token: user.token,
    });
    const other = await createUser(host.services.prisma, false);
    const othersHeavy = await rawGet(url, auth(other));
    letGo();
    const done = await Promise.all(inFlight);
    expect(third.status).toBe(429);
    expect(isProblem(third, 429)).toBe(true);
    expect([kept.status, kept.rows]).toEqual([200, runRows]);
    expect(third.headers.get('retry-after')).toBe('2');
    expect(page.status).toBe(200);
    expect(othersHeavy.rows).toBe(runRows);
    expect(done.map((d) => d.rows)).toEqual([20_000, 20_000]);
    const after = await rawGet(url, auth(user));
    expect(after.rows).toBe(runRows);
  });

  it('answers HEAD without a body and without keeping a slot', async () => {
    const url = `${host.url}/finops/api/HistoricalCosts/analysis/${runId}`;
    for (let i = 0; i < 3; i++) {
      const head = await fetch(url, {
        method: 'HEAD',
        headers: { ...auth(user), 'accept-encoding': 'identity' },
      });
      expect(head.status).toBe(200);
      expect(head.headers.get('x-total-count')).toBe(String(runRows));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    }
    const [a, b] = await Promise.all([rawGet(url, auth(user)), rawGet(url, auth(user))]);
    expect([a.status, b.status]).toEqual([200, 200]);
  });

  it('frees the slot of a client that goes away mid-answer', async () => {
    const url = `${host.url}/finops/api/HistoricalCosts/analysis/${runId}`;
    const slots = heavyLimitOf(host.services.config.platform);
    await rawGet(url, auth(user), { abortAfterFirstChunk: true });
    await rawGet(url, auth(user), { abortAfterFirstChunk: true });
    // The server releases a slot when it sees the closed socket: once both are released, both
    // slots serve again.
    await slots.whenFree(user.id);
    const [a, b] = await Promise.all([rawGet(url, auth(user)), rawGet(url, auth(user))]);
    expect([a.status, b.status]).toEqual([200, 200]);
  });
});
