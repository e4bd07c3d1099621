import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepNewestRuns } from '../../dev/run-retention.js';
import { loadConfig } from '../../shared/config/index.js';
import { startTestHost, type TestHost } from '../support/host.js';

const SUBS = ['7a1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e01', '7a1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e02'];

describe('the local host keeps the newest runs of each subscription (LocalHost__KeepRunsPerSubscription)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('defaults to five, and 0 keeps every run', () => {
    expect(
      loadConfig({ WEBAPP_ENVIRONMENT: 'Development' }).platform.LocalHost__KeepRunsPerSubscription,
    ).toBe(5);
    expect(
      loadConfig({ WEBAPP_ENVIRONMENT: 'Development', LocalHost__KeepRunsPerSubscription: '0' }).platform
        .LocalHost__KeepRunsPerSubscription,
    ).toBe(0);
  });

  it('deletes the older runs with their history, per subscription, and audits it', async () => {
    const prisma = host.services.prisma;
    for (const [i, sub] of SUBS.entries()) {
      for (let day = 1; day <= 7 - i * 4; day++) {
        const run = await prisma.analysisRun.create({
          data: {
            // The second subscription's rows are spelled in upper case: the same subscription.
            subscriptionId: day % 2 ? sub : sub.toUpperCase(),
            subscriptionName: `sub ${i}`,
            runDate: new Date(Date.UTC(2026, 0, day)),
            totalMonthlyCost: 1,
            totalResourcesAnalyzed: 1,
            periodFrom: new Date(Date.UTC(2026, 0, 1)),
            periodTo: new Date(Date.UTC(2026, 0, 31)),
          },
        });
        await prisma.historicalCost.create({
          data: {
            analysisRunId: run.id,
            subscriptionId: sub,
            costDate: run.runDate,
            costType: 'Total',
            cost: 1,
            recordedAt: run.runDate,
          },
        });
      }
    }
    expect(await keepNewestRuns(prisma, 0)).toBe(0);
    expect(await prisma.analysisRun.count()).toBe(10);

    expect(await keepNewestRuns(prisma, 5)).toBe(2);
    const left = await prisma.analysisRun.findMany({
      orderBy: { runDate: 'asc' },
      select: { subscriptionName: true, runDate: true },
    });
    expect(left.filter((r) => r.subscriptionName === 'sub 0').map((r) => r.runDate.getUTCDate())).toEqual([
      3, 4, 5, 6, 7,
    ]);
    expect(left.filter((r) => r.subscriptionName === 'sub 1')).toHaveLength(3);
    expect(await prisma.historicalCost.count()).toBe(8);
    const [record] = await prisma.auditRecord.findMany({ where: { action: 'analysis.cleanup' } });
    expect(record?.details).toEqual({
      via: 'local host run retention',
      keepPerSubscription: 5,
      analysisRunsDeleted: 2,
    });
    expect(await keepNewestRuns(prisma, 5)).toBe(0);
  });
});
