/**
 * Day and month partitions of the sample tables: their names, ranges and the SQL that creates and
 * lists them. Retention drops whole partitions (DROP TABLE is instant and returns the space at
 * once, where a DELETE would leave dead rows for vacuum to find).
 */
import type { Level, SampleKind } from './tables.js';
import { PARTITION_WIDTH, rawBound, tableName } from './tables.js';

const DAY_MS = 86_400_000;

export interface PartitionRange {
  /** Partition table name, e.g. pod_raw_p20261127 or pod_1h_p202611. */
  name: string;
  from: Date;
  to: Date;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** The partition of a level's table that holds the instant `t`. */
export function partitionFor(kind: SampleKind, level: Level, t: Date): PartitionRange {
  const table = tableName(kind, level);
  const y = t.getUTCFullYear();
  const m = t.getUTCMonth();
  if (PARTITION_WIDTH[level] === 'month') {
    return {
      name: `${table}_p${y}${pad(m + 1)}`,
      from: new Date(Date.UTC(y, m, 1)),
      to: new Date(Date.UTC(y, m + 1, 1)),
    };
  }
  const from = new Date(Date.UTC(y, m, t.getUTCDate()));
  return {
    name: `${table}_p${y}${pad(m + 1)}${pad(t.getUTCDate())}`,
    from,
    to: new Date(from.getTime() + DAY_MS),
  };
}

/** The range a partition's name stands for (undefined: not one of ours). */
export function rangeOfName(kind: SampleKind, level: Level, name: string): PartitionRange | undefined {
  const prefix = `${tableName(kind, level)}_p`;
  if (!name.startsWith(prefix)) return undefined;
  const digits = name.slice(prefix.length);
  const width = PARTITION_WIDTH[level];
  if (!(width === 'month' ? /^\d{6}$/ : /^\d{8}$/).test(digits)) return undefined;
  const y = Number(digits.slice(0, 4));
  const m = Number(digits.slice(4, 6)) - 1;
  const d = width === 'month' ? 1 : Number(digits.slice(6, 8));
  return partitionFor(kind, level, new Date(Date.UTC(y, m, d)));
}

/** A partition's bounds as its table's key holds them: raw seconds (tables.ts), or times. */
function bound(level: Level, t: Date): string {
  return level === 'raw' ? String(rawBound(t)) : `'${t.toISOString()}'`;
}

export function createPartitionSql(kind: SampleKind, level: Level, p: PartitionRange): string {
  return (
    `CREATE TABLE IF NOT EXISTS metrics.${p.name} PARTITION OF metrics.${tableName(kind, level)} ` +
    `FOR VALUES FROM (${bound(level, p.from)}) TO (${bound(level, p.to)})`
  );
}

/** Lists the partitions of every sample table: its table (`parent`) and its name, which says the range. */
export function listPartitionsSql(): string {
  return `SELECT p.relname AS parent, c.relname AS name
            FROM pg_inherits i
            JOIN pg_class c ON c.oid = i.inhrelid
            JOIN pg_class p ON p.oid = i.inhparent
            JOIN pg_namespace n ON n.oid = p.relnamespace
           WHERE n.nspname = 'metrics'
           ORDER BY c.relname`;
}

/** The partitions of one level's table among listPartitionsSql's rows, oldest first. */
export function partitionsIn(
  rows: Array<{ parent: string; name: string }>,
  kind: SampleKind,
  level: Level,
): PartitionRange[] {
  const table = tableName(kind, level);
  return rows
    .filter((r) => r.parent === table)
    .map((r) => rangeOfName(kind, level, r.name))
    .filter((p): p is PartitionRange => !!p);
}

/** Every partition (of a level) a window touches, oldest first. */
export function partitionsBetween(kind: SampleKind, level: Level, from: Date, to: Date): PartitionRange[] {
  const out: PartitionRange[] = [];
  let p = partitionFor(kind, level, from);
  while (p.from.getTime() <= to.getTime()) {
    out.push(p);
    p = partitionFor(kind, level, p.to);
  }
  return out;
}
