import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Anomaly, Forecast } from '../../shared/finops/intel/contract.js';
import { createUser, type TestUser } from '../finops-api/support.js';
import { auditRecordsOf } from '../support/audit.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { costDetailsCsv, dayAfter, exportLines, focusCsv, type SeriesSpec } from './export-fixture.js';

const SUB = '5e1eb5b0-1313-4a13-9d13-000000000013';
const CONTROL = '5e1eb5b0-1313-4a13-9d13-000000000014';
const OTHER = '5e1eb5b0-1313-4a13-9d13-000000000015';
const FIRST = '2026-06-01';
const DAYS = 142; // through 2026-10-20
const SPIKE_DAY = '2026-10-14';
const NEW_DAY = '2026-10-05';

const specs = (withEvents: boolean): SeriesSpec[] => [
  {
    resourceGroup: 'rg-web',
    service: 'Virtual Machines',
    resource: 'vm-1',
    level: 300,
    ...(withEvents ? { factors: { [SPIKE_DAY]: 4 } } : {}),
  },
  { resourceGroup: 'rg-web', service: 'Storage', resource: 'st-1', level: 40 },
  { resourceGroup: 'rg-data', service: 'SQL Database', resource: 'sql-1', level: 120 },
  ...(withEvents
    ? [
        {
          resourceGroup: 'rg-new',
          service: 'Azure Cosmos DB',
          resource: 'cosmos-1',
          level: 80,
          from: NEW_DAY,
        },
      ]
    : []),
];

describe('cost imports through HTTP, with anomalies and the forecast on them', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  let outsider: TestUser;
  const postCsv = (sub: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${host.url}/finops/api/CostImports?subscriptionId=${sub}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'text/csv', ...headers },
      body,
    }).then(async (r) => ({
      status: r.status,
      headers: r.headers, // biome-ignore lint/suspicious/noExplicitAny: problem and summary bodies are read field by field
      body: (await r.json()) as any,
    }));
  const anomalies = async (query: string) => {
    const res = await api.get(`/finops/api/Anomalies?${query}`, { token: user.token });
    expect(res.status).toBe(200);
    return z.array(Anomaly).parse(res.body);
  };

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    // Imports and acknowledgements are for the subscription's users (UserSubscriptions) and admins.
    user = await createUser(host.services.prisma, false, { subscriptions: [SUB, CONTROL, OTHER] });
    outsider = await createUser(host.services.prisma, false);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  it('imports a FOCUS export and finds its spike and its new cost once, with scope and date', async () => {
    const csv = focusCsv(exportLines(SUB, FIRST, DAYS, specs(true)));
    const res = await postCsv(SUB, csv);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscriptionId: SUB,
      format: 'focus',
      currency: 'EUR',
      from: FIRST,
      to: '2026-10-20',
      skippedRows: 0,
    });
    const list = await anomalies(`subscriptionId=${SUB}`);
    // Newest first; the order within a day is not part of the contract, so compare sorted.
    expect(list.map((a) => a.date)).toEqual([SPIKE_DAY, SPIKE_DAY, SPIKE_DAY, NEW_DAY, NEW_DAY]);
    const found = list.map((a) => `${a.kind} ${a.scope.kind} ${a.scope.name} ${a.date}`).sort();
    expect(found).toEqual([
      `newCost resourceGroup RG-NEW ${NEW_DAY}`,
      `newCost service Azure Cosmos DB ${NEW_DAY}`,
      `spike resourceGroup RG-WEB ${SPIKE_DAY}`,
      `spike service Virtual Machines ${SPIKE_DAY}`,
      `spike subscription ${SUB} ${SPIKE_DAY}`,
    ]);
    const spike = list.find((a) => a.scope.kind === 'service' && a.kind === 'spike')!;
    // Weekday (a Wednesday) cost of 300 ± 4 %, four times that on the day.
    expect(spike.expectedCost).toBeGreaterThan(285);
    expect(spike.expectedCost).toBeLessThan(315);
    expect(spike.actualCost).toBeGreaterThan(1140);
    expect(spike.severity).toBe('high');
    expect(spike.currency).toBe('EUR');
  });

  it('keeps one row per anomaly when the same export is imported again', async () => {
    const before = await anomalies(`subscriptionId=${SUB}`);
    const res = await postCsv(SUB, focusCsv(exportLines(SUB, FIRST, DAYS, specs(true))));
    expect(res.status).toBe(200);
    expect(res.body.newAnomalies).toBe(0);
    const after = await anomalies(`subscriptionId=${SUB}`);
    expect(after.map((a) => a.id)).toEqual(before.map((a) => a.id));
  });

  it('answers [] for a clean control import, sent gzip-compressed and larger than 1 MiB', async () => {
    // 30 resources a day: several MB of CSV, over the 1 MiB limit of the JSON routes.
    const many: SeriesSpec[] = Array.from({ length: 30 }, (_, i) => ({
      resourceGroup: `rg-${i % 5}`,
      service: ['Storage', 'Virtual Machines', 'Bandwidth'][i % 3]!,
      resource: `res-${i}`,
      level: 20 + i,
    }));
    const csv = focusCsv(exportLines(CONTROL, FIRST, DAYS, many, 9));
    expect(Buffer.byteLength(csv)).toBeGreaterThan(2 * 1024 * 1024);
    const res = await postCsv(CONTROL, gzipSync(csv), { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.body.rows).toBe(30 * DAYS);
    const list = await api.get(`/finops/api/Anomalies?subscriptionId=${CONTROL}`, { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect(list.headers.get('x-total-count')).toBe('0');
  });

  it('answers 503 for a body over the synchronous 1 MiB when the app storage has no blob service', async () => {
    // This host's AzureWebJobsStorage is a queue-only emulator: a large import has nowhere to wait.
    const csv = focusCsv(exportLines(OTHER, FIRST, DAYS, specs(true)));
    const res = await postCsv(OTHER, csv.repeat(Math.ceil((1024 * 1024) / csv.length) + 1));
    expect(res.status).toBe(503);
    expect(res.body.detail).toContain('AzureWebJobsStorage has no blob service');
    expect(await host.services.prisma.analysisJob.count({ where: { subscriptionId: OTHER } })).toBe(0);
  });

  it('imports the cost details CSV (MM/dd/yyyy dates, MCA column names) and skips other subscriptions', async () => {
    const lines = [
      ...exportLines(OTHER, FIRST, 30, specs(false)),
      ...exportLines(CONTROL, FIRST, 30, specs(false)),
    ];
    const res = await postCsv(OTHER, costDetailsCsv(lines));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      format: 'costDetails',
      rows: 90,
      skippedRows: 90,
      from: FIRST,
      to: dayAfter(FIRST, 29),
    });
    const groups = await api.get(
      `/finops/api/HistoricalCosts/analysis/${res.body.analysisRunId}/by-resourcegroup`,
      {
        token: user.token,
      },
    );
    expect(new Set(groups.body.map((g: { resourceGroup: string }) => g.resourceGroup))).toEqual(
      new Set(['RG-WEB', 'RG-DATA']),
    );
  });

  it('answers 422 with the line number for a bad row, and stores nothing of that import', async () => {
    const runsBefore = await host.services.prisma.analysisRun.count();
    const csv = focusCsv(exportLines(SUB, FIRST, 10, specs(false))).split('\n');
    csv[17] = csv[17]!.replace('2026-06-06T00:00:00Z', 'not-a-date');
    const res = await postCsv(SUB, csv.join('\n'));
    expect(isProblem({ ...res, text: '' }, 422)).toBe(true);
    expect(res.body.line).toBe(18);
    expect(res.body.detail).toMatch(/Line 18/);
    expect(await host.services.prisma.analysisRun.count()).toBe(runsBefore);
  });

  it('answers 400 with the line number for malformed CSV', async () => {
    const csv = focusCsv(exportLines(SUB, FIRST, 3, specs(false))).split('\n');
    csv[4] = `${csv[4]},"unterminated`;
    const res = await postCsv(SUB, csv.join('\n'));
    expect(res.status).toBe(400);
    expect(res.body.line).toBeGreaterThanOrEqual(5);
  });

  it('refuses a body that is not CSV (415), an unknown header (422) and a missing subscription (400)', async () => {
    expect((await postCsv(SUB, '{}', { 'content-type': 'application/json' })).status).toBe(415);
    const unknown = await postCsv(SUB, 'a,b,c\n1,2,3\n');
    expect(unknown.status).toBe(422);
    expect(unknown.body.line).toBe(1);
    expect((await postCsv('not-a-guid', 'a\n')).status).toBe(400);
  });

  it('forecasts the month in progress from the import, weekday-aware, with the budget status', async () => {
    await api.post('/finops/api/Subscriptions', {
      token: user.token,
      json: { subscriptionId: SUB, description: 'imported', budget: 10000, infraSupportCost: 0 },
    });
    const res = await api.get(`/finops/api/Forecast/${SUB}`, { token: user.token });
    expect(res.status).toBe(200);
    const f = Forecast.parse(res.body);
    // The truth: the same generator through the end of October.
    const month = exportLines(SUB, FIRST, DAYS + 11, specs(true)).filter((l) => l.day >= '2026-10-01');
    const actualMonth = month.reduce((s, l) => s + l.cost, 0);
    const toDate = month.filter((l) => l.day <= '2026-10-20').reduce((s, l) => s + l.cost, 0);
    expect(f).toMatchObject({
      subscriptionId: SUB,
      currency: 'EUR',
      monthStart: '2026-10-01',
      monthEnd: '2026-10-31',
      asOf: '2026-10-20',
      budget: 10000,
    });
    expect(f.actualToDate).toBeCloseTo(toDate, 1);
    expect(Math.abs(f.forecastMonthEnd - actualMonth) / actualMonth).toBeLessThan(0.03);
    expect(f.low).toBeLessThanOrEqual(actualMonth);
    expect(f.high).toBeGreaterThanOrEqual(actualMonth);
    // About 15,000 EUR against a 10,000 budget, already over it to date.
    expect(f.budgetStatus).toBe('overBudget');
    expect(
      (await api.get('/finops/api/Forecast/5e1eb5b0-1313-4a13-9d13-0000000000ff', { token: user.token }))
        .status,
    ).toBe(404);
  });

  it('acknowledges an anomaly with a note; the status filter and a re-import keep it', async () => {
    const [first] = await anomalies(`subscriptionId=${SUB}&status=open`);
    const ack = await api.post(`/finops/api/Anomalies/${first!.id}/acknowledge`, {
      token: user.token,
      json: { note: 'planned load test' },
    });
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({
      id: first!.id,
      status: 'acknowledged',
      note: 'planned load test',
      acknowledgedBy: user.email,
    });
    const empty = await api.post(`/finops/api/Anomalies/${first!.id}/acknowledge`, {
      token: user.token,
      raw: '',
    });
    expect(empty.status).toBe(200);
    expect(empty.body.note).toBe('planned load test');
    const trail = await auditRecordsOf(host.services.prisma, 'anomaly.acknowledged', first!.id);
    expect(trail.map((r) => [r.actorEmail, (r.details as { note?: string }).note])).toEqual([
      [user.email, 'planned load test'],
      [user.email, undefined],
    ]);
    expect((await anomalies(`subscriptionId=${SUB}&status=open`)).map((a) => a.id)).not.toContain(first!.id);
    await postCsv(SUB, focusCsv(exportLines(SUB, FIRST, DAYS, specs(true))));
    const again = (await anomalies(`subscriptionId=${SUB}&status=acknowledged`)).map((a) => a.id);
    expect(again).toEqual([first!.id]);
    expect((await api.post('/finops/api/Anomalies/999999/acknowledge', { token: user.token })).status).toBe(
      404,
    );
    const asText = await api.post(`/finops/api/Anomalies/${first!.id}/acknowledge`, {
      token: user.token,
      raw: 'note',
      headers: { 'content-type': 'text/plain' },
    });
    expect(isProblem(asText, 415)).toBe(true);
    const foreign = await api.post(`/finops/api/Anomalies/${first!.id}/acknowledge`, {
      token: outsider.token,
    });
    expect(isProblem(foreign, 403)).toBe(true);
    const foreignImport = await fetch(`${host.url}/finops/api/CostImports?subscriptionId=${SUB}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${outsider.token}`, 'content-type': 'text/csv' },
      body: 'a\n',
    });
    expect(foreignImport.status).toBe(403);
  });

  it('filters anomalies by date range and pages them newest first', async () => {
    const inRange = await anomalies(`subscriptionId=${SUB}&from=${NEW_DAY}&to=${NEW_DAY}`);
    expect(inRange.map((a) => a.kind)).toEqual(['newCost', 'newCost']);
    const page = await api.get(`/finops/api/Anomalies?subscriptionId=${SUB}&page=1&pageSize=2`, {
      token: user.token,
    });
    expect(page.body.map((a: { date: string }) => a.date)).toEqual([SPIKE_DAY, SPIKE_DAY]);
    expect(page.headers.get('x-total-count')).toBe('5');
    expect((await api.get('/finops/api/Anomalies?from=2026-13-01', { token: user.token })).status).toBe(400);
    expect((await api.get('/finops/api/Anomalies?status=closed', { token: user.token })).status).toBe(400);
    expect((await api.get('/finops/api/Anomalies')).status).toBe(401);
  });
});
