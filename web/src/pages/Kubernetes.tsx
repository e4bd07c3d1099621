import { useState } from 'react';
import { ApiError } from '../api';
import {
  Card,
  Empty,
  ErrorBox,
  Field,
  inputClass,
  Loading,
  numClass,
  PageTitle,
  TableWrap,
  tableClass,
  tdClass,
  thClass,
} from '../components/ui';
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
}

interface Recommendation {
  namespace: string;
  workload: string;
  container: string;
  current: { cpuCores: number | null; memoryBytes: number | null };
  recommended: { cpuCores: number; memoryBytes: number };
  monthlySaving: number;
  kind: 'over-requested' | 'under-requested' | 'fits';
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
  const names = (Array.isArray(clusters.data) ? clusters.data : (clusters.data?.clusters ?? []))
    .map(clusterName)
    .filter(Boolean);
  const cluster = query.get('cluster') || names[0] || '';
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
  const rightsizing = useGet<Recommendation[] | { recommendations: Recommendation[] }>(
    cluster
      ? `/finops/api/KubernetesCost/rightsizing?${new URLSearchParams({ clusterName: cluster })}`
      : null,
  );
  const recs = Array.isArray(rightsizing.data) ? rightsizing.data : (rightsizing.data?.recommendations ?? []);
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
          <Field label="From (day)">
            <input
              type="date"
              className={inputClass}
              value={from}
              onChange={(e) => setQuery({ from: e.target.value })}
            />
          </Field>
          <Field label="To (day)">
            <input
              type="date"
              className={inputClass}
              value={to}
              onChange={(e) => setQuery({ to: e.target.value })}
            />
          </Field>
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
              <p className="text-2xl font-semibold tabular-nums">
                {money(
                  a.idle.reduce((n, i) => n + i.totalCost, 0),
                  a.currency,
                )}
              </p>
              <p className="text-xs">capacity no pod asked for</p>
            </Card>
            <Card title="System and service">
              <p className="text-2xl font-semibold tabular-nums">{money(a.system + a.service, a.currency)}</p>
              <p className="text-xs">system namespaces, control plane and network</p>
            </Card>
            <Card title="Unallocated">
              <p className="text-2xl font-semibold tabular-nums">{money(a.unallocated, a.currency)}</p>
              <p className="text-xs">billed without agent data</p>
            </Card>
          </div>
          {a.estimatedDays.length ? (
            <p className="text-sm">
              Estimated at retail prices until the bill closes: {a.estimatedDays.map(day).join(', ')}.
            </p>
          ) : null}
          <Card title="Allocation">
            {a.rows.length === 0 ? (
              <Empty title="Nothing allocated in these days">
                Pick other days, or check that the agent is sending data.
              </Empty>
            ) : (
              <TableWrap label="Allocation">
                <table className={tableClass}>
                  <thead>
                    <tr>
                      <th className={thClass}>Name</th>
                      <th className={`${thClass} ${numClass}`}>CPU</th>
                      <th className={`${thClass} ${numClass}`}>Memory</th>
                      <th className={`${thClass} ${numClass}`}>Storage</th>
                      <th className={`${thClass} ${numClass}`}>Total</th>
                      <th className={`${thClass} ${numClass}`}>Core-hours</th>
                      <th className={`${thClass} ${numClass}`}>GiB-hours</th>
                    </tr>
                  </thead>
                  <tbody>
                    {a.rows.map((r) => (
                      <tr key={r.name}>
                        <td className={tdClass}>{r.name}</td>
                        <td className={`${tdClass} ${numClass}`}>{money(r.cpuCost, a.currency)}</td>
                        <td className={`${tdClass} ${numClass}`}>{money(r.memoryCost, a.currency)}</td>
                        <td className={`${tdClass} ${numClass}`}>{money(r.storageCost, a.currency)}</td>
                        <td className={`${tdClass} ${numClass}`}>{money(r.totalCost, a.currency)}</td>
                        <td className={`${tdClass} ${numClass}`}>{number(r.cpuCoreHours, 1)}</td>
                        <td className={`${tdClass} ${numClass}`}>{number(r.memoryGiBHours, 1)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
          </Card>
          <Card title="Right-sizing">
            {rightsizing.error ? (
              <ErrorBox error={rightsizing.error} />
            ) : !rightsizing.data ? (
              <Loading />
            ) : recs.length === 0 ? (
              <p className="text-sm">
                No recommendations: the containers' requests fit what they use, or there is too little history
                yet.
              </p>
            ) : (
              <TableWrap label="Right-sizing">
                <table className={tableClass}>
                  <thead>
                    <tr>
                      <th className={thClass}>Container</th>
                      <th className={thClass}>Finding</th>
                      <th className={`${thClass} ${numClass}`}>CPU asked → advised</th>
                      <th className={`${thClass} ${numClass}`}>Memory asked → advised</th>
                      <th className={`${thClass} ${numClass}`}>Saving a month</th>
                    </tr>
                  </thead>
                  <tbody>
                    {recs.map((r) => (
                      <tr key={`${r.namespace}/${r.workload}/${r.container}`}>
                        <td className={tdClass}>
                          {r.namespace}/{r.workload}/{r.container}
                        </td>
                        <td className={tdClass}>{r.kind}</td>
                        <td className={`${tdClass} ${numClass}`}>
                          {r.current.cpuCores ?? '—'} → {number(r.recommended.cpuCores, 3)}
                        </td>
                        <td className={`${tdClass} ${numClass}`}>
                          {gib(r.current.memoryBytes)} → {gib(r.recommended.memoryBytes)}
                        </td>
                        <td className={`${tdClass} ${numClass}`}>{money(r.monthlySaving, a.currency)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
          </Card>
        </div>
      ) : null}
    </>
  );
}
