import { get } from './api';
import type { SeriesPoint } from './components/SeriesChart';
import type { Anomaly } from './types';

interface Row {
  date: string;
  cost: number;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The daily series an anomaly was found on: the subscription's total, a resource group or a service. */
export async function anomalySeries(a: Anomaly, runId: number): Promise<SeriesPoint[]> {
  const base = `/finops/api/HistoricalCosts/analysis/${runId}`;
  let rows: Row[];
  if (a.scope.kind === 'subscription') {
    rows = await get<Row[]>(`${base}/daily-totals?page=1&pageSize=5000`);
  } else if (a.scope.kind === 'resourceGroup') {
    rows = await get<Row[]>(
      `${base}/by-resourcegroup?resourceGroup=${encodeURIComponent(a.scope.name)}&page=1&pageSize=5000`,
    );
  } else {
    rows = await get<Row[]>(
      `${base}/by-service?serviceName=${encodeURIComponent(a.scope.name)}&page=1&pageSize=5000`,
    );
  }
  const byDay = new Map<string, number>();
  for (const r of rows) byDay.set(r.date.slice(0, 10), (byDay.get(r.date.slice(0, 10)) ?? 0) + r.cost);
  const days = [...byDay.keys()].sort();
  const all = days.map((date) => ({ date, cost: byDay.get(date)! }));
  const at = days.indexOf(a.date);
  // Eight weeks before the anomaly and two after, as the detector judges a day on the weeks before it.
  const from = Math.max(0, (at < 0 ? all.length : at) - 56);
  const to = at < 0 ? all.length : Math.min(all.length, at + 15);
  return all.slice(from, to).map((p, i) => {
    // The same weekday over the eight weeks before: weekends are not outliers of a weekday series.
    const at = from + i;
    const same: number[] = [];
    for (let k = 1; k <= 8 && at - 7 * k >= 0; k++) same.push(all[at - 7 * k]!.cost);
    if (same.length < 3) return p;
    const m = median(same);
    // A floor of 5 % keeps the band visible on a very steady series.
    const dev = Math.max(1.4826 * median(same.map((v) => Math.abs(v - m))), 0.05 * m);
    return { ...p, band: [Math.max(0, m - 3 * dev), m + 3 * dev] as [number, number] };
  });
}
