// npm run bench -- anomalies: precision and recall of each anomaly kind at the default settings on
// a generated labelled set (bench/anomaly-set.ts), false alarms per 100 clean series-days, and the
// month-end forecast's error against the naive run rate.
import { loadavg } from 'node:os';
import { type AnomalyKind, DEFAULT_DETECT, detectAnomalies } from '../shared/finops/intel/detect.js';
import { forecastMonth, runRateForecast } from '../shared/finops/intel/forecast.js';
import { cleanSeries, labelledSet, rng } from './anomaly-set.js';

const PER_KIND = Number(process.env.BENCH_SERIES ?? 200);
const KINDS: AnomalyKind[] = ['spike', 'drop', 'newCost', 'removedCost', 'steadyGrowth'];

/** Days after the injected start on which a report still counts as finding it. */
function matches(kind: AnomalyKind, labelDay: number, day: number) {
  if (kind === 'steadyGrowth') return day >= labelDay + 7 && day <= labelDay + 42;
  return day >= labelDay && day <= labelDay + 2;
}

const set = labelledSet(PER_KIND);
const t0 = performance.now();
const stats = new Map(KINDS.map((k) => [k, { tp: 0, fp: 0, labels: 0, found: 0 }]));
let cleanDays = 0;
let falseOnClean = 0;
let seriesDays = 0;
for (const s of set) {
  const found = detectAnomalies(s.x, DEFAULT_DETECT);
  seriesDays += s.x.length;
  for (const l of s.labels) {
    stats.get(l.kind)!.labels++;
    if (found.some((a) => a.kind === l.kind && matches(l.kind, l.day, a.index))) stats.get(l.kind)!.found++;
  }
  for (const a of found) {
    const st = stats.get(a.kind)!;
    if (s.labels.some((l) => l.kind === a.kind && matches(l.kind, l.day, a.index))) st.tp++;
    else {
      st.fp++;
      if (s.cleanDays[a.index]) falseOnClean++;
    }
  }
  for (let d = 28; d < s.x.length; d++) if (s.cleanDays[d]) cleanDays++;
}
const detectMs = performance.now() - t0;

const f3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : '  -  ');
console.log(
  `labelled set: ${set.length} series × ${set[0]!.x.length} days (${PER_KIND} per kind + ${PER_KIND} clean), defaults sensitivity=${DEFAULT_DETECT.sensitivity} minImpact=${DEFAULT_DETECT.minImpact}`,
);
console.log('kind          precision  recall   reported  labels');
for (const k of KINDS) {
  const s = stats.get(k)!;
  const precision = s.tp + s.fp ? s.tp / (s.tp + s.fp) : Number.NaN;
  console.log(
    `${k.padEnd(13)} ${f3(precision).padStart(9)}  ${f3(s.found / s.labels).padStart(6)}   ${String(s.tp + s.fp).padStart(8)}  ${String(s.labels).padStart(6)}`,
  );
}
console.log(
  `false alarms per 100 clean series-days: ${((falseOnClean / cleanDays) * 100).toFixed(3)} (${falseOnClean} on ${cleanDays} days)`,
);
console.log(
  `detection time: ${((detectMs / seriesDays) * 1000).toFixed(2)} µs per series-day (${seriesDays} series-days, load ${loadavg()[0]!.toFixed(2)})`,
);

// Forecast: clean series, a 31-day month starting on day 63 (nine weeks of history before it).
const r = rng(7);
const MONTH_START = 63;
const MONTH_DAYS = 31;
console.log('\nmonth-end forecast MAPE (%), forecast made on day d of the month');
console.log('series         day   seasonal-baseline  run-rate  error vs run rate');
for (const seasonal of [true, false]) {
  for (const dayOfMonth of [7, 14, 21]) {
    let ours = 0;
    let naive = 0;
    const N = PER_KIND;
    for (let i = 0; i < N; i++) {
      const rr = rng(1000 + i + (seasonal ? 0 : 50_000));
      const x = cleanSeries(
        {
          days: MONTH_START + MONTH_DAYS,
          level: 50 + rr() * 950,
          trend: (rr() - 0.5) * 0.004,
          noise: 0.03 + rr() * 0.07,
          weekend: seasonal ? 0.4 + rr() * 0.3 : 1,
        },
        rr,
      );
      let actual = 0;
      for (let d = MONTH_START; d < MONTH_START + MONTH_DAYS; d++) actual += x[d]!;
      const lastKnown = MONTH_START + dayOfMonth - 1;
      ours += Math.abs(forecastMonth(x, MONTH_START, MONTH_DAYS, lastKnown).forecast - actual) / actual;
      naive += Math.abs(runRateForecast(x, MONTH_START, MONTH_DAYS, lastKnown) - actual) / actual;
    }
    const o = (ours / N) * 100;
    const n = (naive / N) * 100;
    console.log(
      `${(seasonal ? 'seasonal' : 'not seasonal').padEnd(14)} ${String(dayOfMonth).padStart(3)}   ${o.toFixed(2).padStart(17)}  ${n.toFixed(2).padStart(8)}  ${(((o - n) / n) * 100).toFixed(1).padStart(6)} %`,
    );
  }
}
void r;
