import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, tokenOf } from '../auth/helpers.js';
import { startTestHost, type TestHost } from '../support/host.js';

const SUB = '5e1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e19';
const RUNS = 19;
/** Rows per run: 19 runs hold more than the 100,000 rows an unpaged answer is capped at. */
const ROWS_PER_RUN = 5_600;

/** One GET on a plain socket: no Accept-Encoding (fetch would add one), events for each phase. */
function get(url: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  let firstByteAt = 0;
  let bytes = 0;
  const onFirstByte: Array<() => void> = [];
  const done = new Promise<{ status: number; bytes: number; ms: number; firstByteMs: number; body: string }>(
    (resolve, reject) => {
      const chunks: Buffer[] = [];
      http
        .get(url, { headers, agent: false }, (res) => {
          res.on('data', (d: Buffer) => {
            if (!firstByteAt) {
              firstByteAt = performance.now();
              for (const f of onFirstByte) f();
            }
            bytes += d.length;
            if (chunks.length < 4) chunks.push(d);
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              bytes,
              ms: performance.now() - started,
              firstByteMs: firstByteAt - started,
              body: Buffer.concat(chunks).toString('utf8', 0, 200),
            }),
          );
          res.on('error', reject);
        })
        .on('error', reject);
    },
  );
  return { done, firstByte: new Promise<void>((r) => onFirstByte.push(r)), bytesSoFar: () => bytes };
}

// One unpaged read of the largest history on PGlite (npm start) once froze the
// process: GET /auth/api/Version waited 13.7 s behind it.
describe('the local host on PGlite keeps answering while the largest read streams', () => {
  let host: TestHost;
  let token: string;
  beforeAll(async () => {
    // One heavy read per user at a time, so the test can see the stream counted for its whole length.
    host = await startTestHost({ queueWorker: false, settings: { Http__MaxHeavyRequestsPerUser: '1' } });
    token = tokenOf(host, await seedUser(host));
    const prisma = host.services.prisma;
    await prisma.$executeRawUnsafe(
      `INSERT INTO "AnalysisRuns" ("subscriptionId","subscriptionName","runDate","totalMonthlyCost","totalResourcesAnalyzed","periodFrom","periodTo")
       SELECT $1, 'Long read', now()::timestamp - make_interval(days => ${RUNS} - g), 1000, 10, now()::date, now()::date
       FROM generate_series(1, ${RUNS}) g`,
      SUB,
    );
    await prisma.$executeRawUnsafe(
      `INSERT INTO "HistoricalCosts" ("analysisRunId","subscriptionId","costDate","costType","resourceGroup","name","cost","recordedAt")
       SELECT r.id, r."subscriptionId", date_trunc('day', r."runDate") - make_interval(days => (g % 180)), 'Service',
              'rg-' || (g % 40), 'Service ' || (g % 37), round((random() * 20)::numeric, 4), r."runDate"
       FROM "AnalysisRuns" r, generate_series(1, ${ROWS_PER_RUN}) g ORDER BY r.id, g`,
    );
    // What the local host does at startup and every ten minutes (PGlite has no autovacuum).
    await host.services.db.analyze();
  }, 240_000);
  afterAll(async () => {
    await host?.close();
  });

  it('answers Version within 200 ms at any time during the stream', { timeout: 240_000 }, async () => {
    const big = get(`${host.url}/finops/api/HistoricalCosts/subscription/${SUB}`, {
      authorization: `Bearer ${token}`,
    });
    await big.firstByte;
    // The stream counts against its user until its last byte: a second one is refused meanwhile.
    const second = await get(`${host.url}/finops/api/HistoricalCosts/subscription/${SUB}`, {
      authorization: `Bearer ${token}`,
    }).done;
    expect(second.status).toBe(429);
    const gaps: number[] = [];
    let streaming = true;
    void big.done.finally(() => {
      streaming = false;
    });
    // One Version request after another while the big answer is still arriving: each is sent when
    // the previous one is answered, so the gaps sample the whole stream.
    while (streaming) {
      const small = await get(`${host.url}/auth/api/Version`).done;
      expect(small.status).toBe(200);
      if (streaming) gaps.push(small.ms);
    }
    const answer = await big.done;
    expect(answer.status).toBe(200);
    expect(answer.bytes).toBeGreaterThan(30_000_000);
    console.log(
      `stream ${Math.round(answer.ms)} ms, ${(answer.bytes / 1e6).toFixed(1)} MB; Version x${gaps.length}: max ${Math.round(Math.max(...gaps))} ms, median ${Math.round(gaps.sort((a, b) => a - b)[gaps.length >> 1]!)} ms`,
    );
    expect(gaps.length).toBeGreaterThan(5);
    // Before: Version waited for the whole stream (9.4 s here, 13.7 s reported). Now each statement
    // starts on a fresh turn of the event loop, a page is an index range scan (the planner has
    // statistics) and the JSON is written one 64 KB chunk per turn, so a request waits at most for
    // one page's read. Measured on 2 shared cores at load average 24: median 30 ms, max 459 ms; the
    // worst single wait depends on the machine's load, so it gets a looser bound than the typical one.
    expect(gaps.sort((a, b) => a - b)[gaps.length >> 1]!).toBeLessThan(200);
    expect(Math.max(...gaps)).toBeLessThan(1_000);
  });
});
