import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator, WASTE_CASES } from '../../dev/azure-sim/index.js';
import { persistRun } from '../../shared/finops/engine/persist.js';
import type { TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { ADMIN, type Api, SUB_A, SUB_B, startAnalysisHost, USER } from './support.js';

describe('synchronous analysis against the simulator', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: Api;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 40, costPageSize: 500 });
    host = await startAnalysisHost(sim, { queueWorker: false });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('runs end to end and fills every table', async () => {
    const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(res.status).toBe(200);
    const simSub = sim.subscription(SUB_A);
    expect(res.body).toMatchObject({
      success: true,
      subscriptionId: SUB_A,
      subscriptionName: simSub.displayName,
      resourcesAnalyzed: 40,
      message: 'Analysis completed successfully',
      errorDetails: null,
    });
    expect(res.body.analysisRunId).toBeGreaterThan(0);
    expect(res.body.totalMonthlyCost).toBeGreaterThan(0);

    const prisma = host.services.prisma;
    const runId = res.body.analysisRunId as number;
    const run = await prisma.analysisRun.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({
      subscriptionId: SUB_A,
      aiModel: 'N/A',
      conversationId: 'N/A',
      reportFilePath: '',
      recommendationSource: 'rules',
      recommendationError: null,
      monthSelection: 'current',
      currency: simSub.currency,
      totalResourcesAnalyzed: 40,
    });

    // Resources: one snapshot each, group upper-cased, cost attached, every waste rule flagged.
    const resources = await prisma.resourceAnalysis.findMany({ where: { analysisRunId: runId } });
    expect(resources).toHaveLength(40);
    for (const r of resources) expect(r.resourceGroup).toBe(r.resourceGroup.toUpperCase());
    expect(resources.filter((r) => Number(r.monthToDateCost) > 0).length).toBeGreaterThan(20);
    const codes = new Set(
      resources.flatMap((r) => ((r.flagDetails ?? []) as Array<{ code: string }>).map((f) => f.code)),
    );
    expect(codes.size).toBeGreaterThanOrEqual(WASTE_CASES.length);
    const flagged = resources.find((r) => r.flags?.includes('UnattachedDisk'))!;
    const detail = (
      flagged.flagDetails as Array<{ code: string; message: string; monthToDateCost: number }>
    )[0]!;
    expect(detail.code).toBe('UnattachedDisk');
    expect(detail.message).toMatch(/not attached/);
    expect(detail.monthToDateCost).toBeCloseTo(Number(flagged.monthToDateCost), 4);
    const multi = resources.find((r) => ((r.flagDetails as unknown[] | null)?.length ?? 0) > 1);
    if (multi) expect(multi.flags).toContain('; ');

    // Cost details: group rows and service rows, both upper-cased groups, summing to the MTD total.
    const costs = await prisma.costDetail.findMany({ where: { analysisRunId: runId } });
    const groups = costs.filter((c) => c.costType === 'ResourceGroup');
    const services = costs.filter((c) => c.costType === 'Service');
    expect(groups.length).toBeGreaterThan(0);
    expect(services.length).toBeGreaterThanOrEqual(groups.length);
    for (const g of groups) expect(g.name).toBe(g.resourceGroup!.toUpperCase());
    const sum = (xs: typeof costs) => xs.reduce((s, c) => s + Number(c.cost), 0);
    expect(sum(groups)).toBeCloseTo(Number(run.totalMonthlyCost), 1);
    expect(sum(services)).toBeCloseTo(Number(run.totalMonthlyCost), 1);

    // History: Total per day from the 1st of the month six months back through today.
    const now = new Date();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 6, 1));
    const totals = await prisma.historicalCost.findMany({
      where: { analysisRunId: runId, costType: 'Total' },
      orderBy: { costDate: 'asc' },
    });
    const days =
      Math.round(
        (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - from.getTime()) / 86_400_000,
      ) + 1;
    expect(totals).toHaveLength(days);
    expect(totals[0]!.costDate.toISOString()).toBe(from.toISOString());
    const byType = await prisma.historicalCost.groupBy({
      by: ['costType'],
      where: { analysisRunId: runId },
      _count: true,
    });
    expect(Object.fromEntries(byType.map((t) => [t.costType, t._count]))).toMatchObject({
      Total: days,
      ResourceGroup: expect.any(Number),
      Service: expect.any(Number),
    });
    const recs = await prisma.aiRecommendation.findMany({ where: { analysisRunId: runId } });
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({ source: 'rules', model: 'rules' });
    // Unattached disks seen for the first time are only watched (30 days), so they are no action yet.
    expect(recs[0]!.recommendationText).toMatch(/Deallocate VMs that are stopped but still billed/);
    expect(recs[0]!.recommendationText).not.toMatch(/Snapshot and delete unattached managed disks/);

    // The job of a sync run is recorded too.
    const job = await prisma.analysisJob.findFirstOrThrow({ where: { analysisRunId: runId } });
    expect(job).toMatchObject({ status: 'completed', source: 'sync', progress: 100 });
  });

  it('accepts an object body and monthSelection=previous (the last full calendar month)', async () => {
    const res = await api.post('/finops/api/Analysis/start?monthSelection=previous', {
      token: USER,
      json: { SubscriptionId: SUB_B },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const run = await host.services.prisma.analysisRun.findUniqueOrThrow({
      where: { id: res.body.analysisRunId },
    });
    const now = new Date();
    expect(run.monthSelection).toBe('previous');
    expect(run.periodFrom.toISOString().slice(0, 10)).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 10),
    );
    const lastDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
    expect(run.periodTo.toISOString().slice(0, 10)).toBe(lastDay.toISOString().slice(0, 10));
    const latest = await host.services.prisma.historicalCost.findFirstOrThrow({
      where: { analysisRunId: run.id },
      orderBy: { costDate: 'desc' },
    });
    expect(latest.costDate.toISOString()).toBe(lastDay.toISOString());
  });

  it('refuses a missing token, a bad id and a bad monthSelection', async () => {
    expect((await api.post('/finops/api/Analysis/start', { json: SUB_A })).status).toBe(401);
    const bad = await api.post('/finops/api/Analysis/start', { token: USER, json: 'not-a-guid' });
    expect(isProblem(bad, 400)).toBe(true);
    expect(bad.body.errors.subscriptionId).toBeDefined();
    expect(
      isProblem(await api.post('/finops/api/Analysis/start-async', { token: USER, json: '  ' }), 400),
    ).toBe(true);
    expect(
      isProblem(await api.post('/finops/api/Analysis/start-async', { token: USER, json: { other: 1 } }), 400),
    ).toBe(true);
    const month = await api.post('/finops/api/Analysis/start-async?monthSelection=last', {
      token: USER,
      json: SUB_A,
    });
    expect(isProblem(month, 400)).toBe(true);
  });

  it('answers 404 for unknown job ids and the settings', async () => {
    const unknown = await api.get('/finops/api/Analysis/jobs/6f1c1d8e-0000-4000-8000-000000000000', {
      token: USER,
    });
    expect(isProblem(unknown, 404)).toBe(true);
    expect(unknown.body.message).toBe('Unknown or expired job id');
    expect((await api.get('/finops/api/Analysis/jobs/not-a-guid', { token: USER })).status).toBe(404);
    const settings = await api.get('/finops/api/Analysis/settings', { token: USER });
    expect(settings.body).toEqual({
      costQueryType: 'ActualCost',
      costQueryTypeLabel: 'Actual',
      costQueryTypeDescription: expect.any(String),
    });
  });

  it('answers the sync summary with success false and a short reason when the analysis fails', async () => {
    sim.faults.fail({ status: 403, endpoint: 'subscription', count: 1 });
    const before = await host.services.prisma.analysisRun.count();
    const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_B });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: false,
      analysisRunId: 0,
      subscriptionName: 'Unknown',
      subscriptionId: SUB_B,
    });
    expect(res.body.message).toMatch(/^Error: .*403/);
    expect(res.body.errorDetails).not.toMatch(/\n/);
    expect(await host.services.prisma.analysisRun.count()).toBe(before);
    const job = await host.services.prisma.analysisJob.findUniqueOrThrow({ where: { id: res.body.jobId } });
    expect(job).toMatchObject({ status: 'failed', success: false });
  });

  it('writes a run all or nothing: a failure while saving leaves no run and no rows', async () => {
    const prisma = host.services.prisma;
    const counts = async () => [await prisma.analysisRun.count(), await prisma.resourceAnalysis.count()];
    const before = await counts();
    const now = new Date();
    const resources = (function* () {
      for (let i = 0; i < 3; i++) {
        yield {
          resourceId: `r${i}`,
          resourceType: 't',
          resourceName: `n${i}`,
          resourceGroup: 'G',
          location: '',
          propertiesJson: null,
          tagsJson: null,
          metricsJson: null,
          flags: '',
          flagDetails: null,
          monthToDateCost: 1,
          recordedAt: now,
        };
      }
      throw new Error('disk full');
    })();
    await expect(
      persistRun(prisma, {
        run: {
          subscriptionId: SUB_A,
          subscriptionName: 'x',
          runDate: now,
          totalMonthlyCost: 1,
          totalResourcesAnalyzed: 3,
          periodFrom: now,
          periodTo: now,
        },
        resources,
        costDetails: [],
        historicalCosts: [],
        recommendations: [],
      }),
    ).rejects.toThrow('disk full');
    expect(await counts()).toEqual(before);
  });

  it('keeps older runs until an administrator asks for cleanup', async () => {
    const again = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(again.body.success).toBe(true);
    const prisma = host.services.prisma;
    expect(await prisma.analysisRun.count({ where: { subscriptionId: SUB_A } })).toBe(2);

    expect((await api.post('/finops/api/Analysis/cleanup', { token: USER })).status).toBe(403);
    const res = await api.post('/finops/api/Analysis/cleanup', { token: ADMIN });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, analysisRunsDeleted: 1, analysisRunsKept: 2 });
    expect(res.body.deletedRuns[0]).toMatch(
      new RegExp(
        `^Run #\\d+ - Subscription: .+ \\(${SUB_A}\\) - Date: \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$`,
      ),
    );
    const left = await prisma.analysisRun.findMany({ where: { subscriptionId: SUB_A } });
    expect(left.map((r) => r.id)).toEqual([again.body.analysisRunId]);
    const orphans = await prisma.historicalCost.count({
      where: { analysisRunId: { notIn: (await prisma.analysisRun.findMany()).map((r) => r.id) } },
    });
    expect(orphans).toBe(0);

    const none = await api.post('/finops/api/Analysis/cleanup', { token: ADMIN });
    expect(none.body).toMatchObject({ success: true, analysisRunsDeleted: 0, deletedRuns: [] });
  });
});
