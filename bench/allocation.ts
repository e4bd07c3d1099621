// npm run bench -- allocation: the Kubernetes cost allocation's accuracy, exactness and speed, and
// the rightsizing's accuracy.
//  1. Accuracy: a generated cluster (4 node pools, one autoscaled, one reserved; 60 namespaces;
//     an agent outage hour a week) whose usage, requests and bill are known: each namespace's
//     allocation against the amount this file computes from the model on its own (never by calling
//     the allocation), with actual and amortized cost; every billed day must add up to the cent.
//  2. Speed: 30 days of a 6,000-container, 200-node cluster, from hourly container and node rows
//     (what a usage source answers) to the answer: min and median of BENCH_RUNS runs.
//  3. Rightsizing: synthetic workloads with known usage distributions; each recommendation against
//     the value the distribution's own quantile gives (aim: within 10 %).
import { cpus, loadavg } from 'node:os';
import {
  type AllocationDay,
  allocate,
  type ContainerHour,
  chargesOf,
  type NodeHour,
} from '../shared/finops/kubernetes/allocation.js';
import { recommend, type UsageSample } from '../shared/finops/kubernetes/rightsizing.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const CPU = 0.031611;
const RAM = 0.004237;
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const NODES = Number(process.env.BENCH_NODES ?? 200);
const CONTAINERS = Number(process.env.BENCH_CONTAINERS ?? 6000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 4294967296;
  };
}

interface Pool {
  id: string;
  name: string;
  cores: number;
  gib: number;
  rate: number;
  reservedRate: number | null;
  base: number;
  burst: number;
}

const POOLS: Pool[] = [
  { id: 'vmss-sys', name: 'system', cores: 8, gib: 32, rate: 0.384, reservedRate: 0.241, base: 0, burst: 0 },
  { id: 'vmss-gp', name: 'general', cores: 8, gib: 32, rate: 0.384, reservedRate: null, base: 0, burst: 0 },
  { id: 'vmss-mem', name: 'memory', cores: 8, gib: 64, rate: 0.504, reservedRate: null, base: 0, burst: 0 },
  { id: 'vmss-big', name: 'burst', cores: 16, gib: 64, rate: 0.768, reservedRate: null, base: 0, burst: 0 },
];
// 200 nodes at the peak: 30 + 70 + 50 stable, 20..50 in the autoscaled pool.
POOLS[0]!.base = Math.round(NODES * 0.15);
POOLS[1]!.base = Math.round(NODES * 0.35);
POOLS[2]!.base = Math.round(NODES * 0.25);
POOLS[3]!.base = Math.round(NODES * 0.1);
POOLS[3]!.burst = NODES - POOLS[0]!.base - POOLS[1]!.base - POOLS[2]!.base - POOLS[3]!.base;

const nodesAt = (p: Pool, day: number, hour: number) =>
  p.burst === 0
    ? p.base
    : p.base + (hour >= 8 && hour < 18 && day % 7 < 5 ? p.burst : Math.floor(p.burst / 3));
const isOutage = (day: number, hour: number) => day % 7 === 3 && hour === 4;

interface Ctr {
  namespace: string;
  pool: Pool;
  node: number;
  cpuReq: number;
  memReq: number;
  cpuUse: number[];
  memUse: number[];
}

/** Containers on the stable nodes of each pool (so they run every hour), usage varying by the hour. */
function makeContainers(): Ctr[] {
  const r = rng(42);
  const out: Ctr[] = [];
  const stable = POOLS.flatMap((p) => Array.from({ length: p.base }, (_, i) => ({ p, i })));
  for (let c = 0; c < CONTAINERS; c++) {
    const where = stable[c % stable.length]!;
    const cpuReq = r() < 0.1 ? 0 : 0.02 + r() * 0.15;
    const memReq = (64 + r() * 256) * MiB;
    out.push({
      namespace: c % 10 === 0 ? 'kube-system' : `team-${c % 60}`,
      pool: where.p,
      node: where.i,
      cpuReq,
      memReq,
      cpuUse: Array.from({ length: 24 }, () => r() * 0.16),
      memUse: Array.from({ length: 24 }, () => (32 + r() * 300) * MiB),
    });
  }
  return out;
}

function poolDay(p: Pool, day: number, type: 'ActualCost' | 'AmortizedCost') {
  let hours = 0;
  for (let h = 0; h < 24; h++) hours += nodesAt(p, day, h);
  const rate = p.reservedRate === null ? p.rate : type === 'ActualCost' ? 0 : p.reservedRate;
  return { hours, cost: Math.round(hours * rate * 1e6) / 1e6 };
}

function buildDays(ctrs: Ctr[], type: 'ActualCost' | 'AmortizedCost'): AllocationDay[] {
  const days: AllocationDay[] = [];
  for (let d = 0; d < DAYS; d++) {
    const nodeHours: NodeHour[] = [];
    const containers: ContainerHour[] = [];
    for (let h = 0; h < 24; h++) {
      if (isOutage(d, h)) continue;
      for (const p of POOLS) {
        for (let i = 0; i < nodesAt(p, d, h); i++) {
          nodeHours.push({
            hour: h,
            node: `${p.name}-${i}`,
            poolId: p.id,
            cpuCapacityCores: p.cores,
            memoryCapacityBytes: p.gib * GiB,
            cpuAllocatableCores: p.cores - 0.2,
            memoryAllocatableBytes: (p.gib - 2) * GiB,
          });
        }
      }
      for (const c of ctrs) {
        containers.push({
          hour: h,
          node: `${c.pool.name}-${c.node}`,
          namespace: c.namespace,
          row: c.namespace,
          cpuRequestCores: c.cpuReq,
          cpuUsageCores: c.cpuUse[h]!,
          memoryRequestBytes: c.memReq,
          memoryUsageBytes: c.memUse[h]!,
        });
      }
    }
    days.push({
      day: `d${String(d).padStart(2, '0')}`,
      estimated: false,
      pools: POOLS.map((p) => {
        const b = poolDay(p, d, type);
        return { poolId: p.id, poolName: p.name, cost: b.cost, billedHours: b.hours };
      }),
      clusterCost: 2.4,
      networkCost: 0.72 + (d % 3) * 0.013333,
      disks: [
        { resourceId: 'disk-a', cost: 0.648, namespace: 'team-1', row: 'team-1' },
        { resourceId: 'disk-b', cost: 0.1736, namespace: null, row: null },
      ],
      nodeHours,
      charges: chargesOf(containers),
    });
  }
  return days;
}

/** The model, on its own: per day, weighted spreading of kube-system. */
function expected(ctrs: Ctr[], type: 'ActualCost' | 'AmortizedCost'): Map<string, number> {
  const total = new Map<string, number>();
  for (let d = 0; d < DAYS; d++) {
    const ns = new Map<string, number>();
    const perCore = new Map<Pool, number>();
    const perGiB = new Map<Pool, number>();
    for (const p of POOLS) {
      const b = poolDay(p, d, type);
      const rate = b.cost / b.hours;
      const cpuPart = (p.cores * CPU) / (p.cores * CPU + p.gib * RAM);
      perCore.set(p, (rate * cpuPart) / p.cores);
      perGiB.set(p, (rate * (1 - cpuPart)) / p.gib);
    }
    for (const c of ctrs) {
      let v = 0;
      for (let h = 0; h < 24; h++) {
        if (isOutage(d, h)) continue;
        v +=
          Math.max(c.cpuReq, c.cpuUse[h]!) * perCore.get(c.pool)! +
          (Math.max(c.memReq, c.memUse[h]!) / GiB) * perGiB.get(c.pool)!;
      }
      ns.set(c.namespace, (ns.get(c.namespace) ?? 0) + v);
    }
    ns.set('team-1', (ns.get('team-1') ?? 0) + 0.648);
    const shared = ns.get('kube-system') ?? 0;
    ns.delete('kube-system');
    const others = [...ns.values()].reduce((s, v) => s + v, 0);
    for (const [n, v] of ns) total.set(n, (total.get(n) ?? 0) + v + (shared * v) / others);
  }
  return total;
}

function accuracy(ctrs: Ctr[]) {
  for (const type of ['ActualCost', 'AmortizedCost'] as const) {
    const days = buildDays(ctrs, type);
    const r = allocate(days, { sharedNamespaces: ['kube-system'], shareMode: 'weighted' });
    const want = expected(ctrs, type);
    let worst = 0;
    for (const row of r.rows) {
      const w = want.get(row.name)!;
      worst = Math.max(worst, Math.abs(row.totalCost - w) / w);
    }
    let exactDays = 0;
    for (const [i, d] of r.days.entries()) {
      const src = days[i]!;
      let micros = Math.round(src.clusterCost * 1e6) + Math.round(src.networkCost * 1e6);
      for (const p of src.pools) micros += Math.round(p.cost * 1e6);
      for (const k of src.disks) micros += Math.round(k.cost * 1e6);
      const billed = Math.round(micros / 1e4);
      const parts = [d.allocated, d.idle, d.system, d.service, d.unallocated].reduce(
        (s, x) => s + Math.round(x * 100),
        0,
      );
      if (parts === billed && Math.round(d.billedCost * 100) === billed) exactDays++;
    }
    console.log(
      `accuracy ${type}: ${r.rows.length} namespaces, worst error ${(worst * 100).toFixed(4)} % (aim < 1 %); ` +
        `days reconciled to the cent ${exactDays}/${r.days.length}; billed ${r.billedCost}, idle ${r.idle
          .reduce((s, x) => s + x.totalCost, 0)
          .toFixed(2)}, system ${r.system}, unallocated ${r.unallocated}`,
    );
  }
}

function speed(ctrs: Ctr[]) {
  const days = buildDays(ctrs, 'AmortizedCost');
  const containerHours = DAYS * 24 * CONTAINERS;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    allocate(days, { sharedNamespaces: ['kube-system'], shareMode: 'weighted' });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(
    `speed: ${DAYS} days, ${NODES} nodes, ${CONTAINERS} containers (${containerHours.toLocaleString('en')} container-hours pre-summed per node-hour and namespace): ` +
      `allocation min ${times[0]!.toFixed(0)} ms, median ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms`,
  );
}

function rightsizing() {
  const r = rng(7);
  const normal = () => Math.sqrt(-2 * Math.log(r())) * Math.cos(2 * Math.PI * r());
  const start = Date.UTC(2026, 10, 1);
  const cases: Array<{ name: string; cpu: () => number; mem: () => number; cpuP90: number; memP90: number }> =
    [
      {
        name: 'exponential cpu (mean 0.3), steady memory 512 MiB',
        cpu: () => -Math.log(r()) * 0.3,
        mem: () => 512 * MiB,
        cpuP90: -Math.log(0.1) * 0.3,
        memP90: 512 * MiB,
      },
      {
        name: 'uniform cpu 0.2..1.0, uniform memory 1..2 GiB',
        cpu: () => 0.2 + 0.8 * r(),
        mem: () => (1 + r()) * GiB,
        cpuP90: 0.2 + 0.8 * 0.9,
        // the daily peak of 288 uniform samples is ~ the top: 2 GiB * (1 - 1/289)
        memP90: 2 * GiB * (1 - 1 / 289),
      },
      {
        name: 'lognormal cpu (median 0.1, sigma 0.5), normal memory 800 +- 50 MiB',
        cpu: () => 0.1 * Math.exp(0.5 * normal()),
        mem: () => (800 + 50 * normal()) * MiB,
        cpuP90: 0.1 * Math.exp(0.5 * 1.2816),
        // the daily peak of 288 normal samples is about mean + 2.7 sd
        memP90: (800 + 50 * 2.75) * MiB,
      },
    ];
  for (const c of cases) {
    const samples: UsageSample[] = [];
    for (let i = 0; i < 7 * 288; i++)
      samples.push({ at: start + i * 300_000, cpuCores: c.cpu(), memoryBytes: c.mem() });
    const rec = recommend(
      {
        namespace: 'n',
        workload: 'Deployment/w',
        container: 'c',
        cpuRequestCores: 1,
        memoryRequestBytes: GiB,
        samples,
        oomKills: 0,
        restarts: 0,
      },
      { cpuPerCoreHour: 0.04, memoryPerGiBHour: 0.005 },
    );
    const cpuErr = rec.recommended.cpuCores / (c.cpuP90 * 1.15) - 1;
    const memErr = rec.recommended.memoryBytes / Math.max(250 * MiB, c.memP90 * 1.15) - 1;
    console.log(
      `rightsizing ${c.name}: cpu ${rec.recommended.cpuCores} cores (${(cpuErr * 100).toFixed(1)} %), ` +
        `memory ${(rec.recommended.memoryBytes / MiB).toFixed(0)} MiB (${(memErr * 100).toFixed(1)} %) (aim within 10 %)`,
    );
  }
}

console.log(
  `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0]!.toFixed(2)}, node ${process.version}`,
);
const ctrs = makeContainers();
accuracy(ctrs);
speed(ctrs);
rightsizing();
