/**
 * The Kubernetes cost allocation: the OpenCost cost model applied to what Azure billed.
 *
 * Per day and node pool, the pool's billed cost (its scale set's actual or amortized cost) is spread
 * over the node-hours the pool ran; the node-hours the agent did not see stay `unallocated`. A seen
 * node-hour splits into CPU and memory by the VM size's price ratio; its capacity minus allocatable
 * is `system`; each container pays max(request, usage) of CPU and of memory; the rest of the
 * allocatable is the pool's `idle`. The cluster resource and its network (load balancers, public
 * IPs) are `service`; a disk goes to its claim's namespace, an unclaimed one is `unallocated`.
 * Shared namespaces are then spread over the others. Each day is rounded on its own, so its lines
 * add up to its bill to the cent (see cents.ts).
 *
 * Pure: plain inputs in, plain numbers out. Data access lives in the query modules.
 */
import { microsToCents, roundToTarget, toMicros } from './cents.js';

const GIB = 1024 ** 3;

/** OpenCost's default on-demand prices, used only for their ratio: per core-hour and per GiB-hour. */
export const DEFAULT_CPU_PER_CORE_HOUR = 0.031611;
export const DEFAULT_RAM_PER_GIB_HOUR = 0.004237;

export interface PriceRatio {
  cpuPerCoreHour: number;
  ramPerGiBHour: number;
}

/** A pool's bill for one day: its scale set(s) as one amount. */
export interface PoolBill {
  /** The scale set resource id, lower case: what ties a node (its provider id) to the bill. */
  poolId: string;
  /** The node pool's name (the agentpool label), for display. */
  poolName: string;
  cost: number;
  /** Instance-hours billed that day (the meter's quantity), when the bill says. */
  billedHours?: number | null;
}

/** A node in one hour of the day, as the agent saw it. */
export interface NodeHour {
  hour: number;
  node: string;
  poolId: string;
  cpuCapacityCores: number;
  memoryCapacityBytes: number;
  cpuAllocatableCores: number;
  memoryAllocatableBytes: number;
  /**
   * Part of the hour the node was seen (0..1]; 1 when omitted. A source that sums node-hours of the
   * same pool, capacity and allocatable gives their sum (every line is linear in it).
   */
  seen?: number;
  vmSize?: string | null;
}

/**
 * What the containers of one (namespace, row) asked of one node in one hour: the sums over its
 * containers of max(request, usage), in core-hours and byte-hours. Rows are the answer's aggregate
 * (a namespace, a workload, a label value...); the namespace is kept for the shared namespaces.
 */
export interface ChargeHour {
  hour: number;
  node: string;
  namespace: string;
  row: string;
  cpuCoreHours: number;
  memoryByteHours: number;
}

export interface DiskBill {
  resourceId: string;
  cost: number;
  /** The claim's namespace and the row it belongs to; null when no claim is known. */
  namespace: string | null;
  row: string | null;
}

export interface AllocationDay {
  day: string;
  /** Priced at retail rates because the bill has not closed. */
  estimated: boolean;
  pools: PoolBill[];
  /** The managed cluster resource's own cost (e.g. the Standard tier). */
  clusterCost: number;
  /** Load balancers and public IPs of the node resource group. */
  networkCost: number;
  disks: DiskBill[];
  nodeHours: NodeHour[];
  charges: ChargeHour[];
  /**
   * The charges are already capped at each node-hour's allocatable and summed over the node-hours
   * of the same pool, capacity and allocatable, each sum on one of those node-hours (a store that
   * sums in SQL).
   * The rates are the same on all of them, so the rows and each pool's idle come out the same.
   */
  precapped?: boolean;
}

export interface AllocationOptions {
  sharedNamespaces: readonly string[];
  shareMode: 'weighted' | 'even';
  /** The CPU:memory price ratio of a VM size; the default one when it answers undefined. */
  priceRatio?: (vmSize: string | null | undefined) => PriceRatio | undefined;
}

export interface RowCost {
  name: string;
  cpuCost: number;
  memoryCost: number;
  storageCost: number;
  totalCost: number;
  cpuCoreHours: number;
  memoryGiBHours: number;
}

export interface IdleCost {
  pool: string;
  resourceId: string;
  cpuCost: number;
  memoryCost: number;
  totalCost: number;
}

export interface DayTotals {
  day: string;
  estimated: boolean;
  billedCost: number;
  allocated: number;
  idle: number;
  system: number;
  service: number;
  unallocated: number;
}

export interface AllocationResult {
  billedCost: number;
  rows: RowCost[];
  idle: IdleCost[];
  system: number;
  service: number;
  unallocated: number;
  estimatedDays: string[];
  days: DayTotals[];
}

/** One day's float lines before rounding, keyed so they can be rounded together. */
interface DayLines {
  rowCpu: Map<string, number>;
  rowMem: Map<string, number>;
  rowStorage: Map<string, number>;
  rowCoreHours: Map<string, number>;
  rowByteHours: Map<string, number>;
  idleCpu: Map<string, number>;
  idleMem: Map<string, number>;
  system: number;
  service: number;
  unallocated: number;
}

const SEP = '\u0000';

function add(map: Map<string, number>, key: string, v: number): void {
  map.set(key, (map.get(key) ?? 0) + v);
}

/** The day's lines in floating point (cents are applied later). */
export function allocateDayLines(day: AllocationDay, options: AllocationOptions): DayLines {
  const lines: DayLines = {
    rowCpu: new Map(),
    rowMem: new Map(),
    rowStorage: new Map(),
    rowCoreHours: new Map(),
    rowByteHours: new Map(),
    idleCpu: new Map(),
    idleMem: new Map(),
    system: 0,
    service: day.clusterCost + day.networkCost,
    unallocated: 0,
  };
  const bills = new Map<string, PoolBill>();
  for (const b of day.pools) {
    const prev = bills.get(b.poolId);
    if (prev) {
      bills.set(b.poolId, {
        ...prev,
        cost: prev.cost + b.cost,
        billedHours:
          prev.billedHours != null && b.billedHours != null ? prev.billedHours + b.billedHours : null,
      });
    } else bills.set(b.poolId, b);
  }

  // Node-hours seen per pool, and the hours of the day in which the agent reported at all (to
  // estimate a pool's hours when the bill has no quantity).
  const seenPerPool = new Map<string, number>();
  const agentHours = new Set<number>();
  for (const n of day.nodeHours) {
    agentHours.add(n.hour);
    add(seenPerPool, n.poolId, n.seen ?? 1);
  }

  // The cost of one node-hour, per pool: the bill over its hours (billed, or seen scaled up to the
  // whole day when the bill has no quantity), never over fewer hours than the agent saw.
  const ratePerPool = new Map<string, number>();
  for (const [poolId, bill] of bills) {
    const seen = seenPerPool.get(poolId) ?? 0;
    if (seen <= 0) {
      lines.unallocated += bill.cost;
      continue;
    }
    const hours =
      bill.billedHours != null && bill.billedHours > 0
        ? bill.billedHours
        : (seen * 24) / Math.max(1, agentHours.size);
    const rate = bill.cost / Math.max(hours, seen);
    ratePerPool.set(poolId, rate);
    lines.unallocated += bill.cost - rate * seen;
  }

  // Charges per node-hour, to cap them at the allocatable (usage can exceed it briefly).
  const chargeTotals = new Map<string, { cpu: number; mem: number }>();
  for (const c of day.charges) {
    const k = c.hour + SEP + c.node;
    const t = chargeTotals.get(k);
    if (t) {
      t.cpu += c.cpuCoreHours;
      t.mem += c.memoryByteHours;
    } else chargeTotals.set(k, { cpu: c.cpuCoreHours, mem: c.memoryByteHours });
  }

  interface NodeRate {
    cpuPerCoreHour: number;
    memPerByteHour: number;
    cpuScale: number;
    memScale: number;
  }
  const nodeRates = new Map<string, NodeRate>();
  for (const n of day.nodeHours) {
    const rate = ratePerPool.get(n.poolId);
    if (rate === undefined) continue; // a pool with no bill that day costs nothing
    const seen = n.seen ?? 1;
    const cost = rate * seen;
    const ratio = options.priceRatio?.(n.vmSize) ?? {
      cpuPerCoreHour: DEFAULT_CPU_PER_CORE_HOUR,
      ramPerGiBHour: DEFAULT_RAM_PER_GIB_HOUR,
    };
    const cpuWeight = n.cpuCapacityCores * ratio.cpuPerCoreHour;
    const memWeight = (n.memoryCapacityBytes / GIB) * ratio.ramPerGiBHour;
    const cpuPart = cpuWeight + memWeight > 0 ? cpuWeight / (cpuWeight + memWeight) : 0.5;
    const cpuCost = cost * cpuPart;
    const memCost = cost - cpuCost;
    const capCoreHours = n.cpuCapacityCores * seen;
    const capByteHours = n.memoryCapacityBytes * seen;
    const allocCoreHours = Math.min(n.cpuAllocatableCores, n.cpuCapacityCores) * seen;
    const allocByteHours = Math.min(n.memoryAllocatableBytes, n.memoryCapacityBytes) * seen;
    const cpuPerCoreHour = capCoreHours > 0 ? cpuCost / capCoreHours : 0;
    const memPerByteHour = capByteHours > 0 ? memCost / capByteHours : 0;
    // A node with no capacity reported: its whole cost is idle.
    const cpuSystem = capCoreHours > 0 ? (capCoreHours - allocCoreHours) * cpuPerCoreHour : 0;
    const memSystem = capByteHours > 0 ? (capByteHours - allocByteHours) * memPerByteHour : 0;
    lines.system += cpuSystem + memSystem;
    const charged = chargeTotals.get(n.hour + SEP + n.node) ?? { cpu: 0, mem: 0 };
    const cpuScale = !day.precapped && charged.cpu > allocCoreHours ? allocCoreHours / charged.cpu : 1;
    const memScale = !day.precapped && charged.mem > allocByteHours ? allocByteHours / charged.mem : 1;
    const cpuUsed = charged.cpu * cpuScale * cpuPerCoreHour;
    const memUsed = charged.mem * memScale * memPerByteHour;
    add(lines.idleCpu, n.poolId, cpuCost - cpuSystem - cpuUsed);
    add(lines.idleMem, n.poolId, memCost - memSystem - memUsed);
    nodeRates.set(n.hour + SEP + n.node, { cpuPerCoreHour, memPerByteHour, cpuScale, memScale });
  }

  // Container charges per (namespace, row).
  const unitCpu = new Map<string, number>();
  const unitMem = new Map<string, number>();
  const unitStorage = new Map<string, number>();
  const unitCoreHours = new Map<string, number>();
  const unitByteHours = new Map<string, number>();
  for (const c of day.charges) {
    const r = nodeRates.get(c.hour + SEP + c.node);
    if (!r) continue; // a node-hour with no billed pool: nothing to charge
    const unit = c.namespace + SEP + c.row;
    add(unitCpu, unit, c.cpuCoreHours * r.cpuScale * r.cpuPerCoreHour);
    add(unitMem, unit, c.memoryByteHours * r.memScale * r.memPerByteHour);
    // The hours charged: capped as the cost is, whichever source capped them.
    add(unitCoreHours, unit, c.cpuCoreHours * r.cpuScale);
    add(unitByteHours, unit, c.memoryByteHours * r.memScale);
  }
  for (const d of day.disks) {
    if (d.namespace === null || d.row === null) lines.unallocated += d.cost;
    else add(unitStorage, d.namespace + SEP + d.row, d.cost);
  }

  shareAndAggregate(lines, { unitCpu, unitMem, unitStorage, unitCoreHours, unitByteHours }, options);
  return lines;
}

/** Spreads the shared namespaces' units over the others, then sums the units into rows. */
function shareAndAggregate(
  lines: DayLines,
  unitMaps: {
    unitCpu: Map<string, number>;
    unitMem: Map<string, number>;
    unitStorage: Map<string, number>;
    unitCoreHours: Map<string, number>;
    unitByteHours: Map<string, number>;
  },
  options: AllocationOptions,
): void {
  const { unitCpu, unitMem, unitStorage, unitCoreHours, unitByteHours } = unitMaps;
  const shared = new Set(options.sharedNamespaces.map((n) => n.toLowerCase()));
  const units = new Set([...unitCpu.keys(), ...unitMem.keys(), ...unitStorage.keys()]);
  const total = (u: string) => (unitCpu.get(u) ?? 0) + (unitMem.get(u) ?? 0) + (unitStorage.get(u) ?? 0);
  const nsOf = (u: string) => u.slice(0, u.indexOf(SEP));
  const rowOf = (u: string) => u.slice(u.indexOf(SEP) + 1);
  const givers: string[] = [];
  const takers: string[] = [];
  for (const u of units) (shared.has(nsOf(u).toLowerCase()) ? givers : takers).push(u);

  // Each taker's part of the shared cost: by its own cost (weighted), or an equal part per
  // namespace, split inside the namespace by cost (or evenly when the namespace costs nothing).
  const part = new Map<string, number>();
  if (givers.length > 0 && takers.length > 0) {
    if (options.shareMode === 'weighted') {
      const sum = takers.reduce((s, u) => s + total(u), 0);
      for (const u of takers) part.set(u, sum > 0 ? total(u) / sum : 1 / takers.length);
    } else {
      const byNs = new Map<string, string[]>();
      for (const u of takers) {
        const list = byNs.get(nsOf(u));
        if (list) list.push(u);
        else byNs.set(nsOf(u), [u]);
      }
      for (const list of byNs.values()) {
        const sum = list.reduce((s, u) => s + total(u), 0);
        for (const u of list) part.set(u, (sum > 0 ? total(u) / sum : 1 / list.length) / byNs.size);
      }
    }
  }
  const sharedCpu = givers.reduce((s, u) => s + (unitCpu.get(u) ?? 0), 0);
  const sharedMem = givers.reduce((s, u) => s + (unitMem.get(u) ?? 0), 0);
  const sharedStorage = givers.reduce((s, u) => s + (unitStorage.get(u) ?? 0), 0);
  for (const u of units) {
    const row = rowOf(u);
    let cpu = unitCpu.get(u) ?? 0;
    let mem = unitMem.get(u) ?? 0;
    let storage = unitStorage.get(u) ?? 0;
    if (part.size > 0) {
      const p = part.get(u);
      if (p === undefined) continue; // a shared unit: its cost went to the takers
      cpu += sharedCpu * p;
      mem += sharedMem * p;
      storage += sharedStorage * p;
    }
    add(lines.rowCpu, row, cpu);
    add(lines.rowMem, row, mem);
    add(lines.rowStorage, row, storage);
    // Hours stay with the units that used them: a shared namespace's hours are not moved.
    add(lines.rowCoreHours, row, unitCoreHours.get(u) ?? 0);
    add(lines.rowByteHours, row, unitByteHours.get(u) ?? 0);
  }
}

/** The day's bill in cents: every billed amount summed exactly, rounded once. */
export function dayBilledCents(day: AllocationDay): number {
  let micros = toMicros(day.clusterCost) + toMicros(day.networkCost);
  for (const p of day.pools) micros += toMicros(p.cost);
  for (const d of day.disks) micros += toMicros(d.cost);
  return microsToCents(micros);
}

interface RoundedDay {
  rowCpu: Map<string, number>;
  rowMem: Map<string, number>;
  rowStorage: Map<string, number>;
  idleCpu: Map<string, number>;
  idleMem: Map<string, number>;
  system: number;
  service: number;
  unallocated: number;
  billed: number;
}

/** Rounds a day's lines to cents that add up to its bill exactly. */
export function roundDay(lines: DayLines, billedCents: number): RoundedDay {
  const maps = [lines.rowCpu, lines.rowMem, lines.rowStorage, lines.idleCpu, lines.idleMem];
  const values: number[] = [];
  for (const m of maps) for (const v of m.values()) values.push(v * 100);
  values.push(lines.system * 100, lines.service * 100, lines.unallocated * 100);
  const cents = roundToTarget(values, billedCents);
  let i = 0;
  const take = (m: Map<string, number>) => {
    const out = new Map<string, number>();
    for (const k of m.keys()) out.set(k, cents[i++]!);
    return out;
  };
  const [rowCpu, rowMem, rowStorage, idleCpu, idleMem] = maps.map(take) as [
    Map<string, number>,
    Map<string, number>,
    Map<string, number>,
    Map<string, number>,
    Map<string, number>,
  ];
  return {
    rowCpu,
    rowMem,
    rowStorage,
    idleCpu,
    idleMem,
    system: cents[i++]!,
    service: cents[i++]!,
    unallocated: cents[i++]!,
    billed: billedCents,
  };
}

const fromCents = (c: number) => c / 100;

/** Allocates every day and sums the rounded days: the answer's lines add up to its bill exactly. */
export function allocate(days: Iterable<AllocationDay>, options: AllocationOptions): AllocationResult {
  const acc = new Allocator(options);
  for (const day of days) acc.addDay(day);
  return acc.result();
}

/** The same as `allocate`, one day at a time (a month of a large cluster is read day by day). */
export class Allocator {
  private readonly rows = new Map<
    string,
    { cpu: number; mem: number; storage: number; coreHours: number; byteHours: number }
  >();
  private readonly idle = new Map<string, { cpu: number; mem: number }>();
  private readonly poolNames = new Map<string, string>();
  private system = 0;
  private service = 0;
  private unallocated = 0;
  private billed = 0;
  private readonly estimated: string[] = [];
  private readonly days: DayTotals[] = [];
  /** Each day's rows in cents, when asked for (the daily series of anomaly detection). */
  readonly dayRows = new Map<string, Map<string, number>>();

  constructor(
    private readonly options: AllocationOptions,
    private readonly keepDayRows = false,
  ) {}

  addDay(day: AllocationDay): void {
    for (const p of day.pools) this.poolNames.set(p.poolId, p.poolName);
    const lines = allocateDayLines(day, this.options);
    const r = roundDay(lines, dayBilledCents(day));
    const row = (name: string) => {
      let e = this.rows.get(name);
      if (!e) {
        e = { cpu: 0, mem: 0, storage: 0, coreHours: 0, byteHours: 0 };
        this.rows.set(name, e);
      }
      return e;
    };
    let allocated = 0;
    for (const [k, v] of r.rowCpu) {
      row(k).cpu += v;
      allocated += v;
    }
    for (const [k, v] of r.rowMem) {
      row(k).mem += v;
      allocated += v;
    }
    for (const [k, v] of r.rowStorage) {
      row(k).storage += v;
      allocated += v;
    }
    for (const [k, v] of lines.rowCoreHours) row(k).coreHours += v;
    for (const [k, v] of lines.rowByteHours) row(k).byteHours += v;
    let idle = 0;
    for (const [k, v] of r.idleCpu) {
      const e = this.idle.get(k) ?? { cpu: 0, mem: 0 };
      e.cpu += v;
      this.idle.set(k, e);
      idle += v;
    }
    for (const [k, v] of r.idleMem) {
      const e = this.idle.get(k) ?? { cpu: 0, mem: 0 };
      e.mem += v;
      this.idle.set(k, e);
      idle += v;
    }
    if (this.keepDayRows) {
      const rows = new Map<string, number>();
      for (const m of [r.rowCpu, r.rowMem, r.rowStorage])
        for (const [k, v] of m) rows.set(k, (rows.get(k) ?? 0) + v);
      this.dayRows.set(day.day, rows);
    }
    this.system += r.system;
    this.service += r.service;
    this.unallocated += r.unallocated;
    this.billed += r.billed;
    if (day.estimated) this.estimated.push(day.day);
    this.days.push({
      day: day.day,
      estimated: day.estimated,
      billedCost: fromCents(r.billed),
      allocated: fromCents(allocated),
      idle: fromCents(idle),
      system: fromCents(r.system),
      service: fromCents(r.service),
      unallocated: fromCents(r.unallocated),
    });
  }

  result(): AllocationResult {
    const rows: RowCost[] = [...this.rows]
      .map(([name, e]) => ({
        name,
        cpuCost: fromCents(e.cpu),
        memoryCost: fromCents(e.mem),
        storageCost: fromCents(e.storage),
        totalCost: fromCents(e.cpu + e.mem + e.storage),
        cpuCoreHours: round3(e.coreHours),
        memoryGiBHours: round3(e.byteHours / GIB),
      }))
      .sort((a, b) => b.totalCost - a.totalCost || a.name.localeCompare(b.name));
    const idle: IdleCost[] = [...this.idle]
      .map(([poolId, e]) => ({
        pool: this.poolNames.get(poolId) ?? poolId,
        resourceId: poolId,
        cpuCost: fromCents(e.cpu),
        memoryCost: fromCents(e.mem),
        totalCost: fromCents(e.cpu + e.mem),
      }))
      .sort((a, b) => a.pool.localeCompare(b.pool));
    return {
      billedCost: fromCents(this.billed),
      rows,
      idle,
      system: fromCents(this.system),
      service: fromCents(this.service),
      unallocated: fromCents(this.unallocated),
      estimatedDays: [...this.estimated].sort(),
      days: [...this.days].sort((a, b) => a.day.localeCompare(b.day)),
    };
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Sums raw container-hours into charges: max(request, usage) of CPU and memory, per row. */
export interface ContainerHour {
  hour: number;
  node: string;
  namespace: string;
  row: string;
  cpuRequestCores: number | null;
  cpuUsageCores: number;
  memoryRequestBytes: number | null;
  memoryUsageBytes: number;
  /** Part of the hour the container ran (0..1]; 1 when omitted. */
  seen?: number;
}

export function chargesOf(containers: Iterable<ContainerHour>): ChargeHour[] {
  const out = new Map<string, ChargeHour>();
  for (const c of containers) {
    const seen = c.seen ?? 1;
    const cpu = Math.max(c.cpuRequestCores ?? 0, c.cpuUsageCores) * seen;
    const mem = Math.max(c.memoryRequestBytes ?? 0, c.memoryUsageBytes) * seen;
    const k = c.hour + SEP + c.node + SEP + c.namespace + SEP + c.row;
    const e = out.get(k);
    if (e) {
      e.cpuCoreHours += cpu;
      e.memoryByteHours += mem;
    } else
      out.set(k, {
        hour: c.hour,
        node: c.node,
        namespace: c.namespace,
        row: c.row,
        cpuCoreHours: cpu,
        memoryByteHours: mem,
      });
  }
  return [...out.values()];
}
