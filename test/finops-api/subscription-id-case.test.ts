import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../shared/app/routes.js';
import { latestRuns } from '../../shared/finops/waste/changes.js';
import { runItems } from '../../shared/finops/waste/items.js';
import { buildOpenApiDocument } from '../../shared/http/openapi.js';
import { exportLines, focusCsv } from '../finops-intel/export-fixture.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { type ApiResponse, apiClient } from '../support/http.js';
import { createUser, insertFixtureRun, type TestUser } from './support.js';

/**
 * Subscription ids are lowered once, where they come in; stored in lower case and compared plainly
 * after that. Every route that takes one answers the same whichever spelling the client sends, and
 * what it writes is stored in lower case. The list of routes is read from the OpenAPI documents, so
 * a new route that takes a subscription id fails the first test until it is probed here.
 */
const SUB = '5e1eb5b0-1313-4a13-9d13-00000000c0de';
const UPPER = SUB.toUpperCase();

/** `METHOD /path` of every operation whose path, query or body names a subscription id. */
function operationsTakingASubscriptionId(): string[] {
  const out: string[] = [];
  for (const service of ['auth', 'finops', 'metrics'] as const) {
    const doc = buildOpenApiDocument(service, routes) as unknown as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; requestBody?: unknown }>>;
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const named = (op.parameters ?? []).some((p) => /subscriptionId/i.test(p.name));
        if (named || /subscriptionId/i.test(JSON.stringify(op.requestBody ?? {}))) {
          out.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
  }
  return out.sort();
}

/** What a client sees of an answer: its status and body (a problem's trace id is its own). */
const seen = (r: ApiResponse) => {
  const { traceId: _, ...rest } = r.body && typeof r.body === 'object' ? r.body : { traceId: undefined };
  return { status: r.status, body: Array.isArray(r.body) || typeof r.body !== 'object' ? r.body : rest };
};

describe('subscription ids in either case, on every route that takes one', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: TestUser;
  let member: TestUser;
  const probed = new Set<string>();
  const as = (u: TestUser) => ({ token: u.token });

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    admin = await createUser(host.services.prisma, true);
    member = await createUser(host.services.prisma, false);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('writes what an upper-case id names under its lower-case id', async () => {
    probed.add('POST /auth/api/UserSubscriptions');
    const assigned = await api.post('/auth/api/UserSubscriptions', {
      ...as(admin),
      json: { userId: member.id, subscriptionId: UPPER },
    });
    expect(assigned.status).toBe(200);
    expect(
      (await api.get(`/auth/api/UserSubscriptions/GetAllByUserId/${member.id}`, as(member))).body,
    ).toEqual([{ userId: member.id, subscriptionId: SUB }]);

    probed.add('POST /finops/api/Subscriptions');
    const created = await api.post('/finops/api/Subscriptions', {
      ...as(admin),
      json: { subscriptionId: UPPER, description: 'Case' },
    });
    expect(created.status).toBeLessThan(300);
    expect(created.body.subscriptionId).toBe(SUB);

    probed.add('POST /finops/api/CostImports');
    const csv = focusCsv(
      exportLines(SUB.toUpperCase(), '2026-06-01', 120, [
        {
          resourceGroup: 'rg-a',
          service: 'Storage',
          resource: 'st-1',
          level: 10,
          factors: { '2026-09-25': 8 },
        },
      ]),
    );
    const imported = await fetch(`${host.url}/finops/api/CostImports?subscriptionId=${UPPER}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': 'text/csv' },
      body: csv,
    });
    expect(imported.status).toBe(200);

    probed.add('POST /finops/api/NotificationChannels');
    const channel = await api.post('/finops/api/NotificationChannels', {
      ...as(admin),
      json: { name: 'case', kind: 'email', target: 'ops@example.com', subscriptionId: UPPER },
    });
    expect(channel.status).toBe(201);
    expect(channel.body.subscriptionId).toBe(SUB);

    probed.add('POST /finops/api/Analysis/start-async');
    const job = await api.post('/finops/api/Analysis/start-async', { ...as(member), json: UPPER });
    expect(job.status).toBe(202);
    expect(
      (await api.get(`/finops/api/Analysis/jobs/${job.body.jobId}`, as(member))).body.subscriptionId,
    ).toBe(SUB);

    const prisma = host.services.prisma;
    for (const rows of [
      await prisma.subscription.findMany({ select: { subscriptionId: true } }),
      await prisma.analysisRun.findMany({ select: { subscriptionId: true } }),
      await prisma.historicalCost.findMany({
        select: { subscriptionId: true },
        distinct: ['subscriptionId'],
      }),
      await prisma.costImport.findMany({ select: { subscriptionId: true } }),
      await prisma.analysisJob.findMany({ select: { subscriptionId: true } }),
    ]) {
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.subscriptionId))).toEqual(new Set([SUB]));
    }
  });

  it('starts a synchronous analysis for either spelling under the lower-case id', async () => {
    probed.add('POST /finops/api/Analysis/start');
    const before = await host.services.prisma.analysisJob.count({ where: { source: 'sync' } });
    // No Azure here: the analysis fails, but its job names the subscription as stored.
    await api.post('/finops/api/Analysis/start', { ...as(member), json: { subscriptionId: UPPER } });
    const jobs = await host.services.prisma.analysisJob.findMany({ where: { source: 'sync' } });
    expect(jobs).toHaveLength(before + 1);
    expect(jobs.map((j) => j.subscriptionId)).toEqual([SUB]);
  });

  it('records and revokes waste decisions whichever spelling the path has', async () => {
    const base = `/finops/api/Waste/subscriptions`;
    probed.add('POST /finops/api/Waste/subscriptions/{subscriptionId}/suppressions');
    probed.add('POST /finops/api/Waste/subscriptions/{subscriptionId}/exclusions');
    // A run with findings, the latest: a decision names one of its findings.
    const prisma = host.services.prisma;
    const run = await insertFixtureRun(prisma, {
      subscriptionId: SUB,
      subscriptionName: 'Case',
      runDate: new Date(),
    });
    await prisma.resourceAnalysis.updateMany({
      where: { analysisRunId: run.id, flags: 'Unattached disk' },
      data: {
        flagDetails: [
          { code: 'UnattachedDisk', message: 'Unattached disk', monthToDateCost: 3, category: 'waste' },
        ],
      },
    });
    const [latest] = await latestRuns(prisma, SUB, 1);
    const findings = await runItems(prisma, latest!, new Date());
    expect(findings.length).toBeGreaterThan(1);
    const made: Array<{ suppression: number; exclusion: number }> = [];
    for (const id of [UPPER, SUB]) {
      const finding = findings[made.length]!;
      const s = await api.post(`${base}/${id}/suppressions`, {
        ...as(admin),
        json: { resourceId: finding.resourceId, code: finding.code, action: 'dismiss', reason: 'kept' },
      });
      expect(s.status).toBe(201);
      const x = await api.post(`${base}/${id}/exclusions`, {
        ...as(admin),
        json: { resourceGroup: `rg-${made.length}`, reason: 'kept' },
      });
      expect(x.status).toBe(201);
      made.push({ suppression: s.body.id as number, exclusion: x.body.id as number });
    }
    const lists = async (id: string) => [
      seen(await api.get(`${base}/${id}/suppressions`, as(admin))),
      seen(await api.get(`${base}/${id}/exclusions`, as(admin))),
    ];
    probed.add('GET /finops/api/Waste/subscriptions/{subscriptionId}/suppressions');
    probed.add('GET /finops/api/Waste/subscriptions/{subscriptionId}/exclusions');
    const lower = await lists(SUB);
    expect(lower.map((l) => l.body.length)).toEqual([2, 2]);
    expect(await lists(UPPER)).toEqual(lower);
    // Bounded like every list: a page of one, the true count in X-Total-Count.
    for (const list of ['suppressions', 'exclusions']) {
      const page = await api.get(`${base}/${UPPER}/${list}?pageSize=1`, as(admin));
      expect(page.body).toHaveLength(1);
      expect(page.headers.get('x-total-count')).toBe('2');
    }

    probed.add('DELETE /finops/api/Waste/subscriptions/{subscriptionId}/suppressions/{id}');
    probed.add('DELETE /finops/api/Waste/subscriptions/{subscriptionId}/exclusions/{id}');
    for (const [id, m] of [
      [UPPER, made[1]!],
      [SUB, made[0]!],
    ] as const) {
      expect(
        (await api.delete(`${base}/${id}/suppressions/${m.suppression}`, as(admin))).status,
      ).toBeLessThan(300);
      expect((await api.delete(`${base}/${id}/exclusions/${m.exclusion}`, as(admin))).status).toBeLessThan(
        300,
      );
    }
    // Revoked rows stay listed, no longer in force.
    const after = (await lists(SUB)).flatMap((l) => l.body as Array<{ revokedAt: string | null }>);
    expect(after.map((r) => r.revokedAt !== null)).toEqual([true, true, true, true]);
  });

  it('answers every read the same for the lower- and the upper-case id, and finds the stored rows', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the answers of eleven routes, each of its own shape
    const reads: Record<string, { path: (id: string) => string; found: (body: any) => boolean }> = {
      'GET /finops/api/Subscriptions/by-subscription-id/{subscriptionId}': {
        path: (id) => `/finops/api/Subscriptions/by-subscription-id/${id}`,
        found: (b) => b.subscriptionId === SUB,
      },
      'GET /finops/api/AnalysisRuns/subscription/{subscriptionId}': {
        path: (id) => `/finops/api/AnalysisRuns/subscription/${id}`,
        found: (b) => b.length > 0,
      },
      'GET /finops/api/HistoricalCosts/subscription/{subscriptionId}': {
        path: (id) => `/finops/api/HistoricalCosts/subscription/${id}`,
        found: (b) => b.length > 0,
      },
      'GET /finops/api/Dashboard/summary': {
        path: (id) => `/finops/api/Dashboard/summary?subscriptionId=${id}`,
        found: () => true,
      },
      'GET /finops/api/Dashboard/cost-trends': {
        path: (id) => `/finops/api/Dashboard/cost-trends?subscriptionId=${id}`,
        found: () => true,
      },
      'GET /finops/api/Dashboard/resource-distribution': {
        path: (id) => `/finops/api/Dashboard/resource-distribution?subscriptionId=${id}`,
        found: () => true,
      },
      'GET /finops/api/Dashboard/optimization-opportunities': {
        path: (id) => `/finops/api/Dashboard/optimization-opportunities?subscriptionId=${id}`,
        found: () => true,
      },
      'GET /finops/api/Waste/subscriptions/{subscriptionId}/changes': {
        path: (id) => `/finops/api/Waste/subscriptions/${id}/changes`,
        found: () => true,
      },
      'GET /finops/api/Anomalies': {
        path: (id) => `/finops/api/Anomalies?subscriptionId=${id}`,
        found: (b) => b.length > 0,
      },
      'GET /finops/api/Forecast/{subscriptionId}': {
        path: (id) => `/finops/api/Forecast/${id}`,
        found: (b) => b.subscriptionId === SUB,
      },
      'GET /finops/api/CostImports/history': {
        path: (id) => `/finops/api/CostImports/history?subscriptionId=${id}`,
        found: (b) => b.imports.length === 1,
      },
    };
    for (const [op, read] of Object.entries(reads)) {
      probed.add(op);
      const lower = seen(await api.get(read.path(SUB), as(member)));
      expect(lower.status, op).toBe(200);
      expect(read.found(lower.body), op).toBe(true);
      expect(seen(await api.get(read.path(UPPER), as(member))), op).toEqual(lower);
    }
  });

  it('takes a blob import request in either spelling alike', async () => {
    probed.add('POST /finops/api/CostImports/blob');
    // No blob storage here: both spellings get the same refusal after the id is accepted.
    const ask = async (id: string) =>
      seen(
        await api.post('/finops/api/CostImports/blob', {
          ...as(admin),
          json: { subscriptionId: id, url: 'https://example.invalid/exports?sv=x', prefix: 'p/' },
        }),
      );
    const lower = await ask(SUB);
    expect(lower.status).not.toBe(400);
    expect(await ask(UPPER)).toEqual(lower);
  });

  it('has probed every route whose path, query or body takes a subscription id', () => {
    expect([...probed].sort()).toEqual(operationsTakingASubscriptionId());
  });
});
