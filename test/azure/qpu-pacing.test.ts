import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CostQuota } from '../../dev/azure-sim/cost-quota.js';
import { realSleep } from '../../shared/finops/azure/pacing.js';
import { parseQpuRemaining, QpuPacer, queryQpu } from '../../shared/finops/azure/qpu-pacer.js';
import { type Harness, SUB, startHarness } from './helpers.js';

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] });
const answer = (remaining: string, consumed: number) =>
  headers({
    'x-ms-ratelimit-microsoft.costmanagement-qpu-remaining': remaining,
    'x-ms-ratelimit-microsoft.costmanagement-qpu-consumed': String(consumed),
  });

describe('QPU pacing (unit, simulated clock)', () => {
  it('reads the remaining QPU of every window', () => {
    expect([...parseQpuRemaining('QueriesPerHour:597,QueriesPerMin:57,QueriesPer10Sec:9')]).toEqual([
      [3600, 597],
      [60, 57],
      [10, 9],
    ]);
    expect(parseQpuRemaining(undefined).size).toBe(0);
  });

  it('costs one QPU per calendar month a query spans', () => {
    expect(queryQpu(JSON.stringify({ timeframe: 'MonthToDate' }))).toBe(1);
    const custom = (from: string, to: string) =>
      JSON.stringify({
        timeframe: 'Custom',
        timePeriod: { from: `${from}T00:00:00Z`, to: `${to}T23:59:59Z` },
      });
    expect(queryQpu(custom('2026-05-01', '2026-11-23'), new Date('2026-11-23T12:00:00Z'))).toBe(7);
    expect(queryQpu(custom('2026-10-01', '2026-10-31'), new Date('2026-11-23T12:00:00Z'))).toBe(1);
  });

  it('waits until its own earlier queries leave the window, not a whole window', () => {
    let now = 1_000_000;
    const p = new QpuPacer({ paceScale: 1, sleep: async () => {}, now: () => now });
    p.afterAnswer(200, answer('QueriesPerHour:593,QueriesPerMin:53,QueriesPer10Sec:5', 7));
    now += 2_000;
    p.afterAnswer(200, answer('QueriesPerHour:592,QueriesPerMin:52,QueriesPer10Sec:4', 1));
    // 4 left in 10 s; a 7-QPU query fits once the first 7 QPU (answered at 1,000,000) leave.
    expect(p.readyAt(7)).toBe(1_010_000);
    expect(p.readyAt(4)).toBe(0);
  });

  it('waits for the whole window when others spent the quota', () => {
    const now = 5_000_000;
    const p = new QpuPacer({ paceScale: 0.5, sleep: async () => {}, now: () => now });
    p.afterAnswer(200, answer('QueriesPerHour:590,QueriesPerMin:50,QueriesPer10Sec:0', 1));
    // Our 1 QPU frees 1 after 5 s (10 s × 0.5) and that is enough for a 1-QPU query.
    expect(p.readyAt(1)).toBe(now + 5_000);
    // 2 QPU: nothing of ours frees enough; the window turns over.
    expect(p.readyAt(2)).toBe(now + 5_000);
    expect(new QpuPacer({ paceScale: 0, sleep: async () => {} }).readyAt(5)).toBe(0);
  });
});

describe('the simulator enforces the documented tenant quota (12 QPU / 10 s, 60 / min, 600 / h)', () => {
  it('answers 429 with the time until the quota has room, per ClientType bucket', () => {
    const q = new CostQuota({ scale: 1 });
    const t = 10_000_000;
    expect(q.charge('finwatch', 7, t).ok).toBe(true);
    expect(q.charge('finwatch', 5, t + 1000).ok).toBe(true);
    const refused = q.charge('finwatch', 1, t + 2000);
    expect(refused).toMatchObject({ ok: false, retryAfterSeconds: 8 });
    // Another client type has its own bucket.
    expect(q.charge('', 7, t + 2000).ok).toBe(true);
    expect(q.charge('finwatch', 7, t + 10_001).ok).toBe(true);
  });
});

describe('cost queries against the quota-enforcing simulator', () => {
  let h: Harness;
  const SCALE = 0.02; // 10 s → 200 ms
  beforeAll(async () => {
    h = await startHarness({ resourcesPerSubscription: 20, costQuota: { scale: SCALE } });
  });
  afterAll(() => h.sim.close());

  it('sends ClientType and draws no 429 over back-to-back history queries that exceed the 10 s quota', async () => {
    const az = h.access({ paceScale: SCALE, sleep: realSleep, costPacing: 'quota' });
    const now = new Date();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 6, 1))
      .toISOString()
      .slice(0, 10);
    const started = Date.now();
    for (let i = 0; i < 4; i++) await az.dailyHistory(SUB, from, now.toISOString().slice(0, 10));
    const elapsed = Date.now() - started;
    const cost = h.sim.stats.requests.filter((r) => r.endpoint === 'cost');
    expect(cost.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(cost.map((r) => r.clientType))).toEqual(new Set(['finwatch']));
    // 4 × 7 QPU against 12 per 10 s: the third and fourth each wait for a window to free.
    expect(elapsed).toBeGreaterThanOrEqual(2 * 10_000 * SCALE * 0.9);
  });
});
