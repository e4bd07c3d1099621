/**
 * Cost Management Query (2023-11-01) semantics over a synthetic subscription: timeframes,
 * Daily/None granularity, Sum aggregations and up to two Dimension groupings.
 */
import type { SimCostType } from './aks.js';
import { dayNumber, usageDate } from './days.js';
import { resourceDayCost, resourceDayQuantity, type SimSubscription } from './subscription.js';

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
  type: SimCostType;
  fromDay: number;
  toDay: number;
  daily: boolean;
  aggregations: string[];
  /** Parallel to `aggregations`: true where it sums UsageQuantity rather than cost. */
  quantity: boolean[];
  /** dataset.filter, when given: which resources the query covers. */
  filter?: (sub: SimSubscription, i: number) => boolean;
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
  const filter = dataset['filter'] === undefined ? undefined : parseFilter(dataset['filter']);
  const aggregation = asRecord(dataset['aggregation']) ?? {};
  const quantity: boolean[] = [];
  const aggregations = Object.entries(aggregation).map(([alias, def]) => {
    const d = asRecord(def);
    const name = String(d?.['name']).toLowerCase();
    if (d?.['function'] !== 'Sum' || !(COST_MEASURES.has(name) || name === 'usagequantity')) {
      throw new CostQueryError('BadRequest', `Unsupported aggregation '${alias}'.`);
    }
    quantity.push(name === 'usagequantity');
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
  return {
    type: type as SimCostType,
    fromDay,
    toDay: Math.min(toDay, today),
    daily: granularity === 'Daily',
    aggregations,
    quantity,
    groupings,
    ...(filter ? { filter } : {}),
  };
}

/**
 * The subset of dataset.filter we serve: `dimensions` with operator In (case-insensitive, as the
 * service compares ids and group names), combined with `and` / `or`.
 */
function parseFilter(value: unknown): (sub: SimSubscription, i: number) => boolean {
  const f = asRecord(value);
  if (!f) throw new CostQueryError('BadRequest', 'Invalid dataset.filter.');
  for (const op of ['and', 'or'] as const) {
    if (f[op] !== undefined) {
      const parts = Array.isArray(f[op]) ? (f[op] as unknown[]).map(parseFilter) : [];
      if (parts.length < 2)
        throw new CostQueryError('BadRequest', `A filter '${op}' needs two or more parts.`);
      return op === 'and'
        ? (sub, i) => parts.every((p) => p(sub, i))
        : (sub, i) => parts.some((p) => p(sub, i));
    }
  }
  const dim = asRecord(f['dimensions']);
  const get = dim ? DIMENSIONS[String(dim['name']).toLowerCase()] : undefined;
  if (!dim || !get || dim['operator'] !== 'In' || !Array.isArray(dim['values'])) {
    throw new CostQueryError('BadRequest', 'The simulator serves dimension filters with operator In only.');
  }
  const values = new Set((dim['values'] as unknown[]).map((v) => String(v).toLowerCase()));
  return (sub, i) => values.has(get(sub, i).toLowerCase());
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
  const included = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    included[i] = !q.filter || q.filter(sub, i) ? 1 : 0;
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
  const withQuantity = q.quantity.some(Boolean);
  const order = groupKeys.map((_, i) => i).sort((a, b) => compareKeys(groupKeys[a]!, groupKeys[b]!));
  const costs: number[] = [];
  const quantities: number[] = [];
  const days: number[] = [];
  const groups: number[] = [];
  const emit = (sums: Float64Array, qty: Float64Array, day: number) => {
    for (const gi of order) {
      const total = sums[gi] ?? 0;
      if (total === 0 && (qty[gi] ?? 0) === 0) continue;
      costs.push(total);
      quantities.push(qty[gi] ?? 0);
      days.push(day);
      groups.push(gi);
    }
  };
  let sums = new Float64Array(groupKeys.length);
  let qty = new Float64Array(groupKeys.length);
  for (let day = q.fromDay; day <= q.toDay; day++) {
    for (let i = 0; i < n; i++) {
      if (!included[i]) continue;
      const c = resourceDayCost(sub, i, day, q.type);
      if (c !== 0) sums[groupIndex[i]!] = (sums[groupIndex[i]!] ?? 0) + c;
      if (withQuantity) {
        const u = resourceDayQuantity(sub, i, day);
        if (u !== 0) qty[groupIndex[i]!] = (qty[groupIndex[i]!] ?? 0) + u;
      }
    }
    if (q.daily) {
      emit(sums, qty, day);
      sums = new Float64Array(groupKeys.length);
      qty = new Float64Array(groupKeys.length);
    }
  }
  if (!q.daily) emit(sums, qty, -1);
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
        const row: Array<string | number> = q.quantity.map((isQty) => (isQty ? quantities[r]! : total));
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
