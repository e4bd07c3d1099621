import { describe, expect, it } from 'vitest';
import {
  type AllocationDay,
  allocate,
  type ContainerHour,
  chargesOf,
  type NodeHour,
} from '../../shared/finops/kubernetes/allocation.js';
import { roundToTarget } from '../../shared/finops/kubernetes/cents.js';

const GiB = 1024 ** 3;
// OpenCost's default prices; only their ratio matters.
const CPU = 0.031611;
const RAM = 0.004237;
const POOL =
  '/subscriptions/s/resourcegroups/mc_rg/providers/microsoft.compute/virtualmachinescalesets/aks-np1';
const POOL2 =
  '/subscriptions/s/resourcegroups/mc_rg/providers/microsoft.compute/virtualmachinescalesets/aks-np2';

const opts = { sharedNamespaces: [] as string[], shareMode: 'weighted' as const };

function node(hour: number, name: string, poolId = POOL, over: Partial<NodeHour> = {}): NodeHour {
  return {
    hour,
    node: name,
    poolId,
    cpuCapacityCores: 4,
    memoryCapacityBytes: 16 * GiB,
    cpuAllocatableCores: 3.8,
    memoryAllocatableBytes: 14 * GiB,
    ...over,
  };
}

function ctr(
  hour: number,
  nodeName: string,
  namespace: string,
  o: Partial<ContainerHour> = {},
): ContainerHour {
  return {
    hour,
    node: nodeName,
    namespace,
    row: namespace,
    cpuRequestCores: 1,
    cpuUsageCores: 0.5,
    memoryRequestBytes: 2 * GiB,
    memoryUsageBytes: 3 * GiB,
    ...o,
  };
}

function day(o: Partial<AllocationDay>): AllocationDay {
  return {
    day: '2026-11-01',
    estimated: false,
    pools: [],
    clusterCost: 0,
    networkCost: 0,
    disks: [],
    nodeHours: [],
    charges: [],
    ...o,
  };
}

const hours = Array.from({ length: 24 }, (_, h) => h);
/**
 * Each cost component is rounded to the cent so that the day adds up to its bill (largest
 * remainder): a component is within a cent of the model's amount, a total within two.
 */
function expectCents(actual: number, expected: number, lines = 2): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(0.01 * lines + 1e-9);
}

describe('allocation of a billed node pool (one day)', () => {
  // Two 4-core/16 GiB nodes all day, billed 9.60 for 48 instance-hours: 0.20 a node-hour.
  // Namespace `a`: one container per node asking 1 core/2 GiB, using 0.5 core/3 GiB.
  // Namespace `b`: one container on n1 asking 0.25 core and nothing of memory, using 0.75 core/1 GiB.
  const nodes = hours.flatMap((h) => [node(h, 'n1'), node(h, 'n2')]);
  const containers = hours.flatMap((h) => [
    ctr(h, 'n1', 'a'),
    ctr(h, 'n2', 'a'),
    ctr(h, 'n1', 'b', {
      cpuRequestCores: 0.25,
      cpuUsageCores: 0.75,
      memoryRequestBytes: null,
      memoryUsageBytes: GiB,
    }),
  ]);
  const result = allocate(
    [
      day({
        pools: [{ poolId: POOL, poolName: 'np1', cost: 9.6, billedHours: 48 }],
        clusterCost: 2.4,
        nodeHours: nodes,
        charges: chargesOf(containers),
      }),
    ],
    opts,
  );

  // The model, worked by hand: a node-hour is 0.20; CPU takes 4*CPU/(4*CPU+16*RAM) of it.
  const cpuShare = (4 * CPU) / (4 * CPU + 16 * RAM);
  const perCore = (0.2 * cpuShare) / 4;
  const perGiB = (0.2 * (1 - cpuShare)) / 16;
  const aCpu = 48 * 1 * perCore; // max(1, 0.5) core, 48 container-hours
  const aMem = 48 * 3 * perGiB; // max(2, 3) GiB
  const bCpu = 24 * 0.75 * perCore; // max(0.25, 0.75)
  const bMem = 24 * 1 * perGiB; // max(0, 1)
  const system = 48 * (0.2 * perCore + 2 * perGiB); // capacity - allocatable: 0.2 core, 2 GiB

  it('charges each namespace max(request, usage) of CPU and memory at the node-hour rate', () => {
    const a = result.rows.find((r) => r.name === 'a')!;
    const b = result.rows.find((r) => r.name === 'b')!;
    expectCents(a.cpuCost, aCpu);
    expectCents(a.memoryCost, aMem);
    expectCents(b.cpuCost, bCpu);
    expectCents(b.memoryCost, bMem);
    expect(a.cpuCoreHours).toBe(48);
    expect(a.memoryGiBHours).toBe(144);
    expect(b.cpuCoreHours).toBe(18);
  });

  it('puts capacity minus allocatable in system, the cluster resource in service, the rest in idle', () => {
    expectCents(result.system, system);
    expect(result.service).toBe(2.4);
    expect(result.unallocated).toBe(0);
    expect(result.idle).toHaveLength(1);
    expect(result.idle[0]!.resourceId).toBe(POOL);
    expect(result.idle[0]!.pool).toBe('np1');
    expectCents(result.idle[0]!.totalCost, 9.6 - system - aCpu - aMem - bCpu - bMem);
  });

  it('adds up to the bill to the cent', () => {
    expect(result.billedCost).toBe(12);
    const sum =
      result.rows.reduce((s, r) => s + Math.round(r.totalCost * 100), 0) +
      result.idle.reduce((s, r) => s + Math.round(r.totalCost * 100), 0) +
      Math.round(result.system * 100) +
      Math.round(result.service * 100) +
      Math.round(result.unallocated * 100);
    expect(sum).toBe(1200);
  });
});

describe('unallocated: node-hours the bill has and the agent did not see', () => {
  it('leaves an agent outage hour unallocated at the pool rate', () => {
    const nodes = hours.filter((h) => h !== 5).flatMap((h) => [node(h, 'n1'), node(h, 'n2')]);
    const r = allocate(
      [day({ pools: [{ poolId: POOL, poolName: 'np1', cost: 9.6, billedHours: 48 }], nodeHours: nodes })],
      opts,
    );
    // 2 node-hours of 0.20 were not seen.
    expect(r.unallocated).toBe(0.4);
    expect(r.idle[0]!.totalCost + r.system).toBeCloseTo(9.2, 2);
  });

  it('without a billed quantity, assumes the missing hours ran the seen hours average', () => {
    const nodes = hours.filter((h) => h < 12).flatMap((h) => [node(h, 'n1'), node(h, 'n2')]);
    const r = allocate(
      [
        day({
          pools: [{ poolId: POOL, poolName: 'np1', cost: 9.6, billedHours: null }],
          // the agent reported hours 0..11 only (another pool's node gives the same 12 hours)
          nodeHours: nodes,
        }),
      ],
      opts,
    );
    expect(r.unallocated).toBe(4.8);
  });

  it('puts a pool billed with no node seen all day in unallocated', () => {
    const r = allocate(
      [
        day({
          pools: [
            { poolId: POOL, poolName: 'np1', cost: 9.6, billedHours: 48 },
            { poolId: POOL2, poolName: 'np2', cost: 3.33, billedHours: 10 },
          ],
          nodeHours: hours.map((h) => node(h, 'n1')),
        }),
      ],
      opts,
    );
    // np1: 24 of 48 hours seen (4.80), np2 none (3.33)
    expect(r.unallocated).toBe(8.13);
  });
});

describe('an autoscaled pool', () => {
  it('spreads the day over the instance-hours that ran, whatever the node count per hour', () => {
    // 2 nodes all day, a third from 08:00 to 17:59 (10 h): 58 instance-hours billed 11.60.
    const nodes = hours.flatMap((h) =>
      h >= 8 && h < 18 ? [node(h, 'n1'), node(h, 'n2'), node(h, 'n3')] : [node(h, 'n1'), node(h, 'n2')],
    );
    const busy = hours.filter((h) => h >= 8 && h < 18).map((h) => ctr(h, 'n3', 'burst'));
    const r = allocate(
      [
        day({
          pools: [{ poolId: POOL, poolName: 'np1', cost: 11.6, billedHours: 58 }],
          nodeHours: nodes,
          charges: chargesOf(busy),
        }),
      ],
      opts,
    );
    const cpuShare = (4 * CPU) / (4 * CPU + 16 * RAM);
    const perCore = (0.2 * cpuShare) / 4;
    const perGiB = (0.2 * (1 - cpuShare)) / 16;
    const burst = r.rows.find((x) => x.name === 'burst')!;
    expectCents(burst.totalCost, 10 * (perCore + 3 * perGiB));
    expect(r.unallocated).toBe(0);
  });

  it('a node-hour seen for part of the hour costs that part', () => {
    const r = allocate(
      [
        day({
          pools: [{ poolId: POOL, poolName: 'np1', cost: 1, billedHours: 2 }],
          nodeHours: [node(0, 'n1'), node(1, 'n1', POOL, { seen: 0.5 })],
        }),
      ],
      opts,
    );
    expect(r.unallocated).toBe(0.25);
  });
});

describe('containers asking more than the node can give', () => {
  it('are charged at most the allocatable, so idle never goes negative', () => {
    const r = allocate(
      [
        day({
          pools: [{ poolId: POOL, poolName: 'np1', cost: 0.2, billedHours: 1 }],
          nodeHours: [node(0, 'n1')],
          charges: chargesOf([
            ctr(0, 'n1', 'a', { cpuRequestCores: 3, memoryRequestBytes: 10 * GiB }),
            ctr(0, 'n1', 'b', { cpuRequestCores: 3, memoryRequestBytes: 10 * GiB }),
          ]),
        }),
      ],
      opts,
    );
    // Both ask 3 of 3.8 cores and 10 of 14 GiB: each gets half the allocatable.
    const cpuShare = (4 * CPU) / (4 * CPU + 16 * RAM);
    const half = (0.2 * cpuShare * 3.8) / 4 / 2 + (0.2 * (1 - cpuShare) * 14) / 16 / 2;
    for (const name of ['a', 'b']) {
      expectCents(r.rows.find((x) => x.name === name)!.totalCost, half);
    }
    expect(r.idle[0]!.totalCost).toBeCloseTo(0, 2);
  });
});

describe('shared namespaces', () => {
  // a costs 2x what b costs; kube-system costs k.
  const build = () => {
    const nodes = [node(0, 'n1')];
    const charges = chargesOf([
      ctr(0, 'n1', 'a', { cpuRequestCores: 1, memoryRequestBytes: 2 * GiB, memoryUsageBytes: 0 }),
      ctr(0, 'n1', 'b', {
        cpuRequestCores: 0.5,
        cpuUsageCores: 0,
        memoryRequestBytes: GiB,
        memoryUsageBytes: 0,
      }),
      ctr(0, 'n1', 'b', { cpuRequestCores: 0, cpuUsageCores: 0, memoryRequestBytes: 0, memoryUsageBytes: 0 }),
      ctr(0, 'n1', 'kube-system', { cpuRequestCores: 1.5, memoryRequestBytes: 3 * GiB, memoryUsageBytes: 0 }),
    ]);
    return [
      day({
        pools: [{ poolId: POOL, poolName: 'np1', cost: 100, billedHours: 1 }],
        nodeHours: nodes,
        charges,
      }),
    ];
  };
  const cpuShare = (4 * CPU) / (4 * CPU + 16 * RAM);
  const unit = (cores: number, gib: number) =>
    (100 * cpuShare * cores) / 4 + (100 * (1 - cpuShare) * gib) / 16;
  const a = unit(1, 2);
  const b = unit(0.5, 1);
  const k = unit(1.5, 3);

  it('are split over the others by their cost (weighted)', () => {
    const r = allocate(build(), { sharedNamespaces: ['kube-system'], shareMode: 'weighted' });
    expect(r.rows.map((x) => x.name).sort()).toEqual(['a', 'b']);
    expectCents(r.rows.find((x) => x.name === 'a')!.totalCost, a + (k * a) / (a + b));
    expectCents(r.rows.find((x) => x.name === 'b')!.totalCost, b + (k * b) / (a + b));
  });

  it('are split evenly over the other namespaces', () => {
    const r = allocate(build(), { sharedNamespaces: ['kube-system'], shareMode: 'even' });
    expectCents(r.rows.find((x) => x.name === 'a')!.totalCost, a + k / 2);
    expectCents(r.rows.find((x) => x.name === 'b')!.totalCost, b + k / 2);
  });

  it('stay rows of their own when nothing is shared', () => {
    const r = allocate(build(), opts);
    expectCents(r.rows.find((x) => x.name === 'kube-system')!.totalCost, k);
  });
});

describe('disks', () => {
  it("charge a PV disk to its claim's namespace and leave an unclaimed one unallocated", () => {
    const r = allocate(
      [
        day({
          disks: [
            { resourceId: 'd1', cost: 1.234, namespace: 'db', row: 'db' },
            { resourceId: 'd2', cost: 0.5, namespace: null, row: null },
          ],
        }),
      ],
      opts,
    );
    expect(r.rows).toEqual([
      {
        name: 'db',
        cpuCost: 0,
        memoryCost: 0,
        storageCost: 1.23,
        totalCost: 1.23,
        cpuCoreHours: 0,
        memoryGiBHours: 0,
      },
    ]);
    expect(r.unallocated).toBe(0.5);
    expect(r.billedCost).toBe(1.73);
  });
});

describe('reconciliation to the cent', () => {
  it('holds on every day of awkward bills, split many ways', () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const days: AllocationDay[] = [];
    for (let d = 0; d < 20; d++) {
      const nodeHours: NodeHour[] = [];
      const containers: ContainerHour[] = [];
      for (const h of hours) {
        if (rand() < 0.05) continue; // agent outage
        for (let n = 0; n < 3 + Math.floor(rand() * 3); n++) {
          nodeHours.push(node(h, `n${n}`, n % 2 ? POOL2 : POOL));
          for (let c = 0; c < 7; c++) {
            containers.push(
              ctr(h, `n${n}`, `ns${c % 5}`, {
                row: `ns${c % 5}/w${c}`,
                cpuRequestCores: rand() * 0.7,
                cpuUsageCores: rand() * 0.6,
                memoryRequestBytes: rand() * 2 * GiB,
                memoryUsageBytes: rand() * 2.5 * GiB,
              }),
            );
          }
        }
      }
      days.push(
        day({
          day: `2026-11-${String(d + 1).padStart(2, '0')}`,
          pools: [
            {
              poolId: POOL,
              poolName: 'np1',
              cost: 10 + rand() * 20,
              billedHours: 60 + Math.floor(rand() * 20),
            },
            { poolId: POOL2, poolName: 'np2', cost: rand() * 9.999999, billedHours: null },
          ],
          clusterCost: 2.4 + rand() / 1000,
          networkCost: rand() * 0.123456,
          disks: [
            { resourceId: 'd1', cost: rand() * 0.3333333, namespace: 'ns1', row: 'ns1/w1' },
            { resourceId: 'd2', cost: rand() * 0.7777777, namespace: 'kube-system', row: 'kube-system/x' },
            { resourceId: 'd3', cost: rand() * 0.1111111, namespace: null, row: null },
          ],
          nodeHours,
          charges: chargesOf(containers),
        }),
      );
    }
    for (const shareMode of ['weighted', 'even'] as const) {
      const r = allocate(days, { sharedNamespaces: ['kube-system', 'ns0'], shareMode });
      for (const [i, d] of r.days.entries()) {
        const src = days[i]!;
        const billedMicros =
          Math.round(src.clusterCost * 1e6) +
          Math.round(src.networkCost * 1e6) +
          src.pools.reduce((s, p) => s + Math.round(p.cost * 1e6), 0) +
          src.disks.reduce((s, x) => s + Math.round(x.cost * 1e6), 0);
        const billedCents = Math.round(billedMicros / 1e4);
        expect(Math.round(d.billedCost * 100)).toBe(billedCents);
        const parts = [d.allocated, d.idle, d.system, d.service, d.unallocated].reduce(
          (s, x) => s + Math.round(x * 100),
          0,
        );
        expect(parts).toBe(billedCents);
      }
      const total =
        r.rows.reduce((s, x) => s + Math.round(x.totalCost * 100), 0) +
        r.idle.reduce((s, x) => s + Math.round(x.totalCost * 100), 0) +
        Math.round((r.system + r.service + r.unallocated) * 100);
      expect(total).toBe(Math.round(r.billedCost * 100));
      for (const row of r.rows) {
        expect(Math.round(row.totalCost * 100)).toBe(
          Math.round(row.cpuCost * 100) +
            Math.round(row.memoryCost * 100) +
            Math.round(row.storageCost * 100),
        );
      }
    }
  });
});

describe('roundToTarget', () => {
  it('gives the missing cents to the largest remainders', () => {
    expect(roundToTarget([33.4, 33.3, 33.3], 100)).toEqual([34, 33, 33]);
    expect(roundToTarget([10.6, 20.6, 0.8], 32)).toEqual([10, 21, 1]);
    expect(roundToTarget([-0.4, 5.4], 5)).toEqual([0, 5]);
  });
});
