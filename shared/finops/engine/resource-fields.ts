/** Reading Resource Graph rows the way the rules need: lenient paths and KQL-like emptiness. */

export function get(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    const rec = cur as Record<string, unknown>;
    // Resource Graph property names are camelCase, but be lenient about their case.
    const hit = key in rec ? key : Object.keys(rec).find((k) => k.toLowerCase() === key.toLowerCase());
    cur = hit === undefined ? undefined : rec[hit];
  }
  return cur;
}

/** KQL's isempty() extended to collections: absent, null, "", [] or {}. */
export function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v as object).length === 0;
  return false;
}

export const lower = (v: unknown): string => (typeof v === 'string' ? v.toLowerCase() : '');

export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const DAY_MS = 86_400_000;

/** Whole and fractional days from an ISO date-time property to `now`; undefined when absent. */
export function daysSince(value: unknown, now: Date): number | undefined {
  if (typeof value !== 'string') return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : (now.getTime() - t) / DAY_MS;
}
