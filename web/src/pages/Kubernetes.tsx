import { useState } from 'react';
import { ApiError } from '../api';
import { type Column, DataTable, LoadedView } from '../components/data';
import { DayRangeFields } from '../components/filters';
import { Card, Empty, ErrorBox, Field, inputClass, Loading, PageTitle } from '../components/ui';
import { day, money, number } from '../format';
import { useGet } from '../hooks';
import { setQuery, useRoute } from '../router';

interface RowCost {
  name: string;
  cpuCost: number;
  memoryCost: number;
  storageCost: number;
  totalCost: number;
  cpuCoreHours: number;
  memoryGiBHours: number;
}

interface Allocation {
  currency: string;
  costType: string;
  billedCost: number;
  rows: RowCost[];
  idle: Array<{ pool: string; cpuCost: number; memoryCost: number; totalCost: number }>;
  system: number;
  service: number;
  unallocated: number;
  estimatedDays: string[];
  days: DayTotals[];
}

interface DayTotals {
  day: string;
  estimated: boolean;
  billedCost: number;
  allocated: number;
  idle: number;
  system: number;
  service: number;
  unallocated: number;
}

/** The parts a day's bill splits into, in the order they stack, with their bar colours. */
const PARTS = [
  ['allocated', 'Allocated', 'bg-teal-600'],
  ['idle', 'Idle', 'bg-amber-400'],
  ['system', 'System', 'bg-sky-600'],
  ['service', 'Service', 'bg-indigo-400'],
  ['unallocated', 'Unallocated', 'bg-slate-400'],
] as const;

function allocationColumns(currency: string): Array<Column<RowCost>> {
  return [
    { header: 'Name', cell: (r) => r.name },
    { header: 'CPU', numeric: true, cell: (r) => money(r.cpuCost, currency) },
    { header: 'Memory', numeric: true, cell: (r) => money(r.memoryCost, currency) },
    { header: 'Storage', numeric: true, cell: (r) => money(r.storageCost, currency) },
    { header: 'Total', numeric: true, testId: 'total', cell: (r) => money(r.totalCost, currency) },
    { header: 'Core-hours', numeric: true, cell: (r) => number(r.cpuCoreHours, 1) },
    { header: 'GiB-hours', numeric: true, cell: (r) => number(r.memoryGiBHours, 1) },
  ];
}

function rightsizingColumns(currency: string): Array<Column<Recommendation>> {
  return [
    { header: 'Container', cell: (r) => `${r.namespace}/${r.workload}/${r.container}` },
    { header: 'Finding', testId: 'finding', cell: finding },
    {
      header: 'CPU asked → advised',
      numeric: true,
      cell: (r) => `${r.current.cpuCores ?? '—'} → ${number(r.recommended.cpuCores, 3)}`,
    },
    {
      header: 'Memory asked → advised',
      numeric: true,
      cell: (r) => `${gib(r.current.memoryBytes)} → ${gib(r.recommended.memoryBytes)}`,
    },
    {
      header: 'Saving a month',
      numeric: true,
      testId: 'saving',
      cell: (r) => money(r.monthlySaving, currency),
    },
  ];
}

/** A day's bill split as one stacked bar, as wide as the day's share of the costliest day. */
function DayBar({ d, max }: { d: DayTotals; max: number }) {
  return (
    <div
      aria-hidden="true"
      className="flex h-4 overflow-hidden rounded-sm bg-slate-100 dark:bg-slate-800"
      style={{ width: `${max > 0 ? (d.billedCost / max) * 100 : 0}%` }}
    >
      {PARTS.map(([k, , colour]) =>
        d[k] > 0 ? (
          <div
            key={k}
            className={colour}
            style={{ width: `${d.billedCost > 0 ? (d[k] / d.billedCost) * 100 : 0}%` }}
          />
        ) : null,
      )}
    </div>
  );
}

function dayColumns(currency: string, max: number): Array<Column<DayTotals>> {
  return [
    {
      header: 'Day',
      className: 'whitespace-nowrap',
      cell: (d) => `${day(d.day)}${d.estimated ? ' (estimated)' : ''}`,
    },
    {
      header: 'Split of the bill',
      srOnly: true,
      className: 'w-1/3',
      cell: (d) => <DayBar d={d} max={max} />,
    },
    { header: 'Billed', numeric: true, testId: 'billed', cell: (d) => money(d.billedCost, currency) },
    ...PARTS.map(
      ([k, label]): Column<DayTotals> => ({
        header: label,
        numeric: true,
        testId: k,
        cell: (d) => money(d[k], currency),
      }),
    ),
  ];
}

/** Each day's bill as a stacked bar beside its numbers: a chart that is also a table. */
function DailyChart({ days, currency }: { days: DayTotals[]; currency: string }) {
  return (
    <>
      <ul className="mb-3 flex flex-wrap gap-3 text-xs" aria-label="Legend">
        {PARTS.map(([k, label, colour]) => (
          <li key={k} className="flex items-center gap-1">
            <span aria-hidden="true" className={`inline-block h-3 w-3 rounded-sm ${colour}`} />
            {label}
          </li>
        ))}
      </ul>
      <DataTable
        label="Daily cost"
        columns={dayColumns(currency, Math.max(...days.map((d) => d.billedCost), 0))}
        rows={days}
        rowKey={(d) => d.day}
        rowTestId={(d) => `k8s-day-${d.day}`}
      />
    </>
  );
}

interface Recommendation {
  namespace: string;
  workload: string;
  container: string;
  current: { cpuCores: number | null; memoryBytes: number | null };
  recommended: { cpuCores: number; memoryBytes: number };
  monthlySaving: number;
  kind: 'over-requested' | 'under-requested' | 'fits';
  evidence: { oomKills: number };
}

/**
 * The finding with the resources it is about. A container short of one resource and generous with
 * the other is under-requested (the risk comes first) while its saving can be positive: naming the
 * short resource keeps the two columns from reading as a contradiction.
 */
function finding(r: Recommendation): string {
  if (r.kind === 'fits') return 'fits';
  const needsMore = {
    CPU: r.current.cpuCores === null || r.current.cpuCores < r.recommended.cpuCores,
    memory: r.current.memoryBytes === null || r.current.memoryBytes < r.recommended.memoryBytes,
  };
  const about = Object.entries(needsMore)
    .filter(([, more]) => more === (r.kind === 'under-requested'))
    .map(([resource]) => resource);
  const oom = r.evidence.oomKills > 0 ? ' (OOM killed)' : '';
  return `${r.kind}${about.length ? `: ${about.join(' and ')}` : ''}${oom}`;
}

/** A cluster the bill knows but no agent reports: nothing to split its cost by. */
function isBillOnly(c: unknown): boolean {
  return typeof c === 'object' && c !== null && (c as Record<string, unknown>).reportedByAgent === false;
}

/** A cluster as the clusters list names it (a name, or an object with one). */
function clusterName(c: unknown): string {
  if (typeof c === 'string') return c;
  const o = c as Record<string, unknown>;
  return String(o.clusterName ?? o.name ?? o.id ?? '');
}

const AGGREGATES = [
  ['namespace', 'Namespace'],
  ['workload', 'Workload'],
  ['nodepool', 'Node pool'],
  ['day', 'Day'],
] as const;

function isoDay(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

const gib = (bytes: number | null) => (bytes === null ? '—' : `${number(bytes / 1024 ** 3, 2)} GiB`);

export default function Kubernetes() {
  const { query } = useRoute();
  const clusters = useGet<unknown[] | { clusters: unknown[] }>('/finops/api/KubernetesCost/clusters');
  const listed = Array.isArray(clusters.data) ? clusters.data : (clusters.data?.clusters ?? []);
  const names = listed.map(clusterName).filter(Boolean);
  const cluster = query.get('cluster') || names[0] || '';
  const billOnly = isBillOnly(listed.find((c) => clusterName(c) === cluster));
  const aggregate = query.get('aggregate') ?? 'namespace';
  const [label, setLabel] = useState('');
  const from = query.get('from') ?? isoDay(-30);
  const to = query.get('to') ?? isoDay(-1);
  const aggregateParam = aggregate === 'label' ? `label:${query.get('label') ?? ''}` : aggregate;
  const allocation = useGet<Allocation>(
    cluster && (aggregate !== 'label' || query.get('label'))
      ? `/finops/api/KubernetesCost/allocation?${new URLSearchParams({ clusterName: cluster, from, to, aggregate: aggregateParam })}`
      : null,
  );
  const rightsizing = useGet<{ items: Recommendation[] }>(
    cluster
      ? `/finops/api/KubernetesCost/rightsizing?${new URLSearchParams({ clusterName: cluster })}`
      : null,
  );
  const recs = rightsizing.data?.items ?? [];
  const notDeployed = clusters.error instanceof ApiError && clusters.error.status === 404;

  if (notDeployed || (clusters.data && names.length === 0)) {
    return (
      <>
        <PageTitle title="Kubernetes cost" />
        <Empty
          title={notDeployed ? 'Kubernetes cost is not available on this finwatch yet' : 'No clusters yet'}
        >
          {notDeployed ? (
            <p>
              This finwatch does not have the Kubernetes cost API (it answered 404). Update finwatch to a
              version that has it.
            </p>
          ) : null}
          <p>
            Kubernetes cost splits each AKS cluster's bill over its namespaces and workloads from what the
            metrics agent reports. Run the agent in the cluster (agent/README.md) with an ingest key from the
            Admin page, and run an analysis of the cluster's subscription; the cluster appears here after both
            have data for a day.
          </p>
        </Empty>
      </>
    );
  }

  const a = allocation.data;
  return (
    <>
      <PageTitle title="Kubernetes cost" />
      {clusters.error ? <ErrorBox error={clusters.error} onRetry={clusters.reload} /> : null}
      {!clusters.data && !clusters.error ? <Loading /> : null}
      {names.length > 0 ? (
        <form
          className="mb-4 flex flex-wrap items-end gap-3"
          aria-label="Filters"
          onSubmit={(e) => e.preventDefault()}
        >
          <Field label="Cluster">
            <select
              className={inputClass}
              value={cluster}
              onChange={(e) => setQuery({ cluster: e.target.value })}
            >
              {names.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </Field>
          <Field label="Group by">
            <select
              className={inputClass}
              value={aggregate}
              onChange={(e) => setQuery({ aggregate: e.target.value })}
            >
              {AGGREGATES.map(([v, t]) => (
                <option key={v} value={v}>
                  {t}
                </option>
              ))}
              <option value="label">Label…</option>
            </select>
          </Field>
          {aggregate === 'label' ? (
            <Field label="Label key">
              <input
                className={inputClass}
                value={label || query.get('label') || ''}
                onChange={(e) => setLabel(e.target.value)}
                onBlur={() => setQuery({ label })}
              />
            </Field>
          ) : null}
          <DayRangeFields from={from} to={to} />
        </form>
      ) : null}
      {allocation.error ? <ErrorBox error={allocation.error} onRetry={allocation.reload} /> : null}
      {cluster && !a && !allocation.error ? <Loading /> : null}
      {a ? (
        <div className="space-y-6">
          <div className="grid gap-4 md:grid-cols-4">
            <Card title="Billed">
              <p className="text-2xl font-semibold tabular-nums" data-testid="k8s-billed">
                {money(a.billedCost, a.currency)}
              </p>
              <p className="text-xs">{a.costType}</p>
            </Card>
            <Card title="Idle">
              <p className="text-2xl font-semibold tabular-nums" data-testid="k8s-idle">
                {money(
                  a.idle.reduce((n, i) => n + i.totalCost, 0),
                  a.currency,
                )}
              </p>
              <p className="text-xs">capacity no pod asked for</p>
            </Card>
            <Card title="System and service">
              <p className="text-2xl font-semibold tabular-nums" data-testid="k8s-system-service">
                {money(a.system + a.service, a.currency)}
              </p>
              <p className="text-xs">system namespaces, control plane and network</p>
            </Card>
            <Card title="Unallocated">
              <p className="text-2xl font-semibold tabular-nums" data-testid="k8s-unallocated">
                {money(a.unallocated, a.currency)}
              </p>
              <p className="text-xs">billed without agent data</p>
            </Card>
          </div>
          {a.estimatedDays.length ? (
            <p className="text-sm">
              Estimated at retail prices until the bill closes: {a.estimatedDays.map(day).join(', ')}.
            </p>
          ) : null}
          <Card title="Allocation">
            {billOnly ? (
              <Empty title="No agent data for this cluster">
                <p>
                  The bill knows {cluster}, but no metrics agent reports from it: without its pods there is
                  nothing to split the nodes' cost by, so that is shown as unallocated. Run the agent in the
                  cluster (agent/README.md) with an ingest key from the Admin page to see its namespaces and
                  workloads.
                </p>
              </Empty>
            ) : null}
            <LoadedView
              // A cluster without agent data has a row for every namespace its disks name, most of them
              // at zero: only what the bill alone places is listed.
              state={{ ...allocation, data: billOnly ? a.rows.filter((r) => r.totalCost > 0) : a.rows }}
              empty={
                billOnly
                  ? undefined
                  : {
                      title: 'Nothing allocated in these days',
                      text: 'Pick other days, or check that the agent is sending data.',
                    }
              }
              isEmpty={(rows) => rows.length === 0}
            >
              {(rows) =>
                rows.length === 0 ? null : (
                  <div className={billOnly ? 'mt-4' : undefined}>
                    {billOnly ? (
                      <p className="mb-2 text-sm">Placed in namespaces from the bill alone:</p>
                    ) : null}
                    <DataTable
                      label="Allocation"
                      columns={allocationColumns(a.currency)}
                      rows={rows}
                      rowKey={(r) => r.name}
                      rowTestId={(r) => `k8s-row-${r.name}`}
                    />
                  </div>
                )
              }
            </LoadedView>
          </Card>
          {a.days.length ? (
            <Card title="Daily cost">
              <DailyChart days={a.days} currency={a.currency} />
            </Card>
          ) : null}
          <Card title="Right-sizing">
            <LoadedView
              state={{ ...rightsizing, data: rightsizing.data === undefined ? undefined : recs }}
              empty={{
                title: 'No recommendations',
                text: billOnly
                  ? 'Right-sizing compares what containers ask with what they use, which only the agent reports.'
                  : "The containers' requests fit what they use, or there is too little history yet.",
              }}
            >
              {(rows) => (
                <DataTable
                  label="Right-sizing"
                  columns={rightsizingColumns(a.currency)}
                  rows={rows}
                  rowKey={(r) => `${r.namespace}/${r.workload}/${r.container}`}
                  rowTestId={(r) => `k8s-rec-${r.namespace}/${r.workload}/${r.container}`}
                />
              )}
            </LoadedView>
          </Card>
        </div>
      ) : null}
    </>
  );
}
