/**
 * The days a metrics store sums in its database, put together from the rows its read returns (the
 * PostgreSQL and the ClickHouse store answer the same row shapes): node-hours per hour and class,
 * and charges per day, class, namespace and row, each charge on one node-hour of its class that day.
 */
import { type NodeHourRow, nodeHourOf, type RowKey, type SummedDay } from './usage-source.js';

const DAY_MS = 86_400_000;

/** A class's node-hours of one hour (d: day of the read, h: hour of the read). */
export interface SummedNodeRow extends Omit<NodeHourRow, 'node' | 'seen'> {
  d: number;
  /** The class: scale set, pool, VM size, capacity and allocatable (the rates depend on nothing else). */
  k: string;
  /** Its node-hours added up. */
  a: number;
}

/** A class's charges of one day to one (namespace, row), already capped: core-hours (a) and byte-hours (b). */
export interface SummedChargeRow {
  d: number;
  k: string;
  namespace: string;
  row: string;
  a: number | null;
  b: number | null;
}

export class SummedDays {
  /** Where a class's charges go: one of its node-hours that day (all have the same rates). */
  private readonly firstHour = new Map<string, number>();

  constructor(
    private readonly start: Date,
    private readonly row: RowKey,
    readonly out: Map<string, SummedDay>,
  ) {}

  private dayAt(d: number): SummedDay {
    const key = new Date(this.start.getTime() + d * DAY_MS).toISOString().slice(0, 10);
    let e = this.out.get(key);
    if (!e) {
      e = { nodeHours: [], charges: [] };
      this.out.set(key, e);
    }
    return e;
  }

  /** Node rows first: a charge goes on a node-hour of its class. */
  nodeHours(r: SummedNodeRow): void {
    const hour = r.h - r.d * 24;
    this.dayAt(r.d).nodeHours.push(nodeHourOf({ ...r, h: hour, node: r.k, seen: r.a }));
    const fk = `${r.d}|${r.k}`;
    this.firstHour.set(fk, Math.min(this.firstHour.get(fk) ?? 24, hour));
  }

  charge(r: SummedChargeRow): void {
    const hour = this.firstHour.get(`${r.d}|${r.k}`);
    if (hour === undefined) return;
    this.dayAt(r.d).charges.push({
      hour,
      node: r.k,
      namespace: r.namespace,
      // By node pool: the class names its pool (see service.ts).
      row: this.row.kind === 'node' ? r.k : r.row,
      cpuCoreHours: r.a ?? 0,
      memoryByteHours: r.b ?? 0,
    });
  }
}
