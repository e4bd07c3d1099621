import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ThrottleHeaderKind } from '../../dev/azure-sim/index.js';
import { type AzureAccess, previousMonthPeriod } from '../../shared/finops/azure/index.js';
import { type Harness, raw, SUB, startHarness } from './helpers.js';

let h: Harness;
let az: AzureAccess;
const mtd = {
  subscriptionId: SUB,
  timeframe: 'MonthToDate' as const,
  granularity: 'None' as const,
  groupBy: [],
};

beforeAll(async () => {
  h = await startHarness({ costPageSize: 5 });
  az = h.access();
});
afterAll(() => h.sim.close());
beforeEach(() => {
  h.sim.faults.reset();
  h.sim.stats.reset();
  h.waits.length = 0;
});

const costStatuses = () => h.sim.stats.requests.filter((r) => r.endpoint === 'cost').map((r) => r.status);

describe('throttling of cost queries (one policy, ours; the SDK does not retry as well)', () => {
  const kinds: ThrottleHeaderKind[] = ['retry-after', 'qpu', 'entity', 'tenant', 'client', 'clienttype'];
  for (const [i, kind] of kinds.entries()) {
    it(`honours ${kind}`, async () => {
      const seconds = 7 + i;
      h.sim.faults.throttle({ count: 1, headers: { [kind]: seconds } });
      await az.queryCost(mtd);
      expect(h.waits).toEqual([seconds * 1000]); // random() = 0: no jitter
      expect(costStatuses()).toEqual([429, 200]); // exactly one retry
    });
  }

  it('honours Retry-After given as an HTTP date', async () => {
    h.sim.faults.throttle({ count: 1, headers: { 'retry-after': 40 }, retryAfterAsDate: true });
    await az.queryCost(mtd);
    expect(h.waits).toHaveLength(1);
    expect(h.waits[0]).toBeGreaterThan(37_000);
    expect(h.waits[0]).toBeLessThanOrEqual(40_000);
  });

  it('waits the largest header when several are present', async () => {
    h.sim.faults.throttle({ count: 1, headers: { 'retry-after': 5, qpu: 12, tenant: 33, client: 2 } });
    await az.queryCost(mtd);
    expect(h.waits).toEqual([33_000]);
  });

  it('caps the wait at 300 s, also with jitter', async () => {
    const jittery = h.access({ random: () => 0.99 });
    h.sim.faults.throttle({ count: 1, headers: { entity: 3600 } });
    await jittery.queryCost(mtd);
    expect(h.waits).toEqual([300_000]);
  });

  it('adds at most 10 % jitter', async () => {
    const jittery = h.access({ random: () => 0.5 });
    h.sim.faults.throttle({ count: 1, headers: { qpu: 20 } });
    await jittery.queryCost(mtd);
    expect(h.waits).toEqual([21_000]);
  });

  it('backs off exponentially from 15 s without a header', async () => {
    h.sim.faults.throttle({ count: 3 });
    await az.queryCost(mtd);
    expect(h.waits).toEqual([15_000, 30_000, 60_000]);
  });

  it('retries 502, 503 and 504 but not 500', async () => {
    for (const status of [502, 503, 504]) h.sim.faults.fail({ status, count: 1 });
    await az.queryCost(mtd);
    expect(costStatuses()).toEqual([502, 503, 504, 200]);
    h.sim.stats.reset();
    h.sim.faults.fail({ status: 500, count: 1 });
    await expect(az.queryCost(mtd)).rejects.toThrow();
    expect(costStatuses()).toEqual([500]);
  });

  it('retries a dropped connection with back-off', async () => {
    h.sim.faults.fail({ status: 0, count: 1 });
    const r = await az.queryCost(mtd);
    expect(r.rowCount).toBeGreaterThan(0);
    expect(h.waits).toEqual([15_000]);
  });

  it('gives up after 10 attempts', async () => {
    h.sim.faults.throttle({ count: 50, headers: { qpu: 1 } });
    await expect(az.queryCost(mtd)).rejects.toThrow();
    expect(costStatuses()).toHaveLength(10);
    expect(h.waits).toHaveLength(9);
  });

  it('retries a throttled nextLink page too, and keeps following it unencoded', async () => {
    const prev = previousMonthPeriod(new Date()) as { from: string; to: string };
    const first = await az.queryCost({
      ...mtd,
      timeframe: 'Custom',
      from: prev.from,
      to: prev.to,
      groupBy: ['ResourceId'],
    });
    h.sim.stats.reset();
    // Throttle the second request (the first nextLink page): arm after the first page arrives.
    const second = await az.queryCost({
      ...mtd,
      timeframe: 'Custom',
      from: prev.from,
      to: prev.to,
      groupBy: ['ResourceId'],
      onPage: (_rows, i) => {
        if (i === 0) h.sim.faults.throttle({ count: 1, headers: { tenant: 4 } });
      },
    });
    expect(second.rowCount).toBe(first.rowCount);
    expect(costStatuses().slice(0, 3)).toEqual([200, 429, 200]);
    expect(h.waits).toEqual([4000]);
  });
});

describe('one cost query at a time, process-wide', () => {
  it('never overlaps concurrent queryCost calls, even from separate access objects', async () => {
    h.sim.faults.slow(15);
    const other = h.access();
    const prev = previousMonthPeriod(new Date()) as { from: string; to: string };
    const jobs = [
      az.queryCost(mtd),
      az.queryCost({ ...mtd, groupBy: ['ResourceGroupName'] }),
      other.queryCost({
        ...mtd,
        timeframe: 'Custom',
        from: prev.from,
        to: prev.to,
        groupBy: ['ServiceName'],
      }),
      other.monthToDateByGroupAndService(SUB),
      az.costByResource(SUB),
    ];
    await Promise.all(jobs);
    expect(h.sim.stats.requests.filter((r) => r.endpoint === 'cost').length).toBeGreaterThan(10);
    expect(h.sim.stats.maxConcurrentCostQueries).toBe(1);
  });

  it('holds the lock during a back-off, so no other query slips in', async () => {
    h.sim.faults.throttle({ count: 1, headers: { qpu: 2 } });
    const slowSleep = h.access({ sleep: (ms) => new Promise((r) => setTimeout(r, ms / 100)) });
    await Promise.all([slowSleep.queryCost(mtd), az.queryCost(mtd), slowSleep.queryCost(mtd)]);
    expect(h.sim.stats.maxConcurrentCostQueries).toBe(1);
  });
});

describe('Resource Graph throttling', () => {
  it('waits x-ms-user-quota-resets-after on a 429 and retries', async () => {
    h.sim.faults.throttle({ endpoint: 'graph', count: 1, headers: { 'user-quota': 3 } });
    const rows = await az.listResources(SUB);
    expect(rows).toHaveLength(63); // 60 resources and their 3 resource groups
    expect(h.waits).toEqual([3000]);
  });

  it('waits for the quota window when a successful answer says none is left', async () => {
    h.sim.faults.graphQuotaExhausted({ count: 1, resetsAfterSeconds: 4 });
    await az.listResources(SUB);
    expect(h.waits).toEqual([4000]);
  });

  it('retries 503 from Resource Graph and the subscription lookup', async () => {
    h.sim.faults.fail({ endpoint: 'graph', status: 503, count: 2 });
    h.sim.faults.fail({ endpoint: 'subscription', status: 504, count: 1 });
    expect(await az.listResources(SUB)).toHaveLength(63); // 60 resources and 3 resource groups
    expect(await az.getSubscriptionName(SUB)).toBe(h.sim.subscription(SUB).displayName);
    expect(h.waits).toEqual([15_000, 30_000, 15_000]);
    const graph = h.sim.stats.requests.filter((r) => r.endpoint === 'graph').map((r) => r.status);
    expect(graph).toEqual([503, 503, 200]);
  });
});

describe('logging and the admin route', () => {
  it('accepts a pino logger and logs each back-off', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(l) });
    const logged = h.access({ logger });
    h.sim.faults.throttle({ count: 1, headers: { qpu: 2 } });
    await logged.queryCost(mtd);
    const entry = JSON.parse(lines.find((l) => l.includes('waiting before retry')) ?? '{}') as Record<
      string,
      unknown
    >;
    expect(entry['header']).toBe('x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after');
    expect(entry['waitMs']).toBe(2000);
  });

  it('arms faults through the HTTP admin route', async () => {
    const res = await raw(h.sim, 'POST', '/_sim/faults/throttle', { count: 1, headers: { clienttype: 6 } });
    expect(res.status).toBe(204);
    await az.queryCost(mtd);
    expect(h.waits).toEqual([6000]);
  });
});
