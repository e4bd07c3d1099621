/**
 * Cost Management quota bench: a batch of analyses' cost queries (month to date by group and
 * service, per resource, six months of daily history: 1 + 1 + 7 QPU each) against the simulator
 * enforcing the documented tenant quota (12 QPU / 10 s, 60 / min, 600 / h), time-scaled by
 * BENCH_QUOTA_SCALE (default 0.25: 10 s → 2.5 s), with CostQuery__Pacing=quota. Aim: zero 429s, and
 * the batch within 1.1 × the quota-bound minimum: the earliest each query could have been sent, in
 * order, without breaking any window (computed from the QPU the simulator charged), request time
 * not counted.
 */
import { QPU_WINDOWS } from '../dev/azure-sim/cost-quota.js';
import { startAzureSimulator } from '../dev/azure-sim/index.js';
import { createAzureAccess, historyRange } from '../shared/finops/azure/index.js';
import { realSleep } from '../shared/finops/azure/pacing.js';
import { queryQpu } from '../shared/finops/azure/qpu-pacer.js';
import { simulatorAccess } from './sim-access.js';

const SCALE = Number(process.env.BENCH_QUOTA_SCALE ?? 0.25);
const ANALYSES = Number(process.env.BENCH_QUOTA_ANALYSES ?? 10);

/** The earliest send times of `qpu` (in order) under the windows, windows scaled to ms. */
export function quotaBoundSchedule(qpu: number[], scale: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < qpu.length; i++) {
    let t = i === 0 ? 0 : times[i - 1]!;
    for (let moved = true; moved; ) {
      moved = false;
      for (const w of QPU_WINDOWS) {
        const ms = w.seconds * 1000 * scale;
        let used = qpu[i]!;
        for (let j = 0; j < i; j++) if (times[j]! > t - ms) used += qpu[j]!;
        if (used <= w.limit) continue;
        // Move to when enough earlier queries have left this window.
        let over = used - w.limit;
        for (let j = 0; j < i && over > 0; j++) {
          if (times[j]! <= t - ms) continue;
          over -= qpu[j]!;
          if (over <= 0) {
            t = times[j]! + ms;
            moved = true;
          }
        }
      }
    }
    times.push(t);
  }
  return times;
}

const sim = await startAzureSimulator({ resourcesPerSubscription: 30, costQuota: { scale: SCALE } });
try {
  const azure = createAzureAccess({
    ...simulatorAccess(sim),
    costQueryType: 'ActualCost',
    paceScale: SCALE,
    sleep: realSleep,
    costPacing: 'quota',
  });
  const now = new Date();
  const history = historyRange(now);
  // Warm the token so the batch measures cost queries only.
  await azure.getSubscriptionName('0b5c6a1e-1111-4a2b-8c3d-000000000001');
  sim.stats.reset();
  const started = performance.now();
  for (let i = 0; i < ANALYSES; i++) {
    const sub = `0b5c6a1e-1111-4a2b-8c3d-${String(i + 1).padStart(12, '0')}`;
    await azure.monthToDateByGroupAndService(sub);
    await azure.costByResource(sub);
    await azure.dailyHistory(sub, history.from, history.to);
  }
  const wall = performance.now() - started;
  const cost = sim.stats.requests.filter((r) => r.endpoint === 'cost');
  const throttled = cost.filter((r) => r.status === 429).length;
  const charged = cost.filter((r) => r.status === 200);
  // The QPU of each query, as the simulator charges them (MTD: 1 month; history: 7).
  const perAnalysis = [
    queryQpu(JSON.stringify({ timeframe: 'MonthToDate' })),
    queryQpu(JSON.stringify({ timeframe: 'MonthToDate' })),
    queryQpu(
      JSON.stringify({
        timeframe: 'Custom',
        timePeriod: { from: `${history.from}T00:00:00Z`, to: `${history.to}T23:59:59Z` },
      }),
      now,
    ),
  ];
  const qpu = Array.from({ length: ANALYSES }, () => perAnalysis).flat();
  const schedule = quotaBoundSchedule(qpu, SCALE);
  const minMs = schedule[schedule.length - 1]!;
  const first = cost[0]!.at;
  const last = cost[cost.length - 1]!;
  const batchMs = last.at + last.durationMs - first;
  const meanRequestMs = charged.reduce((s, r) => s + r.durationMs, 0) / Math.max(1, charged.length);
  const ratio = batchMs / minMs;
  const lines = [
    `finops quota bench: ${ANALYSES} analyses, ${qpu.reduce((a, b) => a + b, 0)} QPU in ${qpu.length} queries, time scale ${SCALE} (10 s window = ${10 * SCALE} s)`,
    `  429 answers          ${throttled} (aim 0)`,
    `  cost requests        ${cost.length} (${charged.length} charged), ClientType ${[...new Set(cost.map((r) => r.clientType ?? '(none)'))].join(',')}`,
    `  quota-bound minimum  ${(minMs / 1000).toFixed(2)} s (${(minMs / SCALE / 1000).toFixed(0)} s unscaled)`,
    `  batch time           ${(batchMs / 1000).toFixed(2)} s (wall ${(wall / 1000).toFixed(2)} s, mean request ${meanRequestMs.toFixed(0)} ms)`,
    `  ratio                ${ratio.toFixed(3)} (aim ≤ 1.1)`,
    // The original's fixed pauses (15–25 s before the history, 2–4 s before its first page) alone.
    `  fixed pauses alone   ≥ ${((ANALYSES * (15 + 2) * 1000 * SCALE) / 1000).toFixed(2)} s (CostQuery__Pacing=fixed, before any quota wait)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (throttled > 0 || ratio > 1.1) process.exitCode = 1;
} finally {
  await sim.close();
}
