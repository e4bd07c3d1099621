import { lazy, Suspense, useEffect, useState } from 'react';
import { anomalySeries } from '../anomaly-series';
import { errorText, post, request } from '../api';
import { DataTable, LoadedView } from '../components/data';
import { DayRangeFields, SubscriptionSelect, useSubscriptions } from '../components/filters';
import type { SeriesPoint } from '../components/SeriesChart';
import {
  Badge,
  Button,
  Card,
  Dialog,
  ErrorBox,
  Field,
  inputClass,
  Loading,
  PageTitle,
} from '../components/ui';
import { dateTime, day, money } from '../format';
import { useGet } from '../hooks';
import { setQuery, useRoute } from '../router';
import type { Anomaly, RunSummary } from '../types';

const SeriesChart = lazy(() => import('../components/SeriesChart'));

const KIND_TEXT: Record<Anomaly['kind'], string> = {
  spike: 'Spike',
  drop: 'Drop',
  newCost: 'New cost',
  removedCost: 'Cost removed',
  steadyGrowth: 'Steady growth',
};

function scopeText(a: Anomaly): string {
  if (a.scope.kind === 'subscription') return 'Subscription total';
  return `${a.scope.kind === 'resourceGroup' ? 'Resource group' : 'Service'} ${a.scope.name}`;
}

function severityTone(s: Anomaly['severity']) {
  return s === 'high' ? 'red' : s === 'medium' ? 'amber' : 'slate';
}

function Detail({
  anomaly,
  onChanged,
  subscriptionName,
}: {
  anomaly: Anomaly;
  onChanged: (updated: Anomaly) => void;
  subscriptionName: string;
}) {
  const [points, setPoints] = useState<SeriesPoint[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [ackOpen, setAckOpen] = useState(false);
  const [note, setNote] = useState('');
  const [ackError, setAckError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let cancelled = false;
    setPoints(undefined);
    setError(undefined);
    (async () => {
      let runId = anomaly.analysisRunId;
      if (runId === null) {
        const runs = await request<RunSummary[]>(
          `/finops/api/AnalysisRuns/subscription/${anomaly.subscriptionId}?page=1&pageSize=1`,
        );
        runId = runs.data[0]?.id ?? null;
      }
      if (runId === null) throw new Error('No stored run holds this anomaly’s series any more.');
      return anomalySeries(anomaly, runId);
    })().then(
      (p) => !cancelled && setPoints(p),
      (e) => !cancelled && setError(e),
    );
    return () => {
      cancelled = true;
    };
  }, [anomaly]);

  async function acknowledge() {
    setBusy(true);
    setAckError(null);
    try {
      const updated = await post<Anomaly>(
        `/finops/api/Anomalies/${anomaly.id}/acknowledge`,
        note.trim() ? { note: note.trim() } : {},
      );
      setAckOpen(false);
      onChanged(updated);
    } catch (e) {
      setAckError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card
      title={`${KIND_TEXT[anomaly.kind]} · ${scopeText(anomaly)} · ${day(anomaly.date)}`}
      actions={
        anomaly.status === 'open' ? (
          <Button kind="primary" onClick={() => setAckOpen(true)}>
            Acknowledge
          </Button>
        ) : (
          <Badge tone="green">Acknowledged</Badge>
        )
      }
    >
      <dl className="mb-3 grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
        <dt className="text-slate-600 dark:text-slate-300">Subscription</dt>
        <dd>{subscriptionName}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Expected</dt>
        <dd className="tabular-nums">{money(anomaly.expectedCost, anomaly.currency)}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Actual</dt>
        <dd className="tabular-nums">{money(anomaly.actualCost, anomaly.currency)}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Impact a day</dt>
        <dd className="tabular-nums" data-testid="detail-impact">
          {money(anomaly.impact, anomaly.currency)}
        </dd>
        <dt className="text-slate-600 dark:text-slate-300">First found</dt>
        <dd>{dateTime(anomaly.firstDetectedAt)}</dd>
        {anomaly.status === 'acknowledged' ? (
          <>
            <dt className="text-slate-600 dark:text-slate-300">Acknowledged</dt>
            <dd>
              {dateTime(anomaly.acknowledgedAt)} by {anomaly.acknowledgedBy}
            </dd>
            <dt className="text-slate-600 dark:text-slate-300">Note</dt>
            <dd data-testid="detail-note">{anomaly.note ?? '—'}</dd>
          </>
        ) : null}
      </dl>
      {error ? (
        <ErrorBox error={error} />
      ) : !points ? (
        <Loading label="Loading the series…" />
      ) : (
        <Suspense fallback={<Loading label="Loading the chart…" />}>
          <SeriesChart
            points={points}
            marked={anomaly.date}
            expected={anomaly.expectedCost}
            currency={anomaly.currency}
            label={`Daily cost of ${scopeText(anomaly)} around ${day(anomaly.date)}`}
          />
        </Suspense>
      )}
      <Dialog open={ackOpen} title="Acknowledge the anomaly" onClose={() => setAckOpen(false)}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void acknowledge();
          }}
          className="space-y-3"
        >
          <Field
            label="Note (optional)"
            hint="Say what caused it or what was done; it is kept with the anomaly."
          >
            <textarea
              className={inputClass}
              rows={3}
              maxLength={2000}
              value={note}
              onChange={(e) => setNote(e.target.value)}
            />
          </Field>
          {ackError ? (
            <p role="alert" className="text-sm text-red-800 dark:text-red-300">
              {ackError}
            </p>
          ) : null}
          <div className="flex justify-end gap-2">
            <Button onClick={() => setAckOpen(false)}>Cancel</Button>
            <Button kind="primary" type="submit" disabled={busy}>
              Acknowledge
            </Button>
          </div>
        </form>
      </Dialog>
    </Card>
  );
}

export default function Anomalies() {
  const { query } = useRoute();
  const subscriptionId = query.get('subscriptionId') ?? '';
  const status = query.get('status') ?? 'open';
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  const selected = Number(query.get('id') ?? Number.NaN);
  const params = new URLSearchParams({ page: '1', pageSize: '200' });
  if (subscriptionId) params.set('subscriptionId', subscriptionId);
  if (status !== 'all') params.set('status', status);
  if (from) params.set('from', from);
  if (to) params.set('to', to);
  const list = useGet<Anomaly[]>(`/finops/api/Anomalies?${params}`);
  const subs = useSubscriptions();
  const anomaly = list.data?.find((a) => a.id === selected);
  const [lastSelected, setLastSelected] = useState<Anomaly | undefined>();
  useEffect(() => {
    if (anomaly) setLastSelected(anomaly);
  }, [anomaly]);
  // An acknowledged anomaly can leave the "open" filter: keep showing it until another is picked.
  const shown =
    lastSelected?.id === selected && lastSelected.status !== anomaly?.status
      ? lastSelected
      : (anomaly ?? undefined);

  return (
    <>
      <PageTitle title="Anomalies" />
      <form
        className="mb-4 flex flex-wrap items-end gap-3"
        onSubmit={(e) => e.preventDefault()}
        aria-label="Filters"
      >
        <SubscriptionSelect value={subscriptionId} onChange={(v) => setQuery({ subscriptionId: v })} />
        <Field label="Status">
          <select
            className={inputClass}
            value={status}
            onChange={(e) => setQuery({ status: e.target.value })}
          >
            <option value="open">Open</option>
            <option value="acknowledged">Acknowledged</option>
            <option value="all">All</option>
          </select>
        </Field>
        <DayRangeFields from={from} to={to} noun="cost day" />
      </form>
      <LoadedView
        state={list}
        empty={{
          title: status === 'open' ? 'No open anomalies' : 'No anomalies match these filters',
          text: 'Anomalies are looked for after every analysis and cost import. Run an analysis from the Overview, import a cost export, or widen the filters.',
        }}
      >
        {(rows) => (
          <Card>
            <DataTable
              label="Anomalies"
              caption="Anomalies, newest cost day first"
              rows={rows}
              rowKey={(a) => a.id}
              rowTestId={(a) => `anomaly-${a.id}`}
              rowClassName={(a) => (a.id === selected ? 'bg-teal-50 dark:bg-teal-950' : '')}
              columns={[
                { header: 'Cost day', cell: (a) => day(a.date) },
                { header: 'Subscription', cell: (a) => subs.name(a.subscriptionId) },
                { header: 'Where', cell: (a) => scopeText(a) },
                { header: 'Kind', cell: (a) => KIND_TEXT[a.kind] },
                {
                  header: 'Severity',
                  cell: (a) => <Badge tone={severityTone(a.severity)}>{a.severity}</Badge>,
                },
                { header: 'Expected', numeric: true, cell: (a) => money(a.expectedCost, a.currency) },
                { header: 'Actual', numeric: true, cell: (a) => money(a.actualCost, a.currency) },
                {
                  header: 'Impact a day',
                  numeric: true,
                  testId: 'impact',
                  cell: (a) => money(a.impact, a.currency),
                },
                { header: 'Status', cell: (a) => (a.status === 'open' ? 'Open' : 'Acknowledged') },
                {
                  header: 'Details',
                  srOnly: true,
                  cell: (a) => (
                    <Button
                      onClick={() => setQuery({ id: String(a.id) })}
                      aria-label={`Show anomaly ${a.id}: ${KIND_TEXT[a.kind]} on ${day(a.date)}`}
                    >
                      Show
                    </Button>
                  ),
                },
              ]}
            />
            {rows.length === 200 ? (
              <p className="mt-2 text-sm">The 200 newest are shown; narrow the filters to see older ones.</p>
            ) : null}
          </Card>
        )}
      </LoadedView>
      {shown ? (
        <div className="mt-6" key={shown.id}>
          <Detail
            anomaly={shown}
            subscriptionName={subs.name(shown.subscriptionId)}
            onChanged={(updated) => {
              setLastSelected(updated);
              list.reload();
            }}
          />
        </div>
      ) : null}
    </>
  );
}
