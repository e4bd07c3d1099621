import { type FormEvent, useMemo, useState } from 'react';
import { del, errorText, post } from '../api';
import { DataTable } from '../components/data';
import { SubscriptionSelect, useSubscriptions } from '../components/filters';
import {
  Badge,
  Button,
  Card,
  Dialog,
  Empty,
  ErrorBox,
  Field,
  inputClass,
  Loading,
  PageTitle,
} from '../components/ui';
import { download, toCsv } from '../csv';
import { dateTime, money, number } from '../format';
import { useGet } from '../hooks';
import { setQuery, useRoute } from '../router';
import { useViewer } from '../session';
import type { RunSummary, WasteChanges, WasteFinding, WasteSummary } from '../types';

type Action =
  | { kind: 'dismiss' | 'snooze'; finding: WasteFinding }
  | { kind: 'exclude'; resourceGroup?: string };

interface Exclusion {
  id: number;
  kind: 'tag' | 'resourceGroup';
  tagName: string | null;
  tagValue: string | null;
  resourceGroup: string | null;
  reason: string;
  createdBy: string | null;
  createdAt: string;
  inForce: boolean;
}

const STATUS_TONE = {
  active: 'red',
  watch: 'amber',
  dismissed: 'slate',
  snoozed: 'blue',
  excluded: 'slate',
} as const;

function inDays(n: number): string {
  const d = new Date(Date.now() + n * 86_400_000);
  return d.toISOString().slice(0, 10);
}

function DecisionForm({
  action,
  subscriptionId,
  resourceGroups,
  onDone,
  onCancel,
}: {
  action: Action;
  subscriptionId: string;
  resourceGroups: string[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState(inDays(action.kind === 'snooze' ? 30 : 0));
  const [by, setBy] = useState<'resourceGroup' | 'tag'>('resourceGroup');
  const [group, setGroup] = useState(
    action.kind === 'exclude' ? (action.resourceGroup ?? resourceGroups[0] ?? '') : '',
  );
  const [tagName, setTagName] = useState('');
  const [tagValue, setTagValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (action.kind === 'exclude') {
        await post(`/finops/api/Waste/subscriptions/${subscriptionId}/exclusions`, {
          reason,
          ...(by === 'resourceGroup'
            ? { resourceGroup: group }
            : { tagName, ...(tagValue ? { tagValue } : {}) }),
        });
      } else {
        // The end of the chosen day in the viewer's time zone.
        const expiresAt =
          action.kind === 'snooze' || until > inDays(0)
            ? new Date(`${until}T23:59:59`).toISOString()
            : undefined;
        await post(`/finops/api/Waste/subscriptions/${subscriptionId}/suppressions`, {
          resourceId: action.finding.resourceId,
          code: action.finding.code,
          action: action.kind,
          reason,
          ...(expiresAt ? { expiresAt } : {}),
        });
      }
      onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={submit} className="space-y-3">
      {action.kind !== 'exclude' ? (
        <p className="text-sm">
          {action.finding.resourceName} · {action.finding.code}
        </p>
      ) : (
        <>
          <fieldset className="flex gap-4 text-sm">
            <legend className="mb-1 font-medium">Exclude by</legend>
            <label className="flex items-center gap-1">
              <input
                type="radio"
                name="by"
                checked={by === 'resourceGroup'}
                onChange={() => setBy('resourceGroup')}
              />{' '}
              Resource group
            </label>
            <label className="flex items-center gap-1">
              <input type="radio" name="by" checked={by === 'tag'} onChange={() => setBy('tag')} /> Tag
            </label>
          </fieldset>
          {by === 'resourceGroup' ? (
            <Field label="Resource group">
              <select
                className={inputClass}
                value={group}
                onChange={(e) => setGroup(e.target.value)}
                required
              >
                {resourceGroups.map((g) => (
                  <option key={g}>{g}</option>
                ))}
              </select>
            </Field>
          ) : (
            <div className="grid grid-cols-2 gap-3">
              <Field label="Tag name">
                <input
                  className={inputClass}
                  value={tagName}
                  onChange={(e) => setTagName(e.target.value)}
                  required
                />
              </Field>
              <Field label="Tag value (optional)" hint="Empty: any value">
                <input
                  className={inputClass}
                  value={tagValue}
                  onChange={(e) => setTagValue(e.target.value)}
                />
              </Field>
            </div>
          )}
        </>
      )}
      {action.kind === 'snooze' ? (
        <Field label="Snooze until">
          <input
            type="date"
            className={inputClass}
            min={inDays(1)}
            value={until}
            onChange={(e) => setUntil(e.target.value)}
            required
          />
        </Field>
      ) : null}
      {action.kind === 'dismiss' ? (
        <Field label="Dismiss until (optional)" hint="Leave as today to dismiss for good.">
          <input
            type="date"
            className={inputClass}
            min={inDays(0)}
            value={until}
            onChange={(e) => setUntil(e.target.value)}
          />
        </Field>
      ) : null}
      <Field label="Reason" hint="Required: it is kept with the decision and in the audit trail.">
        <textarea
          className={inputClass}
          rows={2}
          maxLength={1000}
          required
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </Field>
      {error ? (
        <p role="alert" className="text-sm text-red-800 dark:text-red-300">
          {error}
        </p>
      ) : null}
      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button kind="primary" type="submit" disabled={busy || !reason.trim()}>
          {action.kind === 'dismiss' ? 'Dismiss' : action.kind === 'snooze' ? 'Snooze' : 'Exclude'}
        </Button>
      </div>
    </form>
  );
}

type TotalsRow = WasteSummary['byRule'][number] | WasteSummary['byResourceGroup'][number];
const nameOf = (r: TotalsRow) => ('code' in r ? r.code : r.resourceGroup);

function Totals({
  rows,
  currency,
  label,
  keyName,
}: {
  rows: WasteSummary['byRule'] | WasteSummary['byResourceGroup'];
  currency: string;
  label: string;
  keyName: string;
}) {
  return (
    <DataTable
      label={label}
      columns={[
        { header: keyName, cell: nameOf },
        { header: 'Findings', numeric: true, cell: (r) => r.findings },
        { header: 'Cost this month', numeric: true, cell: (r) => money(r.monthToDateCost, currency) },
        { header: 'Saving a month', numeric: true, cell: (r) => money(r.estimatedMonthlySaving, currency) },
      ]}
      rows={rows as Array<TotalsRow>}
      rowKey={nameOf}
    />
  );
}

function FindingList({
  items,
  currency,
  caption,
}: {
  items: WasteFinding[];
  currency: string;
  caption: string;
}) {
  if (items.length === 0) return <p className="text-sm">None.</p>;
  return (
    <ul className="space-y-1 text-sm">
      {items.map((f) => (
        <li key={f.resourceId + f.code}>
          <span className="font-medium">{f.resourceName}</span> · {f.code} ·{' '}
          {money(f.estimatedMonthlySaving, currency)} a month
        </li>
      ))}
      <li className="sr-only">{caption}</li>
    </ul>
  );
}

export default function Waste() {
  const viewer = useViewer();
  const { query } = useRoute();
  const subs = useSubscriptions();
  const subscriptionId = query.get('subscriptionId') || subs.list[0]?.subscriptionId || '';
  const status = query.get('status') ?? 'active';
  const rule = query.get('rule') ?? '';
  const group = query.get('resourceGroup') ?? '';
  const runs = useGet<RunSummary[]>('/finops/api/AnalysisRuns/latest-per-subscription');
  const run = runs.data?.find((r) => r.subscriptionId.toLowerCase() === subscriptionId.toLowerCase());
  const summary = useGet<WasteSummary>(run ? `/finops/api/Waste/analysis/${run.id}/summary` : null);
  const findings = useGet<WasteFinding[]>(run ? `/finops/api/Waste/analysis/${run.id}/findings` : null);
  const changes = useGet<WasteChanges>(
    run ? `/finops/api/Waste/subscriptions/${subscriptionId}/changes` : null,
  );
  const exclusions = useGet<Exclusion[]>(
    run ? `/finops/api/Waste/subscriptions/${subscriptionId}/exclusions` : null,
  );
  const [action, setAction] = useState<Action | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const currency = summary.data?.currency ?? run?.currency ?? 'USD';

  const reloadAll = () => {
    summary.reload();
    findings.reload();
    changes.reload();
    exclusions.reload();
  };

  const shown = useMemo(
    () =>
      (findings.data ?? [])
        .filter(
          (f) =>
            (status === 'all' || f.status === status) &&
            (!rule || f.code === rule) &&
            (!group || f.resourceGroup === group),
        )
        // The largest saving first: that is where to start.
        .sort((a, b) => b.estimatedMonthlySaving - a.estimatedMonthlySaving),
    [findings.data, status, rule, group],
  );
  const rules = [...new Set((findings.data ?? []).map((f) => f.code))].sort();
  const groups = [...new Set((findings.data ?? []).map((f) => f.resourceGroup))].sort();

  async function revoke(f: WasteFinding) {
    setActionError(null);
    try {
      await del(`/finops/api/Waste/subscriptions/${subscriptionId}/suppressions/${f.suppression!.id}`);
      setMessage(`${f.resourceName}: ${f.suppression!.kind === 'snoozed' ? 'snooze' : 'dismissal'} revoked.`);
      reloadAll();
    } catch (e) {
      setActionError(errorText(e));
    }
  }
  async function revokeExclusion(x: Exclusion) {
    setActionError(null);
    try {
      await del(`/finops/api/Waste/subscriptions/${subscriptionId}/exclusions/${x.id}`);
      setMessage('Exclusion revoked.');
      reloadAll();
    } catch (e) {
      setActionError(errorText(e));
    }
  }

  function csv() {
    download(
      `waste-${subscriptionId}-run-${run?.id}.csv`,
      toCsv(
        [
          'resourceName',
          'resourceGroup',
          'resourceType',
          'rule',
          'category',
          'status',
          'monthToDateCost',
          'estimatedMonthlySaving',
          'currency',
          'ageDays',
          'message',
          'resourceId',
        ],
        shown.map((f) => [
          f.resourceName,
          f.resourceGroup,
          f.resourceType,
          f.code,
          f.category,
          f.status,
          f.monthToDateCost,
          f.estimatedMonthlySaving,
          currency,
          f.ageDays,
          f.message,
          f.resourceId,
        ]),
      ),
    );
  }

  return (
    <>
      <PageTitle title="Waste">
        {viewer?.isAdmin && run ? (
          <Button onClick={() => setAction({ kind: 'exclude', resourceGroup: group || undefined })}>
            Exclude…
          </Button>
        ) : null}
        {findings.data ? (
          <Button onClick={csv} disabled={shown.length === 0}>
            Download CSV
          </Button>
        ) : null}
      </PageTitle>
      <form
        className="mb-4 flex flex-wrap items-end gap-3"
        aria-label="Filters"
        onSubmit={(e) => e.preventDefault()}
      >
        <SubscriptionSelect
          allowAll={false}
          value={subscriptionId}
          onChange={(v) => setQuery({ subscriptionId: v, rule: undefined, resourceGroup: undefined })}
        />
        <Field label="Status">
          <select
            className={inputClass}
            value={status}
            onChange={(e) => setQuery({ status: e.target.value })}
          >
            <option value="active">Active</option>
            <option value="watch">Watch</option>
            <option value="dismissed">Dismissed</option>
            <option value="snoozed">Snoozed</option>
            <option value="excluded">Excluded</option>
            <option value="all">All</option>
          </select>
        </Field>
        <Field label="Rule">
          <select className={inputClass} value={rule} onChange={(e) => setQuery({ rule: e.target.value })}>
            <option value="">All rules</option>
            {rules.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </Field>
        <Field label="Resource group">
          <select
            className={inputClass}
            value={group}
            onChange={(e) => setQuery({ resourceGroup: e.target.value })}
          >
            <option value="">All resource groups</option>
            {groups.map((g) => (
              <option key={g}>{g}</option>
            ))}
          </select>
        </Field>
      </form>
      <div aria-live="polite" className="mb-2 text-sm">
        {message}
      </div>
      {actionError ? <ErrorBox error={actionError} /> : null}
      {runs.error ? (
        <ErrorBox error={runs.error} onRetry={runs.reload} />
      ) : !runs.data || (subs.list.length > 0 && !subscriptionId) ? (
        <Loading />
      ) : !run ? (
        <Empty title="No analysis of this subscription yet">
          Run an analysis from the Overview: its resources are checked against the waste rules.
        </Empty>
      ) : (
        <div className="space-y-6">
          {summary.error ? <ErrorBox error={summary.error} onRetry={summary.reload} /> : null}
          {summary.data ? (
            <div className="grid gap-4 md:grid-cols-3">
              <Card title="At stake">
                <p className="text-2xl font-semibold tabular-nums" data-testid="waste-saving">
                  {money(summary.data.totals.estimatedMonthlySaving, currency)}
                </p>
                <p className="text-sm">
                  a month, in <span data-testid="waste-findings">{summary.data.totals.findings}</span> active
                  findings costing {money(summary.data.totals.monthToDateCost, currency)} this month. Analysis
                  of {dateTime(run.runDate)}.
                </p>
              </Card>
              <Card title="New since the previous run">
                {changes.data ? (
                  changes.data.previousAnalysisRunId === null ? (
                    <p className="text-sm">This is the first analysis: every finding is new.</p>
                  ) : (
                    <FindingList items={changes.data.new} currency={currency} caption="new findings" />
                  )
                ) : changes.error ? (
                  <ErrorBox error={changes.error} />
                ) : (
                  <Loading />
                )}
              </Card>
              <Card title="Resolved since the previous run">
                {changes.data ? (
                  changes.data.previousAnalysisRunId === null ? (
                    <p className="text-sm">Nothing to compare with yet: run another analysis later.</p>
                  ) : (
                    <FindingList
                      items={changes.data.resolved}
                      currency={currency}
                      caption="resolved findings"
                    />
                  )
                ) : (
                  <Loading />
                )}
              </Card>
            </div>
          ) : null}
          <Card title={`Findings (${shown.length})`}>
            {findings.error ? (
              <ErrorBox error={findings.error} onRetry={findings.reload} />
            ) : !findings.data ? (
              <Loading />
            ) : shown.length === 0 ? (
              <Empty title="No findings match these filters">
                Pick another status, rule or resource group.
              </Empty>
            ) : (
              <DataTable
                label="Findings"
                columns={[
                  {
                    header: 'Resource',
                    cell: (f) => (
                      <>
                        <span className="font-medium">{f.resourceName}</span>
                        <span className="block min-w-[12rem] text-xs text-slate-600 dark:text-slate-300">
                          {f.message}
                        </span>
                      </>
                    ),
                  },
                  { header: 'Resource group', cell: (f) => f.resourceGroup },
                  { header: 'Rule', cell: (f) => f.code },
                  {
                    header: 'Cost, month to date',
                    numeric: true,
                    cell: (f) => money(f.monthToDateCost, currency),
                  },
                  {
                    header: 'Saving a month',
                    numeric: true,
                    cell: (f) => money(f.estimatedMonthlySaving, currency),
                  },
                  { header: 'Age, days', numeric: true, cell: (f) => number(f.ageDays) },
                  {
                    header: 'Status',
                    cell: (f) => (
                      <>
                        <Badge tone={STATUS_TONE[f.status]}>{f.status}</Badge>
                        {f.suppression ? (
                          <span className="block text-xs">
                            {f.suppression.reason}
                            {f.suppression.expiresAt ? ` · until ${dateTime(f.suppression.expiresAt)}` : ''}
                          </span>
                        ) : null}
                      </>
                    ),
                  },
                  {
                    header: 'Actions',
                    srOnly: true,
                    className: 'whitespace-nowrap',
                    cell: (f) =>
                      f.suppression ? (
                        <Button
                          onClick={() => revoke(f)}
                          aria-label={`Revoke the decision on ${f.resourceName} (${f.code})`}
                        >
                          Revoke
                        </Button>
                      ) : f.status === 'active' || f.status === 'watch' ? (
                        <span className="flex gap-1">
                          <Button
                            onClick={() => setAction({ kind: 'dismiss', finding: f })}
                            aria-label={`Dismiss ${f.resourceName} (${f.code})`}
                          >
                            Dismiss
                          </Button>
                          <Button
                            onClick={() => setAction({ kind: 'snooze', finding: f })}
                            aria-label={`Snooze ${f.resourceName} (${f.code})`}
                          >
                            Snooze
                          </Button>
                        </span>
                      ) : null,
                  },
                ]}
                rows={shown}
                rowKey={(f) => f.resourceId + f.code}
                rowTestId={(f) => `finding-${f.resourceName}-${f.code}`}
              />
            )}
          </Card>
          {summary.data && summary.data.byRule.length > 0 ? (
            <div className="grid gap-4 2xl:grid-cols-2">
              <Card title="By rule">
                <Totals rows={summary.data.byRule} currency={currency} label="Waste by rule" keyName="Rule" />
              </Card>
              <Card title="By resource group">
                <Totals
                  rows={summary.data.byResourceGroup}
                  currency={currency}
                  label="Waste by resource group"
                  keyName="Resource group"
                />
              </Card>
            </div>
          ) : null}
          {exclusions.data && exclusions.data.length > 0 ? (
            <Card title="Exclusions">
              <ul className="space-y-2 text-sm">
                {exclusions.data.map((x) => (
                  <li key={x.id} className="flex flex-wrap items-center justify-between gap-2">
                    <span>
                      {x.kind === 'resourceGroup'
                        ? `Resource group ${x.resourceGroup}`
                        : `Tag ${x.tagName}${x.tagValue ? ` = ${x.tagValue}` : ''}`}{' '}
                      · {x.reason} · {x.createdBy} · {dateTime(x.createdAt)} {x.inForce ? '' : '(revoked)'}
                    </span>
                    {x.inForce && viewer?.isAdmin ? (
                      <Button onClick={() => revokeExclusion(x)}>Revoke</Button>
                    ) : null}
                  </li>
                ))}
              </ul>
            </Card>
          ) : null}
        </div>
      )}
      <Dialog
        open={action !== null}
        title={
          action?.kind === 'dismiss'
            ? 'Dismiss a finding'
            : action?.kind === 'snooze'
              ? 'Snooze a finding'
              : 'Exclude from waste'
        }
        onClose={() => setAction(null)}
      >
        {action ? (
          <DecisionForm
            action={action}
            subscriptionId={subscriptionId}
            resourceGroups={groups}
            onCancel={() => setAction(null)}
            onDone={() => {
              setMessage(
                action.kind === 'exclude'
                  ? 'Exclusion added.'
                  : `${action.finding.resourceName}: ${action.kind === 'dismiss' ? 'dismissed' : 'snoozed'}.`,
              );
              setAction(null);
              reloadAll();
            }}
          />
        ) : null}
      </Dialog>
    </>
  );
}
