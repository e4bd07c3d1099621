/** The allocation's rows as CSV (RFC 4180), for spreadsheets. */
import type { RowCost } from './allocation.js';

const COLUMNS = [
  'name',
  'cpuCost',
  'memoryCost',
  'storageCost',
  'totalCost',
  'cpuCoreHours',
  'memoryGiBHours',
] as const;

/**
 * A field as CSV: quoted when it holds a separator, quote or line break; a text starting with
 * = + - @ gets a leading apostrophe so a spreadsheet does not run it as a formula (a label value is
 * whatever a cluster user wrote).
 */
function field(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function allocationCsv(rows: readonly RowCost[]): string {
  const lines = [COLUMNS.join(',')];
  for (const r of rows) lines.push(COLUMNS.map((c) => field(r[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
