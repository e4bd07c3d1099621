// Answers made of immutable runs are kept per host: compressed unpaged subscription
// histories, named by the runs they are made of, and run details. A repeated answer comes from
// memory; a new run, a deleted run or a new infra support cost gives a new answer.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRunTotals } from '../../shared/finops/engine/run-totals.js';
import { TEST_PG_URL } from '../support/databases.js';
import { sharingWith, startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { createUser, ensureAuth, insertFixtureRun, type TestUser } from './support.js';

const SUB = '77777777-cccc-4ccc-8ccc-00000000c16e';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Bytes on the wire. */
  wire: number;
  /** The decoded JSON text. */
  text: string;
}

describe('unpaged subscription histories are cached by their runs', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  const url = () => `${host.url}/finops/api/HistoricalCosts/subscription/${SUB}`;

  /** A gzip GET on node:http: fetch would decode the content coding and hide the wire size. */
  function gzGet(query = ''): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers = { authorization: `Bearer ${user.token}`, 'accept-encoding': 'gzip' };
      http
        .get(`${url()}${query}`, { headers }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => {
            const bytes = Buffer.concat(parts);
            expect(res.headers['content-encoding']).toBe('gzip');
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              wire: bytes.length,
              text: zlib.gunzipSync(bytes).toString(),
            });
          });
          res.on('error', reject);
        })
        .on('error', reject);
    });
  }

  /** A fixture run with the history totals the engine keeps with every run it writes. */
  async function addRun(runDate: string) {
    const p = host.services.prisma;
    const run = await insertFixtureRun(p, {
      subscriptionId: SUB,
      subscriptionName: 'Cached',
      runDate: new Date(runDate),
      days: 30,
    });
    await p.$executeRaw`UPDATE "AnalysisRuns" r SET "historicalCostCount" = h.n, "historyFrom" = h.f, "historyTo" = h.t
      FROM (SELECT count(*)::int AS n, min("costDate") AS f, max("costDate") AS t FROM "HistoricalCosts"
            WHERE "analysisRunId" = ${run.id}) h WHERE r.id = ${run.id}`;
    return run.id;
  }

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false);
    await ensureAuth(host, user);
    await addRun('2026-03-01T00:00:00Z');
    await addRun('2026-04-01T00:00:00Z');
  }, 120_000);
  afterAll(async () => {
    await host?.close();
  });

  it('answers a repeated compressed history whole from memory, the same rows as the identity answer', async () => {
    const plain = await api.get(`/finops/api/HistoricalCosts/subscription/${SUB}`, { token: user.token });
    const first = await gzGet();
    // Runs never change once written, so the kept answer is served: an edit no route makes is
    // not seen by the second answer.
    await host.services.prisma.$executeRaw`UPDATE "HistoricalCosts" SET cost = cost + 1000
      WHERE "subscriptionId" = ${SUB}`;
    const second = await gzGet();
    expect(second.headers['content-length']).toBe(String(second.wire));
    expect(second.headers['x-total-count']).toBe(plain.headers.get('x-total-count'));
    expect(second.text).toBe(first.text);
    expect(JSON.parse(second.text)).toEqual(plain.body);
    await host.services.prisma.$executeRaw`UPDATE "HistoricalCosts" SET cost = cost - 1000
      WHERE "subscriptionId" = ${SUB}`;
  });

  it('keeps answers within dates apart from the whole history', async () => {
    const q = '?startDate=2026-03-10&endDate=2026-03-20';
    const whole = await gzGet();
    const first = await gzGet(q);
    await host.services.prisma.$executeRaw`UPDATE "HistoricalCosts" SET cost = cost + 1000
      WHERE "subscriptionId" = ${SUB}`;
    const second = await gzGet(q);
    await host.services.prisma.$executeRaw`UPDATE "HistoricalCosts" SET cost = cost - 1000
      WHERE "subscriptionId" = ${SUB}`;
    const paged = await api.get(`/finops/api/HistoricalCosts/subscription/${SUB}${q}&pageSize=5000`, {
      token: user.token,
    });
    expect(JSON.parse(second.text)).toEqual(paged.body);
    expect(first.text).toBe(second.text);
    expect(second.text).not.toBe(whole.text);
  });

  it('answers anew when a run is added or deleted, or the infra support cost changes', async () => {
    const before = JSON.parse((await gzGet()).text) as Array<{
      analysisRunId: number;
      infraSupportCost: number;
    }>;
    const added = await addRun('2026-05-01T00:00:00Z');
    const withNew = JSON.parse((await gzGet()).text) as typeof before;
    expect(withNew.filter((r) => r.analysisRunId === added).length).toBeGreaterThan(0);
    expect(withNew.length).toBeGreaterThan(before.length);

    await host.services.prisma.subscription.create({
      data: { subscriptionId: SUB, infraSupportCost: 612.25 },
    });
    const overlaid = JSON.parse((await gzGet()).text) as typeof before;
    expect(overlaid).toHaveLength(withNew.length);
    expect(new Set(overlaid.map((r) => r.infraSupportCost))).toEqual(new Set([612.25]));

    await host.services.prisma.analysisRun.delete({ where: { id: added } });
    const after = await gzGet();
    const rows = JSON.parse(after.text) as typeof before;
    expect(rows.some((r) => r.analysisRunId === added)).toBe(false);
    expect(rows).toHaveLength(before.length);
    expect(after.headers['x-total-count']).toBe(String(before.length));
  });
});

describe('run details are kept per run', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  const SUB2 = '77777777-cccc-4ccc-8ccc-00000000d7a1';

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false);
    await ensureAuth(host, user);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
  });

  it('answers a run and the latest run from memory until the run is deleted or a newer one exists', async () => {
    const p = host.services.prisma;
    const run = await insertFixtureRun(p, {
      subscriptionId: SUB2,
      subscriptionName: 'Kept',
      runDate: new Date('2026-03-01T00:00:00Z'),
    });
    const first = await api.get(`/finops/api/AnalysisRuns/${run.id}`, { token: user.token });
    expect(first.status).toBe(200);
    expect(first.body.resources).toHaveLength(24);
    // An edit no route makes (runs never change once written) is not seen: the kept answer is sent.
    await p.resourceAnalysis.updateMany({ where: { analysisRunId: run.id }, data: { location: 'edited' } });
    const second = await api.get(`/finops/api/AnalysisRuns/${run.id}`, { token: user.token });
    const latest = await api.get('/finops/api/AnalysisRuns/latest', { token: user.token });
    expect(second.text).toBe(first.text);
    expect(latest.text).toBe(first.text);

    const newer = await insertFixtureRun(p, {
      subscriptionId: SUB2,
      subscriptionName: 'Kept',
      runDate: new Date('2026-04-01T00:00:00Z'),
    });
    expect((await api.get('/finops/api/AnalysisRuns/latest', { token: user.token })).body.id).toBe(newer.id);

    await p.analysisRun.delete({ where: { id: run.id } });
    const gone = await api.get(`/finops/api/AnalysisRuns/${run.id}`, { token: user.token });
    expect(gone.status).toBe(404);
  });

  it('keeps unpaged resource lists of one read for runs written with their totals only', async () => {
    const p = host.services.prisma;
    const kept = await insertFixtureRun(p, {
      subscriptionId: SUB2,
      subscriptionName: 'Kept',
      runDate: new Date('2026-02-01T00:00:00Z'),
    });
    await writeRunTotals((sql, params) => p.$executeRawUnsafe(sql, ...params), kept.id, SUB2);
    const bare = await insertFixtureRun(p, {
      subscriptionId: SUB2,
      subscriptionName: 'Kept',
      runDate: new Date('2026-02-02T00:00:00Z'),
    });
    const lists = [
      '/type/microsoft.compute%2Fdisks',
      '/resourcegroup/rg-web',
      '/flags',
      '/search?searchTerm=res-0',
    ];
    const read = async (runId: number) => {
      const out: string[] = [];
      for (const l of lists) {
        const res = await api.get(`/finops/api/Resources/analysis/${runId}${l}`, { token: user.token });
        expect(res.status).toBe(200);
        expect(Number(res.headers.get('x-total-count'))).toBe(res.body.length);
        out.push(res.text);
      }
      return out;
    };
    const [keptBefore, bareBefore] = [await read(kept.id), await read(bare.id)];
    // An edit no route makes: the kept run's lists are answered from memory, the other's anew.
    await p.resourceAnalysis.updateMany({
      where: { analysisRunId: { in: [kept.id, bare.id] } },
      data: { location: 'edited' },
    });
    expect(await read(kept.id)).toEqual(keptBefore);
    const bareAfter = await read(bare.id);
    for (const [i, text] of bareAfter.entries()) {
      expect(text).not.toBe(bareBefore[i]);
      expect(text).toContain('"location":"edited"');
    }
    await p.analysisRun.delete({ where: { id: kept.id } });
    const gone = await api.get(`/finops/api/Resources/analysis/${kept.id}/flags`, { token: user.token });
    expect([gone.status, gone.body, gone.headers.get('x-total-count')]).toEqual([200, [], '0']);
  });

  it('builds a kept list longer than one read whole, and answers it from memory after', async () => {
    const p = host.services.prisma;
    const run = await insertFixtureRun(p, {
      subscriptionId: SUB2,
      subscriptionName: 'Kept',
      runDate: new Date('2026-01-15T00:00:00Z'),
      resources: 0,
    });
    await p.$executeRawUnsafe(
      `INSERT INTO "ResourceAnalyses" ("analysisRunId","resourceType","resourceName","resourceGroup","flags","recordedAt")
       SELECT $1, 'microsoft.compute/disks', 'disk-' || lpad(g::text, 4, '0'), 'RG-MANY', 'Unattached disk', now()
       FROM generate_series(1, 2500) g`,
      run.id,
    );
    await writeRunTotals((sql, params) => p.$executeRawUnsafe(sql, ...params), run.id, SUB2);
    const url = `/finops/api/Resources/analysis/${run.id}/flags`;
    const first = await api.get(url, { token: user.token });
    await p.resourceAnalysis.updateMany({ where: { analysisRunId: run.id }, data: { location: 'edited' } });
    const second = await api.get(url, { token: user.token });
    expect(first.body).toHaveLength(2500);
    expect(first.headers.get('x-total-count')).toBe('2500');
    expect(second.text).toBe(first.text);
  });

  it("keeps the newest run's optimization opportunities, and follows a newer run", async () => {
    const p = host.services.prisma;
    const url = `/finops/api/Dashboard/optimization-opportunities?subscriptionId=${SUB2}`;
    const first = await api.get(url, { token: user.token });
    expect(first.status).toBe(200);
    expect(first.body.totalOpportunities).toBeGreaterThan(0);
    await p.resourceAnalysis.updateMany({
      where: { analysisRunId: first.body.analysisRunId },
      data: { flags: 'edited' },
    });
    const second = await api.get(url, { token: user.token });
    expect(second.body.byResourceType).toEqual(first.body.byResourceType);
    const newer = await insertFixtureRun(p, {
      subscriptionId: SUB2,
      subscriptionName: 'Kept',
      runDate: new Date('2026-05-01T00:00:00Z'),
    });
    const third = await api.get(url, { token: user.token });
    expect(third.body.analysisRunId).toBe(newer.id);
    expect(third.body.byResourceType).toEqual(first.body.byResourceType);
  });
});

describe('the waste summary beside the opportunities follows decisions at once', () => {
  const SUB3 = '77777777-cccc-4ccc-8ccc-00000000e0a5';
  const url = `/finops/api/Dashboard/optimization-opportunities?subscriptionId=${SUB3}`;
  const decisions = `/finops/api/Waste/subscriptions/${SUB3}`;

  const flag = (code: string, saving: number) => ({
    code,
    message: code,
    monthToDateCost: 10,
    category: 'waste',
    estimatedMonthlySaving: saving,
    status: 'active',
  });

  /** A run written with its totals: three flagged disks in two groups, one with two findings. */
  async function flaggedRun(host: TestHost) {
    const p = host.services.prisma;
    const run = await insertFixtureRun(p, {
      subscriptionId: SUB3,
      subscriptionName: 'Waste',
      runDate: new Date('2026-06-01T00:00:00Z'),
      resources: 0,
    });
    const disks = [
      ['disk-a', 'RG-ONE', [flag('UnattachedDisk', 10)]],
      ['disk-b', 'RG-ONE', [flag('UnattachedDisk', 20), flag('OldSnapshot', 5)]],
      ['disk-c', 'RG-TWO', [flag('UnattachedDisk', 40)]],
    ] as const;
    for (const [name, group, flags] of disks) {
      await p.resourceAnalysis.create({
        data: {
          analysisRunId: run.id,
          resourceId: `/subscriptions/${SUB3}/resourceGroups/${group}/providers/microsoft.compute/disks/${name}`,
          resourceType: 'microsoft.compute/disks',
          resourceName: name,
          resourceGroup: group,
          flags: flags.map((f) => f.code).join('; '),
          flagDetails: flags.map((f) => ({ ...f })),
          recordedAt: new Date('2026-06-01T00:00:00Z'),
        },
      });
    }
    await writeRunTotals((sql, params) => p.$executeRawUnsafe(sql, ...params), run.id, SUB3);
    return run.id;
  }

  const diskId = (name: string, group: string) =>
    `/subscriptions/${SUB3}/resourceGroups/${group}/providers/microsoft.compute/disks/${name}`;

  describe('on one host', () => {
    let host: TestHost;
    let api: ReturnType<typeof apiClient>;
    let admin: TestUser;

    beforeAll(async () => {
      host = await startTestHost({ queueWorker: false });
      api = apiClient(host.url);
      admin = await createUser(host.services.prisma, true);
      await ensureAuth(host, admin);
      await flaggedRun(host);
    }, 120_000);
    afterAll(async () => {
      await host?.close();
    });

    const waste = async () => {
      const res = await api.get(url, { token: admin.token });
      expect(res.status).toBe(200);
      return res.body.waste;
    };

    it('answers from the kept findings, and reflects a dismissal, its revocation and an exclusion in the next answer', async () => {
      const first = await waste();
      expect(first.totals).toMatchObject({ findings: 4, resources: 3, estimatedMonthlySaving: 70 });
      // An edit no route makes (a run never changes once written): the kept findings are used.
      await host.services.prisma.resourceAnalysis.updateMany({
        where: { resourceName: 'disk-c' },
        data: { flagDetails: [] },
      });
      expect(await waste()).toEqual(first);
      await host.services.prisma.resourceAnalysis.updateMany({
        where: { resourceName: 'disk-c' },
        data: { flagDetails: [flag('UnattachedDisk', 40)] },
      });

      const dismissed = await api.post(`${decisions}/suppressions`, {
        token: admin.token,
        json: {
          resourceId: diskId('disk-c', 'RG-TWO'),
          code: 'UnattachedDisk',
          action: 'dismiss',
          reason: 'kept for DR',
        },
      });
      expect(dismissed.status).toBe(201);
      const afterDismissal = await waste();
      expect(afterDismissal.totals).toMatchObject({ findings: 3, resources: 2, estimatedMonthlySaving: 30 });
      expect(afterDismissal.leftOut.dismissed).toMatchObject({ findings: 1, estimatedMonthlySaving: 40 });

      const revoked = await api.delete(`${decisions}/suppressions/${dismissed.body.id}`, {
        token: admin.token,
      });
      expect(revoked.status).toBe(200);
      expect(await waste()).toEqual(first);

      const excluded = await api.post(`${decisions}/exclusions`, {
        token: admin.token,
        json: { resourceGroup: 'rg-one', reason: 'sandbox' },
      });
      expect(excluded.status).toBe(201);
      const afterExclusion = await waste();
      expect(afterExclusion.totals).toMatchObject({ findings: 1, resources: 1, estimatedMonthlySaving: 40 });
      expect(afterExclusion.byResourceGroup.map((g: { resourceGroup: string }) => g.resourceGroup)).toEqual([
        'RG-TWO',
      ]);
      expect(afterExclusion.leftOut.excluded).toMatchObject({ findings: 3, resources: 2 });
    });
  });

  describe.runIf(TEST_PG_URL)('on two hosts sharing one PostgreSQL database', () => {
    let a: TestHost;
    let b: TestHost;
    let admin: TestUser;

    beforeAll(async () => {
      a = await startTestHost({ queueWorker: false, database: 'postgres' });
      b = await startTestHost(sharingWith(a, { queueWorker: false }));
      admin = await createUser(a.services.prisma, true);
      await ensureAuth(a, admin);
      await flaggedRun(a);
    }, 120_000);
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    it('shows a dismissal made through one host in the next answer of the other', async () => {
      const [apiA, apiB] = [apiClient(a.url), apiClient(b.url)];
      const wasteOf = async (api: ReturnType<typeof apiClient>) =>
        (await api.get(url, { token: admin.token })).body.waste;
      const before = await wasteOf(apiB);
      expect(await wasteOf(apiA)).toEqual(before);
      expect(before.totals.findings).toBe(4);
      const dismissed = await apiA.post(`${decisions}/suppressions`, {
        token: admin.token,
        json: {
          resourceId: diskId('disk-a', 'RG-ONE'),
          code: 'UnattachedDisk',
          action: 'dismiss',
          reason: 'done',
        },
      });
      expect(dismissed.status).toBe(201);
      const after = await wasteOf(apiB);
      expect(after.totals.findings).toBe(3);
      expect(after.leftOut.dismissed.findings).toBe(1);
      await apiB.delete(`${decisions}/suppressions/${dismissed.body.id}`, { token: admin.token });
      expect(await wasteOf(apiA)).toEqual(before);
    });
  });
});
