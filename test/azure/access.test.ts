import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type AzureAccess,
  historyRange,
  PACE_MS,
  previousMonthPeriod,
} from '../../shared/finops/azure/index.js';
import { type Harness, SUB, startHarness } from './helpers.js';

let h: Harness;
let az: AzureAccess;
// Days in the past whatever today is: the last full month.
const last = previousMonthPeriod(new Date()) as { kind: 'Range'; from: string; to: string };
const lastFirstWeek = { from: last.from, to: `${last.from.slice(0, 8)}05` };

beforeAll(async () => {
  // Small pages on both APIs so that every query spans several pages.
  h = await startHarness({ costPageSize: 7, resourcesPerSubscription: 60 });
  az = h.access({ graphPageSize: 9 });
});
afterAll(() => h.sim.close());
beforeEach(() => {
  h.sim.faults.reset();
  h.sim.stats.reset();
  h.waits.length = 0;
});

describe('Azure access on the real SDK clients against the simulator', () => {
  it('reads the subscription display name', async () => {
    expect(await az.getSubscriptionName(SUB)).toBe(h.sim.subscription(SUB).displayName);
  });

  it('lists every resource through Resource Graph, following $skipToken over several pages', async () => {
    const pages: number[] = [];
    const streamed: string[] = [];
    await az.listResources(SUB, (rows, i) => {
      pages.push(i);
      streamed.push(...rows.map((r) => r.id));
    });
    // 60 resources and, from the same union query, their 3 resource groups: 63 rows, 9 a page.
    expect(pages).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const resources = await az.listResources(SUB);
    expect(resources).toHaveLength(63);
    expect(resources.map((r) => r.id)).toEqual(streamed);
    expect(new Set(resources.map((r) => r.id)).size).toBe(63);
    const sim = h.sim.subscription(SUB);
    expect(sim.containers).toHaveLength(3);
    const expected = [...sim.resources, ...sim.containers].map((r) => r.id).sort();
    expect(resources.map((r) => r.id).sort()).toEqual(expected);
    const vm = resources.find((r) => r.type === 'microsoft.compute/virtualmachines');
    expect(vm?.properties).toHaveProperty('extended.instanceView.powerState.code');
    expect(resources.every((r) => r.type === r.type.toLowerCase())).toBe(true);
  });

  it('follows every cost page through nextLink without re-encoding the $skiptoken (W2, W3)', async () => {
    const r = await az.queryCost({
      subscriptionId: SUB,
      timeframe: 'MonthToDate',
      granularity: 'None',
      groupBy: ['ResourceId'],
    });
    expect(r.pages).toBeGreaterThan(2);
    const costCalls = h.sim.stats.requests.filter((q) => q.endpoint === 'cost');
    expect(costCalls).toHaveLength(r.pages);
    expect(costCalls.every((q) => q.status === 200)).toBe(true);
    const followed = costCalls.filter((q) => q.url.includes('$skiptoken='));
    expect(followed).toHaveLength(r.pages - 1);
    for (const q of followed) {
      expect(q.url).toMatch(/\$skiptoken=sk%2B/);
      expect(q.url).not.toMatch(/%25/);
    }
    expect(r.rows.length).toBe(r.rowCount);
    expect(r.columns).toEqual(['Cost', 'ResourceId', 'Currency']);
  });

  it('hands raw pages in their own column order and keeps none of their rows', async () => {
    const q = {
      subscriptionId: SUB,
      timeframe: 'MonthToDate' as const,
      granularity: 'None' as const,
      groupBy: ['ResourceId'],
    };
    const named = await az.queryCost(q);
    h.sim.faults.costColumnOrder('reversed');
    const pages: number[] = [];
    const rebuilt: Array<Record<string, unknown>> = [];
    const raw = await az.queryCost({
      ...q,
      onRawPage: (page, i) => {
        pages.push(i);
        expect(page.columns).toEqual([...named.columns].reverse());
        for (const cells of page.rows)
          rebuilt.push(Object.fromEntries(page.columns.map((c, at) => [c, cells[at]])));
      },
    });
    expect(pages).toEqual(Array.from({ length: named.pages }, (_, i) => i));
    expect(raw.rows).toEqual([]);
    expect(raw.rowCount).toBe(named.rowCount);
    expect(rebuilt).toEqual(named.rows);
  });

  it('reads columns by name, whatever their order', async () => {
    const q = {
      subscriptionId: SUB,
      timeframe: 'MonthToDate' as const,
      granularity: 'Daily' as const,
      groupBy: ['ResourceGroupName', 'ServiceName'],
    };
    const normal = await az.queryCost(q);
    h.sim.faults.costColumnOrder('reversed');
    const reversed = await az.queryCost(q);
    expect(reversed.columns).toEqual([...normal.columns].reverse());
    expect(reversed.rows).toEqual(normal.rows);
    h.sim.faults.costColumnOrder('rotated');
    const a = await az.dailyHistory(SUB, last.from, last.to);
    h.sim.faults.costColumnOrder('real');
    const b = await az.dailyHistory(SUB, last.from, last.to);
    expect(a.rows).toEqual(b.rows);
    expect(a.rows[0]?.date).toBe(last.from);
  });

  it('month-to-date total equals the sum of the per-resource rows and of the group/service rows', async () => {
    const byGroup = await az.monthToDateByGroupAndService(SUB);
    const byResource = await az.costByResource(SUB);
    const total = await az.queryCost({
      subscriptionId: SUB,
      timeframe: 'MonthToDate',
      granularity: 'None',
      groupBy: [],
    });
    const grand = total.rows.reduce((s, r) => s + Number(r['Cost']), 0);
    expect(grand).toBeGreaterThan(0);
    expect(byGroup.total).toBeCloseTo(grand, 6);
    expect(byResource.total).toBeCloseTo(grand, 6);
    expect([...byResource.byResourceId.values()].reduce((s, c) => s + c, 0)).toBeCloseTo(grand, 6);
    // Keys are lower-case resource ids that match the Resource Graph ids.
    const ids = new Set(h.sim.subscription(SUB).resources.map((r) => r.id.toLowerCase()));
    for (const id of byResource.byResourceId.keys()) expect(ids.has(id)).toBe(true);
    expect(byGroup.currency).toBe(h.sim.subscription(SUB).currency);
  });

  it('queries the previous month as a Custom range and daily history over six months', async () => {
    const now = new Date();
    const prev = previousMonthPeriod(now);
    expect(prev.kind).toBe('Range');
    const prevTotal = await az.monthToDateByGroupAndService(SUB, prev);
    const body = h.sim.stats.requests.filter((q) => q.endpoint === 'cost');
    expect(body.length).toBeGreaterThan(0);
    const { from, to } = historyRange(now, 6);
    const history = await az.dailyHistory(SUB, from, to);
    const inPrev = history.rows.filter(
      (r) => prev.kind === 'Range' && r.date >= prev.from && r.date <= prev.to,
    );
    expect(inPrev.reduce((s, r) => s + r.cost, 0)).toBeCloseTo(prevTotal.total, 6);
    expect(history.rows.length).toBeGreaterThan(100);
  });

  it('paces history pages: 2–4 s before the first, 8–12 s before each later one (paceScale 1)', async () => {
    await az.dailyHistory(SUB, lastFirstWeek.from, lastFirstWeek.to);
    const [first, ...later] = h.waits;
    expect(first).toBe(PACE_MS.firstHistoryPage[0]); // random() = 0 in the harness
    expect(later.length).toBeGreaterThan(0);
    for (const w of later) expect(w).toBe(PACE_MS.laterHistoryPage[0]);
    h.waits.length = 0;
    await az.pace.betweenMtdAndHistory();
    expect(h.waits).toEqual([15_000]);
  });

  it('paceScale scales every pause and 0 turns them off', async () => {
    const scaled = h.access({ paceScale: 0.5, random: () => 0.5 });
    await scaled.pace.betweenMtdAndHistory();
    expect(h.waits).toEqual([10_000]);
    h.waits.length = 0;
    const off = h.access({ paceScale: 0 });
    h.sim.faults.throttle({ count: 2, headers: { 'retry-after': 30 } });
    await off.dailyHistory(SUB, lastFirstWeek.from, lastFirstWeek.to);
    await off.pace.betweenMtdAndHistory();
    expect(h.waits).toEqual([]);
  });
});
