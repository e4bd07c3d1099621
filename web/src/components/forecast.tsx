import { money } from '../format';
import type { BudgetStatus, Forecast } from '../types';
import { Badge } from './ui';

export const STATUS_TEXT: Record<BudgetStatus, string> = {
  onTrack: 'On track',
  atRisk: 'At risk',
  overBudget: 'Over budget',
  noBudget: 'No budget',
};

export function StatusBadge({ status }: { status: BudgetStatus }) {
  const tone =
    status === 'onTrack'
      ? 'green'
      : status === 'atRisk'
        ? 'amber'
        : status === 'overBudget'
          ? 'red'
          : 'slate';
  return <Badge tone={tone}>{STATUS_TEXT[status]}</Badge>;
}

/**
 * Month-to-date cost, the forecast's interval and the budget on one scale. The numbers are written
 * out beside it, so the bar is decoration for a screen reader.
 */
export function ForecastBar({ f }: { f: Forecast }) {
  const top = Math.max(f.high, f.budget ?? 0, f.actualToDate) * 1.05 || 1;
  const pct = (v: number) => `${Math.min(100, (v / top) * 100).toFixed(2)}%`;
  return (
    <div aria-hidden="true" className="relative mt-2 h-4 w-full rounded bg-slate-200 dark:bg-slate-700">
      <div className="absolute inset-y-0 left-0 rounded bg-teal-600" style={{ width: pct(f.actualToDate) }} />
      <div
        className="absolute inset-y-0 bg-teal-300/70 dark:bg-teal-400/50"
        style={{ left: pct(f.low), width: `calc(${pct(f.high)} - ${pct(f.low)})` }}
      />
      <div
        className="absolute inset-y-[-3px] w-0.5 bg-slate-900 dark:bg-white"
        style={{ left: pct(f.forecastMonthEnd) }}
      />
      {f.budget !== null ? (
        <div className="absolute inset-y-[-5px] w-1 bg-red-600" style={{ left: pct(f.budget) }} />
      ) : null}
    </div>
  );
}

export function ForecastNumbers({ f }: { f: Forecast }) {
  return (
    <dl className="mt-2 grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
      <dt className="text-slate-600 dark:text-slate-300">Month to date</dt>
      <dd className="text-right tabular-nums" data-testid="actual">
        {money(f.actualToDate, f.currency)}
      </dd>
      <dt className="text-slate-600 dark:text-slate-300">Month-end forecast</dt>
      <dd className="text-right tabular-nums" data-testid="forecast">
        {money(f.forecastMonthEnd, f.currency)}
      </dd>
      <dt className="text-slate-600 dark:text-slate-300">90 % range</dt>
      <dd className="text-right tabular-nums" data-testid="range">
        {money(f.low, f.currency)} – {money(f.high, f.currency)}
      </dd>
      <dt className="text-slate-600 dark:text-slate-300">Budget</dt>
      <dd className="text-right tabular-nums" data-testid="budget">
        {f.budget === null ? 'not set' : money(f.budget, f.currency)}
      </dd>
    </dl>
  );
}
