import { useEffect, useMemo, useState } from 'react';
import { get } from '../api';
import { DataTable } from '../components/data';
import { ForecastBar, ForecastNumbers, StatusBadge } from '../components/forecast';
import { RunAnalysisButton } from '../components/runs';
import { Badge, Card, Empty, ErrorBox, Field, inputClass, Loading, PageTitle } from '../components/ui';
import { dateTime, day, money } from '../format';
import { useGet } from '../hooks';
import { Link } from '../router';
import type { Anomaly, Forecast, RunSummary, WasteSummary } from '../types';

const KIND_TEXT: Record<Anomaly['kind'], string> = {
  spike: 'Spike',
  drop: 'Drop',
  newCost: 'New cost',
  removedCost: 'Cost removed',
  steadyGrowth: 'Steady growth',
};

interface SubscriptionView {
  id: string;
  name: string;
  run?: RunSummary;
  forecast?: Forecast;
  forecastError?: unknown;
  waste?: WasteSummary;
}

interface Mover {
  subscription: string;
  resourceGroup: string;
  before: number;
  after: number;
  currency: string;
}

/** Per resource group: the last 7 complete days against the 7 before them. */
function movers(
  rows: Array<{ date: string; resourceGroup: string; cost: number; currency: string }>,
  subscription: string,
): Mover[] {
  if (rows.length === 0) return [];
  const days = [...new Set(rows.map((r) => r.date.slice(0, 10)))].sort();
  const last = days.slice(-14);
  if (last.length < 14) return [];
  const prior = new Set(last.slice(0, 7));
  const recent = new Set(last.slice(7));
  const by = new Map<string, Mover>();
  for (const r of rows) {
    const d = r.date.slice(0, 10);
    if (!prior.has(d) && !recent.has(d)) continue;
    const m = by.get(r.resourceGroup) ?? {
      subscription,
      resourceGroup: r.resourceGroup,
      before: 0,
      after: 0,
      currency: r.currency,
    };
    if (prior.has(d)) m.before += r.cost;
    else m.after += r.cost;
    by.set(r.resourceGroup, m);
  }
  return [...by.values()];
}

async function loadSubscription(
  id: string,
  name: string,
  run: RunSummary | undefined,
): Promise<SubscriptionView> {
  const view: SubscriptionView = { id, name, run };
  if (!run) return view;
  const [forecast, waste] = await Promise.allSettled([
    get<Forecast>(`/finops/api/Forecast/${id}`),
    get<WasteSummary>(`/finops/api/Waste/analysis/${run.id}/summary`),
  ]);
  if (forecast.status === 'fulfilled') view.forecast = forecast.value;
  else view.forecastError = forecast.reason;
  if (waste.status === 'fulfilled') view.waste = waste.value;
  return view;
}

/** The first analysis of a subscription the viewer names (no run is stored yet to list it). */
function FirstAnalysis({ onDone }: { onDone: () => void }) {
  const [id, setId] = useState('');
  const valid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id.trim());
  return (
    <div className="mt-4 flex flex-wrap items-end justify-center gap-2 text-left">
      <Field label="Subscription id">
        <input className={inputClass} size={38} value={id} onChange={(e) => setId(e.target.value)} />
      </Field>
      {valid ? <RunAnalysisButton subscriptionId={id.trim()} name={id.trim()} onDone={onDone} /> : null}
    </div>
  );
}

export default function Overview() {
  const runs = useGet<RunSummary[]>('/finops/api/AnalysisRuns/latest-per-subscription');
  // Registered subscriptions may have no run yet: they show with a button to run the first.
  const configured =
    useGet<Array<{ subscriptionId: string; description: string | null }>>('/finops/api/Subscriptions');
  const anomalies = useGet<Anomaly[]>('/finops/api/Anomalies?status=open&page=1&pageSize=5');
  const [subs, setSubs] = useState<SubscriptionView[] | undefined>();
  const [subsError, setSubsError] = useState<unknown>();
  const [moverRows, setMoverRows] = useState<Mover[] | undefined>();

  const list = useMemo(() => {
    if (!runs.data) return undefined;
    const byId = new Map<string, { id: string; name: string; run?: RunSummary }>();
    for (const s of configured.data ?? [])
      byId.set(s.subscriptionId.toLowerCase(), {
        id: s.subscriptionId,
        name: s.description || s.subscriptionId,
      });
    for (const r of runs.data) {
      const known = byId.get(r.subscriptionId.toLowerCase());
      // An imported run is named after its id: a registered description reads better.
      const name =
        r.subscriptionName !== r.subscriptionId ? r.subscriptionName : (known?.name ?? r.subscriptionName);
      byId.set(r.subscriptionId.toLowerCase(), { id: r.subscriptionId, name, run: r });
    }
    return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
  }, [runs.data, configured.data]);

  useEffect(() => {
    if (!list) return;
    let cancelled = false;
    // Each card fills in as its own answers arrive (a forecast takes a few hundred ms to compute).
    const done: SubscriptionView[] = [];
    const cards = Promise.all(
      list.map((s) =>
        loadSubscription(s.id, s.name, s.run).then((v) => {
          done.push(v);
          if (!cancelled) setSubs([...done]);
        }),
      ),
    ).catch((e) => !cancelled && setSubsError(e));
    // Movers load after the cards, not beside them: they read each run's daily cost per resource
    // group, and the database answers one query at a time on a single instance.
    cards
      .then(() =>
        Promise.all(
          list
            .filter((s) => s.run)
            .map(async (s) =>
              movers(
                await get(
                  `/finops/api/HistoricalCosts/analysis/${s.run!.id}/by-resourcegroup?page=1&pageSize=5000`,
                ),
                s.name,
              ),
            ),
        ),
      )
      .then(
        (all) =>
          !cancelled &&
          setMoverRows(
            all
              .flat()
              .sort((a, b) => Math.abs(b.after - b.before) - Math.abs(a.after - a.before))
              .slice(0, 6),
          ),
        () => !cancelled && setMoverRows([]),
      );
    return () => {
      cancelled = true;
    };
  }, [list]);

  const reload = () => {
    runs.reload();
    anomalies.reload();
  };

  if (runs.error)
    return (
      <>
        <PageTitle title="Overview" />
        <ErrorBox error={runs.error} onRetry={runs.reload} />
      </>
    );
  if (!list)
    return (
      <>
        <PageTitle title="Overview" />
        <Loading />
      </>
    );

  const savingByCurrency = new Map<string, number>();
  for (const s of subs ?? []) {
    if (s.waste && s.waste.totals.findings > 0)
      savingByCurrency.set(
        s.waste.currency,
        (savingByCurrency.get(s.waste.currency) ?? 0) + s.waste.totals.estimatedMonthlySaving,
      );
  }

  return (
    <>
      <PageTitle title="Overview" />
      {list.length === 0 ? (
        <Empty title="No analyses yet">
          <p>
            Run the first analysis of an Azure subscription (the app needs Reader and Cost Management Reader
            on it), or upload a cost export on the{' '}
            <Link to="/imports" className="underline">
              Imports
            </Link>{' '}
            page.
          </p>
          <FirstAnalysis onDone={reload} />
        </Empty>
      ) : null}
      <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
        {list.map((s) => {
          const v = subs?.find((x) => x.id === s.id);
          return (
            <Card
              key={s.id}
              title={s.name}
              actions={v?.forecast ? <StatusBadge status={v.forecast.budgetStatus} /> : undefined}
            >
              <div data-testid={`subscription-${s.id}`}>
                {s.name !== s.id ? (
                  <p className="text-xs text-slate-600 dark:text-slate-300">{s.id}</p>
                ) : null}
                {!s.run ? (
                  <p className="mt-2 text-sm">
                    No analysis yet: run one to see its cost, forecast and waste.
                  </p>
                ) : !v ? (
                  <Loading />
                ) : v.forecast ? (
                  <>
                    <ForecastBar f={v.forecast} />
                    <ForecastNumbers f={v.forecast} />
                  </>
                ) : (
                  <ErrorBox error={v.forecastError} />
                )}
                {v?.waste && v.waste.totals.findings === 0 ? (
                  <p className="mt-2 text-sm">No waste findings in the last run.</p>
                ) : v?.waste ? (
                  <p className="mt-2 text-sm">
                    Waste:{' '}
                    <span data-testid="saving">
                      {money(v.waste.totals.estimatedMonthlySaving, v.waste.currency)}
                    </span>{' '}
                    a month at stake in {v.waste.totals.findings} findings
                  </p>
                ) : null}
                <div className="mt-3 flex flex-wrap items-start justify-between gap-2 border-t border-slate-200 pt-3 dark:border-slate-700">
                  <p className="text-sm">
                    Last analysis:{' '}
                    <span data-testid="last-run">{s.run ? dateTime(s.run.runDate) : 'never'}</span>
                  </p>
                  <RunAnalysisButton subscriptionId={s.id} name={s.name} onDone={reload} />
                </div>
              </div>
            </Card>
          );
        })}
      </div>
      {subsError ? <ErrorBox error={subsError} /> : null}
      <div className="mt-6 grid gap-4 lg:grid-cols-3">
        <Card title="Waste saving at stake">
          {subs === undefined || subs.length < list.length ? (
            <Loading />
          ) : savingByCurrency.size === 0 ? (
            <p className="text-sm">
              No waste findings: run an analysis to check the subscriptions against the waste rules.
            </p>
          ) : (
            <ul className="space-y-1">
              {[...savingByCurrency].map(([c, v]) => (
                <li key={c} className="text-2xl font-semibold tabular-nums" data-testid="saving-total">
                  {money(v, c)} <span className="text-sm font-normal">a month</span>
                </li>
              ))}
              <li>
                <Link to="/waste" className="text-sm underline">
                  See the findings
                </Link>
              </li>
            </ul>
          )}
        </Card>
        <Card title="Open anomalies" className="lg:col-span-2">
          {anomalies.error ? (
            <ErrorBox error={anomalies.error} onRetry={anomalies.reload} />
          ) : !anomalies.data ? (
            <Loading />
          ) : anomalies.data.length === 0 ? (
            <p className="text-sm">No open anomalies. New ones appear here after each analysis or import.</p>
          ) : (
            <ul className="divide-y divide-slate-200 dark:divide-slate-700">
              {anomalies.data.map((a) => (
                <li key={a.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                  <span>
                    <Badge tone={a.severity === 'high' ? 'red' : a.severity === 'medium' ? 'amber' : 'slate'}>
                      {a.severity}
                    </Badge>{' '}
                    {KIND_TEXT[a.kind]} on{' '}
                    {a.scope.kind === 'subscription'
                      ? 'the subscription total'
                      : `${a.scope.kind === 'resourceGroup' ? 'resource group' : 'service'} ${a.scope.name}`}{' '}
                    · {day(a.date)}
                  </span>
                  <Link to={`/anomalies?id=${a.id}`} className="tabular-nums underline">
                    {a.impact >= 0 ? '+' : ''}
                    {money(a.impact, a.currency)} a day
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
      <Card title="Largest movers (last 7 days against the 7 before, by resource group)" className="mt-6">
        {moverRows === undefined ? (
          <Loading />
        ) : moverRows.length === 0 ? (
          <p className="text-sm">Not enough daily history yet: movers need 14 days of cost.</p>
        ) : (
          <DataTable
            label="Largest movers"
            rows={moverRows}
            rowKey={(m) => m.subscription + m.resourceGroup}
            columns={[
              { header: 'Subscription', cell: (m) => m.subscription },
              { header: 'Resource group', cell: (m) => m.resourceGroup },
              { header: '7 days before', numeric: true, cell: (m) => money(m.before, m.currency) },
              { header: 'Last 7 days', numeric: true, cell: (m) => money(m.after, m.currency) },
              {
                header: 'Change',
                numeric: true,
                cell: (m) => `${m.after - m.before >= 0 ? '+' : ''}${money(m.after - m.before, m.currency)}`,
              },
            ]}
          />
        )}
      </Card>
    </>
  );
}
