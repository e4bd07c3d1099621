// The analysis stages its daily history page by page (no page is held after it is staged) and the
// run's write sums it into HistoricalCosts: these tests read the rows a run ends up with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../shared/db/client.js';
import type { DailyCost } from '../../shared/finops/azure/index.js';
import { openRunWriter, type RunToPersist } from '../../shared/finops/engine/persist.js';
import { openMigratedDatabase, TEST_DATABASES } from '../support/databases.js';

const SUB = '3c0f0000-0000-4000-8000-00000000b001';
const RECORDED = new Date('2026-04-01T08:00:00.000Z');

const cost = (date: string, resourceGroup: string, serviceName: string, c: number): DailyCost => ({
  date,
  resourceGroup,
  serviceName,
  cost: c,
  currency: 'EUR',
});

function run(extra: Partial<RunToPersist> = {}): RunToPersist {
  return {
    run: {
      subscriptionId: SUB,
      subscriptionName: 'staged',
      runDate: RECORDED,
      totalMonthlyCost: 1,
      totalResourcesAnalyzed: 0,
      periodFrom: RECORDED,
      periodTo: RECORDED,
    },
    resources: [],
    costDetails: [],
    historicalCosts: { staged: { subscriptionId: SUB, currency: 'EUR', recordedAt: RECORDED } },
    recommendations: [],
    ...extra,
  };
}

describe.each(TEST_DATABASES)('staged analysis history on %s', (_name, kind) => {
  let prisma: PrismaClient;
  let url: string | undefined;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ prisma, url, close } = await openMigratedDatabase(kind));
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  const stagingTables = async () =>
    Number(
      (
        await prisma.$queryRawUnsafe<Array<{ n: bigint }>>(
          `SELECT count(*) AS n FROM pg_class WHERE relname LIKE 'finwatch_history_%'`,
        )
      )[0]!.n,
    );

  it('writes a Total per day, a row per day and group, and per day, group and service, from pages', async () => {
    const writer = await openRunWriter(prisma, { postgresUrl: url });
    let runId: number;
    let rows: number;
    try {
      // Pages 1 and 2 name one group in three cases and repeat a cell; a row without a date is left out.
      await writer.stageHistory([
        cost('2026-03-02', 'rg-Web', 'Storage', 1.5),
        cost('2026-03-01', 'rg-web', 'Storage', 2),
        cost('2026-03-01', 'rg-data', 'SQL Database', 1),
        cost('', 'rg-data', 'SQL Database', 100),
      ]);
      await writer.stageHistory([
        cost('2026-03-01', 'RG-WEB', 'Storage', 0.25),
        cost('2026-03-03', 'rg-data', 'SQL Database', 0.12345),
        cost('2026-03-04', 'rg-net', 'Bandwidth', -0.00005),
      ]);
      expect(writer.stagedRows).toBe(6);
      ({ runId, rows } = await writer.persist(run()));
    } finally {
      await writer.close();
    }
    const history = await prisma.historicalCost.findMany({
      where: { analysisRunId: runId },
      orderBy: { id: 'asc' },
    });
    expect(rows).toBe(1 + history.length);
    expect(
      history.map((h) => [
        h.costDate.toISOString().slice(0, 10),
        h.costType,
        h.resourceGroup,
        h.name,
        h.cost.toFixed(4),
        h.currency,
        h.subscriptionId,
        h.recordedAt.toISOString(),
      ]),
    ).toEqual(
      [
        // Costs are rounded half up to 4 decimals: 0.12345 → 0.1235, -0.00005 → 0.
        ['2026-03-01', 'Total', null, null, '3.2500'],
        ['2026-03-02', 'Total', null, null, '1.5000'],
        ['2026-03-03', 'Total', null, null, '0.1235'],
        ['2026-03-04', 'Total', null, null, '0.0000'],
        ['2026-03-01', 'ResourceGroup', 'RG-DATA', null, '1.0000'],
        ['2026-03-01', 'ResourceGroup', 'RG-WEB', null, '2.2500'],
        ['2026-03-02', 'ResourceGroup', 'RG-WEB', null, '1.5000'],
        ['2026-03-03', 'ResourceGroup', 'RG-DATA', null, '0.1235'],
        ['2026-03-04', 'ResourceGroup', 'RG-NET', null, '0.0000'],
        ['2026-03-01', 'Service', 'RG-DATA', 'SQL Database', '1.0000'],
        ['2026-03-01', 'Service', 'RG-WEB', 'Storage', '2.2500'],
        ['2026-03-02', 'Service', 'RG-WEB', 'Storage', '1.5000'],
        ['2026-03-03', 'Service', 'RG-DATA', 'SQL Database', '0.1235'],
        ['2026-03-04', 'Service', 'RG-NET', 'Bandwidth', '0.0000'],
      ].map((r) => [...r, 'EUR', SUB, RECORDED.toISOString()]),
    );
    const stored = await prisma.analysisRun.findUniqueOrThrow({ where: { id: runId } });
    expect(stored.historicalCostCount).toBe(14);
    expect(stored.historyFrom?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(stored.historyTo?.toISOString()).toBe('2026-03-04T00:00:00.000Z');
    expect(await stagingTables()).toBe(0);
  });

  it('writes nothing of a run whose write fails, staged history included, and leaves no staging table', async () => {
    const before = await prisma.historicalCost.count();
    const runsBefore = await prisma.analysisRun.count();
    const writer = await openRunWriter(prisma, { postgresUrl: url });
    try {
      await writer.stageHistory([cost('2026-03-01', 'rg-a', 'Storage', 3)]);
      // A recommendation without text breaks the transaction after the history is written in it.
      const broken = run({
        recommendations: [
          {
            recommendationText: null as unknown as string,
            summary: null,
            messageId: '',
            conversationId: '',
            model: 'rules',
            timestamp: 0,
            source: 'rules',
            recordedAt: RECORDED,
          },
        ],
      });
      await expect(writer.persist(broken)).rejects.toThrow();
    } finally {
      await writer.close();
    }
    expect(await prisma.historicalCost.count()).toBe(before);
    expect(await prisma.analysisRun.count()).toBe(runsBefore);
    expect(await stagingTables()).toBe(0);
  });

  it('keeps group and service names with tabs, newlines, backslashes and unicode as they came', async () => {
    // The characters COPY's text format reads specially, COPY's end marker, and text beyond ASCII.
    const hostile = [
      ['rg\ttab', 'svc\twith\ttabs'],
      ['rg\nline', 'svc\r\nwindows'],
      ['rg\\back', '\\.'],
      ['rg\\N', '\\N'],
      ['rg-ünï', 'Servicé 日本 🚀'],
      ['', ''],
    ] as const;
    const writer = await openRunWriter(prisma, { postgresUrl: url });
    let runId: number;
    try {
      await writer.stageHistory(hostile.map(([g, s], i) => cost('2026-03-01', g, s, i + 1)));
      ({ runId } = await writer.persist(run()));
    } finally {
      await writer.close();
    }
    const services = await prisma.historicalCost.findMany({
      where: { analysisRunId: runId, costType: 'Service' },
      select: { resourceGroup: true, name: true, cost: true },
    });
    expect(
      services
        .map((h) => [h.resourceGroup, h.name, h.cost.toFixed(4)])
        .sort((a, b) => Number(a[2]) - Number(b[2])),
    ).toEqual(hostile.map(([g, s], i) => [g.toUpperCase(), s, `${i + 1}.0000`]));
  });

  it('sums a cell, a group and a day in the order their rows came', async () => {
    // Added as they come these three round (half up, 4 decimals) to 0.5755; added reversed or
    // sorted either way, to 0.5756: a sum in any other order than arrival changes the written cost.
    const [x, y, z] = [0.45808, 0.05462, 0.06285];
    const writer = await openRunWriter(prisma, { postgresUrl: url });
    let runId: number;
    try {
      await writer.stageHistory([cost('2026-03-01', 'rg-a', 'svc', x), cost('2026-03-02', 'rg-a', 'svc', x)]);
      await writer.stageHistory([cost('2026-03-01', 'rg-a', 'svc', y), cost('2026-03-02', 'rg-b', 'svc', y)]);
      await writer.stageHistory([
        cost('2026-03-01', 'rg-a', 'svc', z),
        cost('2026-03-02', 'rg-b', 'other', z),
      ]);
      ({ runId } = await writer.persist(run()));
    } finally {
      await writer.close();
    }
    const rows = await prisma.historicalCost.findMany({
      where: { analysisRunId: runId },
      orderBy: { id: 'asc' },
    });
    expect(
      rows.map((r) => [
        r.costDate.toISOString().slice(0, 10),
        r.costType,
        r.resourceGroup,
        r.name,
        r.cost.toFixed(4),
      ]),
    ).toEqual([
      // 03-01: one cell of three rows; 03-02: three cells, two groups, summed by their first rows.
      ['2026-03-01', 'Total', null, null, '0.5755'],
      ['2026-03-02', 'Total', null, null, '0.5755'],
      ['2026-03-01', 'ResourceGroup', 'RG-A', null, '0.5755'],
      ['2026-03-02', 'ResourceGroup', 'RG-A', null, '0.4581'],
      ['2026-03-02', 'ResourceGroup', 'RG-B', null, '0.1175'],
      ['2026-03-01', 'Service', 'RG-A', 'svc', '0.5755'],
      ['2026-03-02', 'Service', 'RG-A', 'svc', '0.4581'],
      ['2026-03-02', 'Service', 'RG-B', 'other', '0.0629'],
      ['2026-03-02', 'Service', 'RG-B', 'svc', '0.0546'],
    ]);
  });

  it('refuses a page with a cost that is not a number and leaves no staging table', async () => {
    const writer = await openRunWriter(prisma, { postgresUrl: url });
    try {
      await writer.stageHistory([cost('2026-03-01', 'rg-a', 'Storage', 1)]);
      await expect(
        writer.stageHistory([
          cost('2026-03-02', 'rg-a', 'Storage', 2),
          cost('2026-03-02', 'rg-b', 'Storage', Number.NaN),
        ]),
      ).rejects.toThrow();
    } finally {
      await writer.close();
    }
    expect(await stagingTables()).toBe(0);
  });

  it('writes a run without history when no page came', async () => {
    const writer = await openRunWriter(prisma, { postgresUrl: url });
    try {
      const { runId } = await writer.persist(run());
      expect(await prisma.historicalCost.count({ where: { analysisRunId: runId } })).toBe(0);
    } finally {
      await writer.close();
    }
  });
});
