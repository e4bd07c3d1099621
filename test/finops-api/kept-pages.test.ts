// Pages of runs written with their totals (history pages, by-service and group pages, daily
// totals, resource and cost lists, run details) are kept per host as bytes, with the gzip/br bytes clients asked for.
// A kept answer must be the very answer the route builds, for every caller, under
// every parameter apart, and a new run, a deleted run or a new infra support cost answers anew.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRunTotals } from '../../shared/finops/engine/run-totals.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { createUser, ensureAuth, insertFixtureRun, type TestUser } from './support.js';

const SUB = '77777777-cccc-4ccc-8ccc-00000000f16e';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes on the wire, undecoded. */
  bytes: Buffer;
}

describe('pages of runs are kept with their compressed bytes', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  let other: TestUser;

  /** A GET on node:http (fetch would decode the content coding and hide the bytes sent). */
  function raw(path: string, token: string | undefined, acceptEncoding?: string): Promise<Raw> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (acceptEncoding) headers['accept-encoding'] = acceptEncoding;
    return new Promise((resolve, reject) => {
      http
        .get(`${host.url}/finops/api/${path}`, { headers }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(parts) }),
          );
          res.on('error', reject);
        })
        .on('error', reject);
    });
  }

  const decoded = (r: Raw) => {
    const coding = r.headers['content-encoding'];
    if (coding === 'gzip') return zlib.gunzipSync(r.bytes).toString();
    if (coding === 'br') return zlib.brotliDecompressSync(r.bytes).toString();
    return r.bytes.toString();
  };
  /** The headers that describe the answer (not the moment it was sent). */
  const described = (r: Raw) => {
    const { date: _date, 'keep-alive': _ka, connection: _c, ...rest } = r.headers;
    return rest;
  };

  /** A run as the engine writes it: with the totals that mark it complete and unchanging. */
  async function keptRun(runDate: string) {
    const p = host.services.prisma;
    const run = await insertFixtureRun(p, {
      subscriptionId: SUB,
      subscriptionName: 'Kept pages',
      runDate: new Date(runDate),
      days: 20,
    });
    await writeRunTotals((sql, params) => p.$executeRawUnsafe(sql, ...params), run.id, SUB);
    return run.id;
  }

  /** An edit no route makes (runs never change once written): a kept answer does not show it. */
  async function editRows(runIds: number[], delta: number) {
    const p = host.services.prisma;
    await p.$executeRaw`UPDATE "HistoricalCosts" SET cost = cost + ${delta} WHERE "analysisRunId" = ANY(${runIds}::int[])`;
    await p.$executeRaw`UPDATE "CostDetails" SET cost = cost + ${delta} WHERE "analysisRunId" = ANY(${runIds}::int[])`;
    await p.$executeRaw`UPDATE "ResourceAnalyses" SET location = ${delta > 0 ? 'edited' : 'westeurope'}
      WHERE "analysisRunId" = ANY(${runIds}::int[])`;
  }

  const pagesOf = (runId: number) => [
    `HistoricalCosts/analysis/${runId}?pageSize=7`,
    `HistoricalCosts/analysis/${runId}?page=2&pageSize=7`,
    `HistoricalCosts/subscription/${SUB}?pageSize=9`,
    `HistoricalCosts/analysis/${runId}/by-service?serviceName=Storage&pageSize=5`,
    `HistoricalCosts/analysis/${runId}/by-service?pageSize=40`,
    `HistoricalCosts/analysis/${runId}/daily-totals`,
    `HistoricalCosts/analysis/${runId}/by-resourcegroup?resourceGroup=rg-web`,
    `Resources/analysis/${runId}`,
    `Resources/analysis/${runId}/flags?pageSize=3`,
    `Resources/analysis/${runId}/flags`,
    `CostDetails/analysis/${runId}`,
    `CostDetails/analysis/${runId}/type/Service?pageSize=4`,
    `CostDetails/analysis/${runId}/top/3`,
    `CostDetails/analysis/${runId}/summary/services`,
    `Resources/analysis/${runId}/summary/types`,
    `AnalysisRuns/${runId}`,
  ];

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false);
    other = await createUser(host.services.prisma, false);
    await ensureAuth(host, user);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
  });

  it('answers a kept page with the bytes and headers it was built with, identity, gzip and br alike', async () => {
    const runId = await keptRun('2026-03-01T00:00:00Z');
    const codings = [undefined, 'gzip', 'gzip, deflate, br, zstd'];
    const first: Raw[] = [];
    for (const path of pagesOf(runId)) for (const c of codings) first.push(await raw(path, user.token, c));
    await editRows([runId], 1000);
    const second: Raw[] = [];
    for (const path of pagesOf(runId)) for (const c of codings) second.push(await raw(path, user.token, c));
    await editRows([runId], -1000);

    expect(first.every((r) => r.status === 200)).toBe(true);
    expect(second.map((r) => r.bytes)).toEqual(first.map((r) => r.bytes));
    expect(second.map(described)).toEqual(first.map(described));
    // Every coding carries the same JSON; answers large enough are compressed as asked.
    for (let i = 0; i < first.length; i += codings.length) {
      const [plain, gz, br] = [first[i]!, first[i + 1]!, first[i + 2]!];
      expect(decoded(gz)).toBe(plain.bytes.toString());
      expect(decoded(br)).toBe(plain.bytes.toString());
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding');
      if (plain.bytes.length >= 1024) {
        expect([gz.headers['content-encoding'], br.headers['content-encoding']]).toEqual(['gzip', 'br']);
        expect(gz.headers['content-length']).toBe(String(gz.bytes.length));
      }
    }
    expect(first.filter((r) => r.headers['content-encoding'] === 'br').length).toBeGreaterThan(5);
  });

  it('keeps pages of other parameters or runs apart, and answers every caller alike after the token check', async () => {
    const a = await keptRun('2026-04-01T00:00:00Z');
    const b = await keptRun('2026-04-02T00:00:00Z');
    const body = async (path: string, token = user.token) => {
      const res = await api.get(`/finops/api/${path}`, { token });
      expect(res.status).toBe(200);
      return res;
    };
    const p1 = await body(`HistoricalCosts/analysis/${a}?page=1&pageSize=6`);
    const p2 = await body(`HistoricalCosts/analysis/${a}?page=2&pageSize=6`);
    const wider = await body(`HistoricalCosts/analysis/${a}?page=1&pageSize=7`);
    const ofB = await body(`HistoricalCosts/analysis/${b}?page=1&pageSize=6`);
    expect(p1.body).toHaveLength(6);
    expect(p2.body[0].id).not.toBe(p1.body[0].id);
    expect(wider.body.slice(0, 6)).toEqual(p1.body);
    expect(wider.body).toHaveLength(7);
    expect(new Set(ofB.body.map((r: { analysisRunId: number }) => r.analysisRunId))).toEqual(new Set([b]));

    const storage = await body(`HistoricalCosts/analysis/${a}/by-service?serviceName=Storage&pageSize=50`);
    const folded = await body(`HistoricalCosts/analysis/${a}/by-service?serviceName=storage&pageSize=50`);
    const bandwidth = await body(
      `HistoricalCosts/analysis/${a}/by-service?serviceName=Bandwidth&pageSize=50`,
    );
    expect(new Set(storage.body.map((r: { service: string }) => r.service))).toEqual(new Set(['Storage']));
    expect(folded.body).toEqual(storage.body);
    expect(new Set(bandwidth.body.map((r: { service: string }) => r.service))).toEqual(
      new Set(['Bandwidth']),
    );

    const allFlags = await body(`Resources/analysis/${a}/flags?pageSize=50`);
    const someFlags = await body(`Resources/analysis/${a}/flags?pageSize=50&flagContains=zzz-none`);
    expect(allFlags.body.length).toBeGreaterThan(0);
    expect(someFlags.body).toEqual([]);
    expect(someFlags.headers.get('x-total-count')).toBe('0');

    // Answers do not depend on who asks; the token is still checked before any kept answer.
    const path = `HistoricalCosts/analysis/${a}?page=1&pageSize=6`;
    expect((await body(path, other.token)).text).toBe(p1.text);
    expect((await raw(path, undefined)).status).toBe(401);
    expect((await raw(path, `${user.token}x`)).status).toBe(401);
  });

  it('answers anew when the subscription gains or loses a run, or its infra support cost changes', async () => {
    const p = host.services.prisma;
    const first = await keptRun('2026-05-01T00:00:00Z');
    const subPage = `/finops/api/HistoricalCosts/subscription/${SUB}?pageSize=5000`;
    const runPage = `/finops/api/HistoricalCosts/analysis/${first}?pageSize=50`;
    const before = await api.get(subPage, { token: user.token });
    const runBefore = await api.get(runPage, { token: user.token });
    const added = await keptRun('2026-05-02T00:00:00Z');
    const withNew = await api.get(subPage, { token: user.token });
    const ids = (res: { body: Array<{ analysisRunId: number }> }) =>
      new Set(res.body.map((r) => r.analysisRunId));
    expect(ids(before).has(added)).toBe(false);
    expect(ids(withNew).has(added)).toBe(true);
    expect(Number(withNew.headers.get('x-total-count'))).toBeGreaterThan(
      Number(before.headers.get('x-total-count')),
    );

    await p.subscription.upsert({
      where: { subscriptionId: SUB },
      create: { subscriptionId: SUB, infraSupportCost: 733.5 },
      update: { infraSupportCost: 733.5 },
    });
    const infra = (res: { body: Array<{ infraSupportCost: number }> }) =>
      new Set(res.body.map((r) => r.infraSupportCost));
    expect(infra(runBefore)).not.toEqual(new Set([733.5]));
    expect(infra(await api.get(runPage, { token: user.token }))).toEqual(new Set([733.5]));
    expect(infra(await api.get(subPage, { token: user.token }))).toEqual(new Set([733.5]));
    const daily = await api.get(`/finops/api/HistoricalCosts/analysis/${first}/daily-totals`, {
      token: user.token,
    });
    expect(infra(daily)).toEqual(new Set([733.5]));

    await p.analysisRun.delete({ where: { id: added } });
    const after = await api.get(subPage, { token: user.token });
    expect(ids(after).has(added)).toBe(false);
    for (const path of pagesOf(added).filter((x) => x.startsWith('HistoricalCosts/analysis'))) {
      const gone = await api.get(`/finops/api/${path}`, { token: user.token });
      expect([path, gone.status, gone.body, gone.headers.get('x-total-count')]).toEqual([path, 200, [], '0']);
    }
    for (const path of [`Resources/analysis/${added}/flags?pageSize=3`, `CostDetails/analysis/${added}`]) {
      const gone = await api.get(`/finops/api/${path}`, { token: user.token });
      expect([path, gone.body, gone.headers.get('x-total-count')]).toEqual([path, [], '0']);
    }
    expect((await api.get(`/finops/api/AnalysisRuns/${added}`, { token: user.token })).status).toBe(404);
  });

  it('reads the pages of a run written without its totals anew every time', async () => {
    const p = host.services.prisma;
    const bare = await insertFixtureRun(p, {
      subscriptionId: '77777777-cccc-4ccc-8ccc-00000000f16f',
      subscriptionName: 'Bare',
      runDate: new Date('2026-06-01T00:00:00Z'),
      days: 5,
    });
    const paths = [
      `HistoricalCosts/analysis/${bare.id}?pageSize=7`,
      `HistoricalCosts/analysis/${bare.id}/by-service?serviceName=Storage&pageSize=5`,
      `Resources/analysis/${bare.id}/flags?pageSize=3`,
      `CostDetails/analysis/${bare.id}?pageSize=3`,
    ];
    const read = async () =>
      Promise.all(paths.map(async (x) => (await api.get(`/finops/api/${x}`, { token: user.token })).text));
    const before = await read();
    await editRows([bare.id], 1000);
    const after = await read();
    for (const [i, text] of after.entries()) expect(text).not.toBe(before[i]);
    expect(after[2]).toContain('"location":"edited"');
  });
});

describe('with Http__KeptAnswersMiB=0 nothing is kept', () => {
  let host: TestHost;
  let user: TestUser;
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false, settings: { Http__KeptAnswersMiB: '0' } });
    user = await createUser(host.services.prisma, false);
    await ensureAuth(host, user);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
  });

  it('reads a run written with its totals anew on every request, and still compresses as asked', async () => {
    const p = host.services.prisma;
    const run = await insertFixtureRun(p, {
      subscriptionId: SUB,
      subscriptionName: 'Nothing kept',
      runDate: new Date('2026-03-01T00:00:00Z'),
      days: 20,
    });
    await writeRunTotals((sql, params) => p.$executeRawUnsafe(sql, ...params), run.id, SUB);
    const api = apiClient(host.url);
    const paths = [`HistoricalCosts/analysis/${run.id}?pageSize=50`, `HistoricalCosts/subscription/${SUB}`];
    const read = (headers: Record<string, string> = {}) =>
      Promise.all(paths.map((x) => api.get(`/finops/api/${x}`, { token: user.token, headers })));
    const before = await read();
    await p.$executeRaw`UPDATE "HistoricalCosts" SET cost = cost + 1000 WHERE "analysisRunId" = ${run.id}`;
    const after = await read({ 'accept-encoding': 'gzip' });
    for (const [i, res] of after.entries()) {
      expect(res.status).toBe(200);
      expect(res.text).not.toBe(before[i]!.text);
      expect(res.headers.get('content-encoding')).toBe('gzip');
    }
  });
});
