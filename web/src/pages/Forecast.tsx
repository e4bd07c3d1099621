import { useEffect, useState } from 'react';
import { ApiError, get } from '../api';
import { DataTable } from '../components/data';
import { useSubscriptions } from '../components/filters';
import { ForecastBar, STATUS_TEXT, StatusBadge } from '../components/forecast';
import { Card, Empty, ErrorBox, Loading, PageTitle } from '../components/ui';
import { day, money, month, percent } from '../format';
import type { Forecast as ForecastDto } from '../types';

interface Row {
  subscriptionId: string;
  forecast?: ForecastDto;
  error?: unknown;
}

const METHOD_TEXT = {
  'seasonal-baseline': 'weekday baseline and trend',
  'run-rate': 'run rate (under two weeks of history)',
};

export default function Forecast() {
  const subs = useSubscriptions();
  const [rows, setRows] = useState<Row[] | undefined>();
  const ids = subs.list.map((s) => s.subscriptionId).join(',');
  const loaded = subs.loaded;
  useEffect(() => {
    if (!loaded) return;
    if (!ids) {
      setRows([]);
      return;
    }
    let cancelled = false;
    Promise.all(
      ids.split(',').map(async (id): Promise<Row> => {
        try {
          return { subscriptionId: id, forecast: await get<ForecastDto>(`/finops/api/Forecast/${id}`) };
        } catch (error) {
          return { subscriptionId: id, error };
        }
      }),
    ).then((r) => !cancelled && setRows(r));
    return () => {
      cancelled = true;
    };
  }, [ids, loaded]);

  const withForecast = rows?.filter((r) => r.forecast) ?? [];
  const missing = rows?.filter((r) => r.error instanceof ApiError && r.error.status === 404) ?? [];
  const failed =
    rows?.filter((r) => r.error && !(r.error instanceof ApiError && r.error.status === 404)) ?? [];

  return (
    <>
      <PageTitle title="Forecast" />
      <p className="mb-4 max-w-3xl text-sm text-slate-700 dark:text-slate-300">
        The month-end estimate of each subscription from its newest analysis or import, with its 90 %
        interval, against its budget. At risk: the forecast reaches 80 % of the budget; over: the forecast or
        the cost so far reaches it.
      </p>
      {subs.error ? (
        <ErrorBox error={subs.error} />
      ) : !rows ? (
        <Loading />
      ) : withForecast.length === 0 && failed.length === 0 ? (
        <Empty title="No forecast yet">
          A forecast needs an analysis or a cost import of the subscription. Run one from the Overview, or
          upload an export on the Imports page.
        </Empty>
      ) : (
        <div className="space-y-4">
          <Card>
            <DataTable
              label="Forecasts"
              caption="Month-end forecast per subscription"
              rows={withForecast.map((r) => ({ id: r.subscriptionId, f: r.forecast! }))}
              rowKey={(r) => r.id}
              rowTestId={(r) => `forecast-${r.id}`}
              columns={[
                { header: 'Subscription', cell: (r) => subs.name(r.id) },
                { header: 'Month', className: 'whitespace-nowrap', cell: (r) => month(r.f.monthStart) },
                {
                  header: 'Month to date',
                  numeric: true,
                  cell: (r) => money(r.f.actualToDate, r.f.currency),
                },
                {
                  header: 'Month-end estimate',
                  numeric: true,
                  testId: 'estimate',
                  cell: (r) => money(r.f.forecastMonthEnd, r.f.currency),
                },
                {
                  header: '90 % interval',
                  numeric: true,
                  cell: (r) => `${money(r.f.low, r.f.currency)} – ${money(r.f.high, r.f.currency)}`,
                },
                {
                  header: 'Budget',
                  numeric: true,
                  cell: (r) => (r.f.budget === null ? 'not set' : money(r.f.budget, r.f.currency)),
                },
                {
                  header: 'Of budget',
                  numeric: true,
                  cell: (r) => (r.f.budget ? percent(r.f.forecastMonthEnd / r.f.budget) : '—'),
                },
                {
                  header: 'Status',
                  testId: 'status',
                  cell: (r) => <StatusBadge status={r.f.budgetStatus} />,
                },
              ]}
            />
          </Card>
          <div className="grid gap-4 md:grid-cols-2">
            {withForecast.map(({ subscriptionId, forecast: f }) => (
              <Card
                key={subscriptionId}
                title={subs.name(subscriptionId)}
                actions={<StatusBadge status={f!.budgetStatus} />}
              >
                <ForecastBar f={f!} />
                <p className="mt-2 text-sm">
                  {STATUS_TEXT[f!.budgetStatus]}: {money(f!.forecastMonthEnd, f!.currency)} expected by{' '}
                  {day(f!.monthEnd)}
                  {f!.budget !== null
                    ? ` against a budget of ${money(f!.budget, f!.currency)}`
                    : ' (no budget set)'}
                  . Cost known through {day(f!.asOf)}; method: {METHOD_TEXT[f!.method]}.
                </p>
                <p className="mt-1 text-xs text-slate-600 dark:text-slate-300">
                  Bar: dark, the cost so far; light, the 90 % interval; black tick, the estimate; red tick,
                  the budget.
                </p>
              </Card>
            ))}
          </div>
          {missing.length ? (
            <p className="text-sm">
              No analysis yet for {missing.map((r) => subs.name(r.subscriptionId)).join(', ')}: run one from
              the Overview.
            </p>
          ) : null}
          {failed.map((r) => (
            <ErrorBox key={r.subscriptionId} error={r.error} />
          ))}
        </div>
      )}
    </>
  );
}
