import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../finops-api/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { exportLines, focusCsv, type SeriesSpec } from './export-fixture.js';

const SUB = '5e1eb5b0-1313-4a13-9d13-0000000000ca';
const specs = (level: number): SeriesSpec[] => [
  { resourceGroup: 'rg-web', service: 'Virtual Machines', resource: 'vm-1', level },
  { resourceGroup: 'rg-data', service: 'SQL Database', resource: 'sql-1', level: level / 2 },
];

describe('an import keeps the history it does not cover from the subscription latest run', () => {
  let host: TestHost;
  let user: TestUser;
  const post = async (csv: string) => {
    const res = await fetch(`${host.url}/finops/api/CostImports?subscriptionId=${SUB}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'text/csv' },
      body: csv,
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { analysisRunId: number };
  };
  /** The run's Total history, day → cost, and its stored history count as the API reports it. */
  const history = async (runId: number) => {
    const rows = await host.services.prisma.historicalCost.findMany({
      where: { analysisRunId: runId, costType: 'Total' },
      orderBy: { costDate: 'asc' },
    });
    const res = await fetch(`${host.url}/finops/api/HistoricalCosts/analysis/${runId}?page=1&pageSize=1`, {
      headers: { authorization: `Bearer ${user.token}` },
    });
    return {
      days: new Map(rows.map((r) => [r.costDate.toISOString().slice(0, 10), Number(r.cost)])),
      total: Number(res.headers.get('x-total-count')),
      all: await host.services.prisma.historicalCost.count({ where: { analysisRunId: runId } }),
    };
  };

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    user = await createUser(host.services.prisma, true);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  it('a month-to-date export after a four-month one leaves all five months in the latest run', async () => {
    const summer = await post(focusCsv(exportLines(SUB, '2026-06-01', 120, specs(100))));
    const june = (await history(summer.analysisRunId)).days;
    expect(june.size).toBe(120);

    const october = await post(focusCsv(exportLines(SUB, '2026-10-01', 20, specs(100), 9)));
    const h = await history(october.analysisRunId);
    expect(h.days.size).toBe(140);
    expect([...h.days.keys()][0]).toBe('2026-06-01');
    expect([...h.days.keys()].at(-1)).toBe('2026-10-20');
    // Carried days are the earlier run's figures, unchanged.
    expect(h.days.get('2026-07-15')).toBe(june.get('2026-07-15'));
    // The stored count (X-Total-Count) includes the carried rows: every type, 140 days.
    expect(h.total).toBe(h.all);
    expect(h.all).toBe(140 * (1 + 2 + 2));
  });

  it('takes overlapping days from the new export, once each', async () => {
    // 2026-09-15 .. 2026-10-20 again, at twice the level.
    const again = await post(focusCsv(exportLines(SUB, '2026-09-15', 36, specs(200), 5)));
    const h = await history(again.analysisRunId);
    // 106 carried days (June 1 to September 14) and the export's 36, which also fill the two
    // days (September 29 and 30) neither earlier export had.
    expect(h.days.size).toBe(142);
    expect(h.all).toBe(142 * 5);
    expect(h.days.get('2026-09-16')).toBeGreaterThan(200);
    expect(h.days.get('2026-09-14')).toBeLessThan(200);
  });

  it('carries nothing across a change of currency', async () => {
    const usd = await post(
      focusCsv(exportLines(SUB, '2026-10-01', 20, specs(100))).replaceAll(',EUR,', ',USD,'),
    );
    const h = await history(usd.analysisRunId);
    expect(h.days.size).toBe(20);
  });
});
