/**
 * Cost Management Query (2023-11-01) semantics over a synthetic subscription: timeframes,
 * Daily/None granularity, Sum aggregations and up to two Dimension groupings.
 */
import { dayNumber, resourceDayCost, type SimSubscription, usageDate } from './data.js';

export class CostQueryError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CostColumn {
  name: string;
  type: 'Number' | 'String';
}

export interface CostResult {
  columns: CostColumn[];
  rows: Array<Array<string | number>>;
}

/** A computed result kept compactly (numbers only) between pages; rows are built per page. */
export interface CostTable {
  columns: CostColumn[];
  length: number;
  slice(start: number, end: number): Array<Array<string | number>>;
}

const COST_MEASURES = new Set(['cost', 'pretaxcost', 'costusd', 'pretaxcostusd']);

/** Dimension name (lower case) → how a resource answers it. */
const DIMENSIONS: Record<string, (sub: SimSubscription, i: number) => string> = {
  resourcegroupname: (s, i) => s.resources[i]?.resourceGroup ?? '',
  resourcegroup: (s, i) => s.resources[i]?.resourceGroup ?? '',
  servicename: (s, i) => s.billing[i]?.serviceName ?? '',
  metercategory: (s, i) => s.billing[i]?.serviceName ?? '',
  resourceid: (s, i) => (s.resources[i]?.id ?? '').toLowerCase(),
  resourcetype: (s, i) => s.billing[i]?.resourceType ?? '',
  resourcelocation: (s, i) => s.resources[i]?.location ?? '',
  subscriptionid: (s) => s.subscriptionId,
};

interface ParsedQuery {
  fromDay: number;
  toDay: number;
  daily: boolean;
  aggregations: string[];
  groupings: Array<{ column: string; get: (sub: SimSubscription, i: number) => string }>;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function parseDay(value: unknown, what: string): number {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw new CostQueryError('BadRequest', `Invalid ${what} in timePeriod.`);
  }
  return dayNumber(new Date(value));
}

/** Validates a query body the way the service does (the subset we serve) and resolves its period. */
export function parseCostQuery(body: unknown, now: Date): ParsedQuery {
  const b = asRecord(body);
  if (!b) throw new CostQueryError('BadRequest', 'Request body is required.');
  const type = String(b['type'] ?? '');
  if (!['Usage', 'ActualCost', 'AmortizedCost'].includes(type)) {
    throw new CostQueryError('BadRequest', `Invalid query type '${type}'.`);
  }
  const today = dayNumber(now);
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  let fromDay: number;
  let toDay: number;
  switch (b['timeframe']) {
    case 'MonthToDate':
      fromDay = dayNumber(new Date(Date.UTC(y, m, 1)));
      toDay = today;
      break;
    case 'TheLastMonth':
      fromDay = dayNumber(new Date(Date.UTC(y, m - 1, 1)));
      toDay = dayNumber(new Date(Date.UTC(y, m, 0)));
      break;
    case 'Custom': {
      const tp = asRecord(b['timePeriod']);
      if (!tp) throw new CostQueryError('BadRequest', 'timePeriod is required for a Custom timeframe.');
      fromDay = parseDay(tp['from'], 'from');
      toDay = parseDay(tp['to'], 'to');
      if (toDay < fromDay) throw new CostQueryError('BadRequest', 'timePeriod.to is before timePeriod.from.');
      if (toDay - fromDay > 366)
        throw new CostQueryError('BadRequest', 'The time period cannot exceed one year.');
      break;
    }
    default:
      throw new CostQueryError('BadRequest', `Unsupported timeframe '${String(b['timeframe'])}'.`);
  }
  const dataset = asRecord(b['dataset']);
  if (!dataset) throw new CostQueryError('BadRequest', 'dataset is required.');
  const granularity = dataset['granularity'] ?? 'None';
  if (granularity !== 'Daily' && granularity !== 'None') {
    throw new CostQueryError('BadRequest', `Unsupported granularity '${String(granularity)}'.`);
  }
  if (dataset['filter'] !== undefined) {
    throw new CostQueryError('BadRequest', 'The simulator does not implement dataset.filter.');
  }
  const aggregation = asRecord(dataset['aggregation']) ?? {};
  const aggregations = Object.entries(aggregation).map(([alias, def]) => {
    const d = asRecord(def);
    if (d?.['function'] !== 'Sum' || !COST_MEASURES.has(String(d['name']).toLowerCase())) {
      throw new CostQueryError('BadRequest', `Unsupported aggregation '${alias}'.`);
    }
    return alias;
  });
  if (aggregations.length === 0 || aggregations.length > 2) {
    throw new CostQueryError('BadRequest', 'Between one and two aggregations are required.');
  }
  const grouping = Array.isArray(dataset['grouping']) ? (dataset['grouping'] as unknown[]) : [];
  if (grouping.length > 2) throw new CostQueryError('BadRequest', 'At most two groupings are allowed.');
  const groupings = grouping.map((g) => {
    const d = asRecord(g);
    const name = String(d?.['name'] ?? '');
    const get = DIMENSIONS[name.toLowerCase()];
    if (d?.['type'] !== 'Dimension' || !get) {
      throw new CostQueryError('BadRequest', `Unsupported grouping '${name}'.`);
    }
    return { column: name, get };
  });
  return { fromDay, toDay: Math.min(toDay, today), daily: granularity === 'Daily', aggregations, groupings };
}

/**
 * Runs a parsed query. Columns in the service's order: aggregations, UsageDate (daily), groupings,
 * Currency. Rows sorted by date then group values; groups whose cost is zero are left out.
 */
export function runCostQuery(sub: SimSubscription, q: ParsedQuery): CostTable {
  const n = sub.resources.length;
  const groupIndex = new Int32Array(n);
  const groupKeys: string[][] = [];
  const keyToIndex = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const values = q.groupings.map((g) => g.get(sub, i));
    const key = values.join('\u0000');
    let gi = keyToIndex.get(key);
    if (gi === undefined) {
      gi = groupKeys.length;
      keyToIndex.set(key, gi);
      groupKeys.push(values);
    }
    groupIndex[i] = gi;
  }
  const order = groupKeys.map((_, i) => i).sort((a, b) => compareKeys(groupKeys[a]!, groupKeys[b]!));
  const costs: number[] = [];
  const days: number[] = [];
  const groups: number[] = [];
  const emit = (sums: Float64Array, day: number) => {
    for (const gi of order) {
      const total = sums[gi] ?? 0;
      if (total === 0) continue;
      costs.push(total);
      days.push(day);
      groups.push(gi);
    }
  };
  let sums = new Float64Array(groupKeys.length);
  for (let day = q.fromDay; day <= q.toDay; day++) {
    for (let i = 0; i < n; i++) {
      const c = resourceDayCost(sub, i, day);
      if (c !== 0) sums[groupIndex[i]!] = (sums[groupIndex[i]!] ?? 0) + c;
    }
    if (q.daily) {
      emit(sums, day);
      sums = new Float64Array(groupKeys.length);
    }
  }
  if (!q.daily) emit(sums, -1);
  const columns: CostColumn[] = [
    ...q.aggregations.map((name) => ({ name, type: 'Number' as const })),
    ...(q.daily ? [{ name: 'UsageDate', type: 'Number' as const }] : []),
    ...q.groupings.map((g) => ({ name: g.column, type: 'String' as const })),
    { name: 'Currency', type: 'String' },
  ];
  return {
    columns,
    length: costs.length,
    slice(start, end) {
      const rows: Array<Array<string | number>> = [];
      for (let r = start; r < Math.min(end, costs.length); r++) {
        const total = costs[r]!;
        const row: Array<string | number> = q.aggregations.map(() => total);
        if (q.daily) row.push(usageDate(days[r]!));
        row.push(...(groupKeys[groups[r]!] ?? []), sub.currency);
        rows.push(row);
      }
      return rows;
    },
  };
}

function compareKeys(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Reorders columns (and every row with them): the simulator's switch to test reading by name. */
export function reorderColumns(result: CostResult, order: 'reversed' | 'rotated'): CostResult {
  const idx = result.columns.map((_, i) => i);
  const perm = order === 'reversed' ? idx.reverse() : [...idx.slice(1), ...idx.slice(0, 1)];
  return {
    columns: perm.map((i) => result.columns[i]!),
    rows: result.rows.map((row) => perm.map((i) => row[i]!)),
  };
}
