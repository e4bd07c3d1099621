// The history totals a run keeps (written once with the run) answer X-Total-Count without
// counting the rows; these tests compare them with plain counts of the rows themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../shared/db/client.js';
import { type HistoricalCostRow, persistRun, type ResourceRow } from '../../shared/finops/engine/persist.js';
import {
  dashboardSummary,
  optimizationOpportunities,
  resourceDistribution,
} from '../../shared/finops/queries/dashboard.js';
import {
  countHistoricalByRun,
  countHistoricalBySubscription,
  historicalByService,
} from '../../shared/finops/queries/historical.js';
import {
  findResources,
  resourceGroupSummary,
  resourceTypeSummary,
} from '../../shared/finops/queries/resources.js';
import { openMigratedDatabase, TEST_DATABASES } from '../support/databases.js';

const SUB = '3c0f0000-0000-4000-8000-00000000a001';
const OTHER = '3c0f0000-0000-4000-8000-00000000a002';
const SERVICES = '3c0f0000-0000-4000-8000-00000000a003';
const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

/** `days` days of history ending on `last`, `perDay` Service rows a day. */
function history(subscriptionId: string, last: string, days: number, perDay: number): HistoricalCostRow[] {
  const rows: HistoricalCostRow[] = [];
  for (let d = days - 1; d >= 0; d--) {
    const costDate = new Date(day(last).getTime() - d * 86_400_000);
    for (let s = 0; s < perDay; s++) {
      rows.push({
        subscriptionId,
        costDate,
        costType: 'Service',
        resourceGroup: 'rg-a',
        name: `svc-${s}`,
        cost: 1.5,
        currency: 'USD',
        recordedAt: day(last),
      });
    }
  }
  return rows;
}

const TYPES = ['Microsoft.Compute/disks', 'microsoft.compute/disks', 'microsoft.web/sites'];
const GROUPS = ['rg-Web', 'RG-WEB', 'rg-data'];

/** 60 resources over mixed-case groups and types; flags NULL, empty or set. */
function resources(): ResourceRow[] {
  return Array.from({ length: 60 }, (_, i) => ({
    resourceId: `/r/${i}`,
    resourceType: TYPES[i % 3]!,
    resourceName: `res-${i}`,
    resourceGroup: GROUPS[(i >> 1) % 3]!,
    location: 'westeurope',
    propertiesJson: null,
    tagsJson: null,
    metricsJson: null,
    flags: i % 4 === 0 ? 'Unattached disk' : i % 4 === 1 ? '' : i % 5 === 0 ? 'Old snapshot' : null,
    flagDetails: null,
    monthToDateCost: null,
    recordedAt: new Date(),
  }));
}

function persist(
  prisma: PrismaClient,
  subscriptionId: string,
  rows: HistoricalCostRow[],
  postgresUrl?: string,
  withResources: ResourceRow[] = [],
) {
  const now = new Date();
  return persistRun(
    prisma,
    {
      run: {
        subscriptionId,
        subscriptionName: 'totals',
        runDate: now,
        totalMonthlyCost: 1,
        totalResourcesAnalyzed: 0,
        periodFrom: now,
        periodTo: now,
      },
      resources: withResources,
      costDetails: [],
      historicalCosts: rows,
      recommendations: [],
    },
    { postgresUrl },
  );
}

describe.each(TEST_DATABASES)('run history totals on %s', (_name, kind) => {
  let prisma: PrismaClient;
  let close: () => Promise<void>;
  let url: string | undefined;
  const plain = (where: Parameters<PrismaClient['historicalCost']['count']>[0]) =>
    prisma.historicalCost.count(where);

  beforeAll(async () => {
    ({ prisma, url, close } = await openMigratedDatabase(kind));
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  it('stores the row count and the first and last costDate with the run', async () => {
    const { runId } = await persist(prisma, SUB, history(SUB, '2026-03-31', 31, 7), url);
    const run = await prisma.analysisRun.findUniqueOrThrow({ where: { id: runId } });
    expect(run.historicalCostCount).toBe(217);
    expect(run.historyFrom).toEqual(day('2026-03-01'));
    expect(run.historyTo).toEqual(day('2026-03-31'));
    expect(await countHistoricalByRun(prisma, runId)).toBe(217);
  });

  it('stores 0 for a run without history, and the count of a missing run is 0', async () => {
    const { runId } = await persist(prisma, SUB, [], url);
    const run = await prisma.analysisRun.findUniqueOrThrow({ where: { id: runId } });
    expect(run.historicalCostCount).toBe(0);
    expect(await countHistoricalByRun(prisma, 2_000_000_000)).toBe(0);
  });

  it('counts a subscription inside, outside and across run boundaries as the rows do', async () => {
    await persist(prisma, SUB, history(SUB, '2026-04-30', 60, 5), url);
    await persist(prisma, OTHER, history(OTHER, '2026-04-30', 10, 3), url);
    const windows: Array<[Date | undefined, Date | undefined]> = [
      [undefined, undefined],
      [day('2026-03-01'), day('2026-03-31')], // the first run whole, the second cut
      [day('2026-03-15'), undefined],
      [undefined, day('2026-03-10')],
      [day('2027-01-01'), undefined], // past every run
      [day('2026-04-30'), day('2026-04-30')],
    ];
    for (const [start, end] of windows) {
      const expected = await plain({
        where: {
          subscriptionId: SUB,
          ...(start || end
            ? { costDate: { ...(start ? { gte: start } : {}), ...(end ? { lte: end } : {}) } }
            : {}),
        },
      });
      expect(await countHistoricalBySubscription(prisma, SUB, start, end)).toBe(expected);
    }
    expect(await countHistoricalBySubscription(prisma, SUB, undefined, undefined)).toBe(217 + 300);
    expect(await countHistoricalBySubscription(prisma, SUB, day('2026-04-30'), day('2026-04-30'))).toBe(5);
  });

  it('stores the Service rows per name with the run, and pages by service from them as from the rows', async () => {
    const unnamed: HistoricalCostRow = { ...history(SERVICES, '2026-06-30', 1, 1)[0]!, name: null };
    const rows = [...history(SERVICES, '2026-06-30', 12, 4), unnamed];
    rows.push({ ...rows[0]!, costType: 'Total', name: null });
    const { runId } = await persist(prisma, SERVICES, rows, url);
    const run = await prisma.analysisRun.findUniqueOrThrow({ where: { id: runId } });
    expect(run.historyServiceCount).toBe(49);
    const kept = await prisma.runServiceTotal.findMany({
      where: { analysisRunId: runId },
      orderBy: { name: 'asc' },
    });
    expect(kept.map((k) => [k.name, k.rows])).toEqual([
      ['svc-0', 12],
      ['svc-1', 12],
      ['svc-2', 12],
      ['svc-3', 12],
    ]);
    const asks: Array<[string | undefined, number, number]> = [
      [undefined, 0, 10],
      [undefined, 45, 10],
      ['svc-1', 0, 5],
      ['svc-1', 10, 5],
      ['SVC-2', 5, 5], // no exact match: case-insensitive
      ['svc-9', 0, 5],
      ['svc-3', 40, 5], // past the end
    ];
    const answers = () =>
      Promise.all(asks.map(([s, skip, take]) => historicalByService(prisma, runId, s, skip, take)));
    const fromTotals = await answers();
    await prisma.analysisRun.update({ where: { id: runId }, data: { historyServiceCount: null } });
    expect(await answers()).toEqual(fromTotals);
    expect(fromTotals.map((a) => a.total)).toEqual([49, 49, 12, 12, 12, 0, 12]);
    expect(JSON.parse(fromTotals[4]!.json).map((r: { service: string }) => r.service)).toEqual(
      Array(5).fill('svc-2'),
    );
  });

  it('leaves the count unset for a run whose rows name another subscription, and counts rows then', async () => {
    const mixed = [...history(SUB, '2026-05-31', 2, 2), ...history(OTHER, '2026-05-31', 1, 4)];
    const { runId } = await persist(prisma, SUB, mixed, url);
    const run = await prisma.analysisRun.findUniqueOrThrow({ where: { id: runId } });
    expect(run.historicalCostCount).toBeNull();
    expect(await countHistoricalByRun(prisma, runId)).toBe(8);
    expect(await countHistoricalBySubscription(prisma, OTHER, undefined, undefined)).toBe(30 + 4);
    expect(await countHistoricalBySubscription(prisma, SUB, day('2026-05-30'), undefined)).toBe(4);
  });

  it('answers summaries, the dashboard and the opportunities from the totals exactly as from the resources', async () => {
    const { runId } = await persist(prisma, SUB, [], url, resources());
    const answers = () =>
      Promise.all([
        resourceTypeSummary(prisma, runId),
        resourceGroupSummary(prisma, runId),
        dashboardSummary(prisma, SUB),
        resourceDistribution(prisma, SUB),
        optimizationOpportunities(prisma, 1000, SUB),
        findResources(prisma, runId, { kind: 'all' }, 10, 7),
        findResources(prisma, runId, { kind: 'flags' }, 0, 5),
        findResources(prisma, runId, { kind: 'flags' }, 20, 5),
      ]);
    const fromTotals = await answers();
    expect(await prisma.runResourceTotal.count({ where: { analysisRunId: runId } })).toBeGreaterThan(0);
    await prisma.analysisRun.update({ where: { id: runId }, data: { totalsWrittenAt: null } });
    const fromRows = await answers();
    expect(fromTotals).toEqual(fromRows);
    // Literal figures: 15 flagged 'Unattached disk' (i % 4 = 0), 6 'Old snapshot' (i = 10, 15, 30, 35, 50, 55).
    expect(fromTotals[2]).toMatchObject({ resourcesAnalyzed: 60, resourcesWithIssues: 21 });
    expect(fromTotals[1].map((g) => g.resourceGroup)).toEqual(['RG-WEB', 'RG-DATA']);
    expect(fromTotals[1][0]).toMatchObject({ count: 40, types: 3 });
    expect([fromTotals[5].total, fromTotals[6].total, fromTotals[7].rows.length]).toEqual([60, 21, 1]);
  });
});
