import { type FormEvent, useState } from 'react';
import { ApiError, del, errorText, post } from '../api';
import { DataTable, DetailList, LoadedView } from '../components/data';
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
import { dateTime, money, timeZone } from '../format';
import { useGet } from '../hooks';
import { useViewer } from '../session';

interface Channel {
  id: number;
  name: string;
  kind: 'email' | 'slack' | 'teams' | 'webhook';
  targetHint: string;
  hasSecret: boolean;
  minImpact: number;
  subscriptionId: string | null;
  createdAt: string;
}

interface IngestKey {
  id: number;
  clusterName: string;
  prefix: string;
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
}

interface AuditRecord {
  id: number;
  at: string;
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: unknown;
  clientAddress: string | null;
}

interface User {
  id: string;
  username: string;
  email: string;
  isAdmin: boolean;
}

function Channels() {
  const list = useGet<Channel[]>('/finops/api/NotificationChannels');
  const subs = useSubscriptions();
  const [adding, setAdding] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [form, setForm] = useState({
    name: '',
    kind: 'webhook' as Channel['kind'],
    target: '',
    secret: '',
    minImpact: '',
    subscriptionId: '',
  });
  const [error, setError] = useState<string | null>(null);

  async function add(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      await post('/finops/api/NotificationChannels', {
        name: form.name,
        kind: form.kind,
        target: form.target,
        ...(form.kind === 'webhook' && form.secret ? { secret: form.secret } : {}),
        ...(form.minImpact ? { minImpact: Number(form.minImpact) } : {}),
        ...(form.subscriptionId ? { subscriptionId: form.subscriptionId } : {}),
      });
      setAdding(false);
      setStatus(`Channel ${form.name} added.`);
      setForm({ ...form, name: '', target: '', secret: '' });
      list.reload();
    } catch (err) {
      setError(errorText(err));
    }
  }
  async function test(c: Channel) {
    setStatus(`Sending a test message to ${c.name}…`);
    try {
      const r = await post<{ delivered: boolean; error: string | null }>(
        `/finops/api/NotificationChannels/${c.id}/test`,
      );
      setStatus(
        r.delivered
          ? `Test message delivered to ${c.name}.`
          : `Test message to ${c.name} failed: ${r.error ?? 'no reason given'}`,
      );
    } catch (err) {
      setStatus(`Test message to ${c.name} failed: ${errorText(err)}`);
    }
  }
  async function remove(c: Channel) {
    try {
      await del(`/finops/api/NotificationChannels/${c.id}`);
      setStatus(`Channel ${c.name} deleted.`);
      list.reload();
    } catch (err) {
      setStatus(errorText(err));
    }
  }
  return (
    <Card
      title="Notification channels"
      actions={
        <Button kind="primary" onClick={() => setAdding(true)}>
          Add a channel
        </Button>
      }
    >
      <p aria-live="polite" className="mb-2 text-sm" data-testid="channel-status">
        {status}
      </p>
      <LoadedView
        state={list}
        empty={{
          title: 'No channels',
          text: 'Add an email address or a Slack, Teams or webhook URL to be told of new anomalies and budget alerts.',
        }}
      >
        {(rows) => (
          <DataTable
            label="Notification channels"
            rows={rows}
            rowKey={(c) => c.id}
            rowTestId={(c) => `channel-${c.name}`}
            columns={[
              { header: 'Name', cell: (c) => c.name },
              { header: 'Kind', cell: (c) => c.kind },
              { header: 'Target', cell: (c) => `${c.targetHint}${c.hasSecret ? ' (signed)' : ''}` },
              {
                header: 'Anomalies from',
                cell: (c) =>
                  c.minImpact ? `${money(c.minImpact, 'USD').replace(/[^\d.,]/g, '')} a day` : 'any impact',
              },
              {
                header: 'Subscription',
                cell: (c) => (c.subscriptionId ? subs.name(c.subscriptionId) : 'all'),
              },
              {
                header: 'Actions',
                srOnly: true,
                className: 'whitespace-nowrap',
                cell: (c) => (
                  <span className="flex gap-1">
                    <Button onClick={() => test(c)} aria-label={`Send a test message to ${c.name}`}>
                      Test
                    </Button>
                    <Button onClick={() => remove(c)} aria-label={`Delete channel ${c.name}`}>
                      Delete
                    </Button>
                  </span>
                ),
              },
            ]}
          />
        )}
      </LoadedView>
      <Dialog open={adding} title="Add a notification channel" onClose={() => setAdding(false)}>
        <form onSubmit={add} className="space-y-3">
          <Field label="Name">
            <input
              className={inputClass}
              required
              maxLength={200}
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
          </Field>
          <Field label="Kind">
            <select
              className={inputClass}
              value={form.kind}
              onChange={(e) => setForm({ ...form, kind: e.target.value as Channel['kind'] })}
            >
              <option value="webhook">Webhook (signed JSON)</option>
              <option value="slack">Slack incoming webhook</option>
              <option value="teams">Teams incoming webhook</option>
              <option value="email">Email</option>
            </select>
          </Field>
          <Field
            label={form.kind === 'email' ? 'Email address' : 'URL'}
            hint="Never shown again after saving."
          >
            <input
              className={inputClass}
              required
              value={form.target}
              onChange={(e) => setForm({ ...form, target: e.target.value })}
            />
          </Field>
          {form.kind === 'webhook' ? (
            <Field
              label="Signing secret"
              hint="At least 16 characters; the receiver checks the HMAC-SHA256 signature with it."
            >
              <input
                className={inputClass}
                required
                minLength={16}
                value={form.secret}
                onChange={(e) => setForm({ ...form, secret: e.target.value })}
              />
            </Field>
          ) : null}
          <Field label="Smallest daily impact to send (optional)">
            <input
              className={inputClass}
              type="number"
              min={0}
              step="any"
              value={form.minImpact}
              onChange={(e) => setForm({ ...form, minImpact: e.target.value })}
            />
          </Field>
          <SubscriptionSelect
            value={form.subscriptionId}
            onChange={(v) => setForm({ ...form, subscriptionId: v })}
          />
          {error ? (
            <p role="alert" className="text-sm text-red-800 dark:text-red-300">
              {error}
            </p>
          ) : null}
          <div className="flex justify-end gap-2">
            <Button onClick={() => setAdding(false)}>Cancel</Button>
            <Button kind="primary" type="submit">
              Add
            </Button>
          </div>
        </form>
      </Dialog>
    </Card>
  );
}

function IngestKeys() {
  const list = useGet<IngestKey[]>('/metrics/api/IngestKeys');
  const [cluster, setCluster] = useState('');
  const [made, setMade] = useState<{ clusterName: string; key: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const notDeployed = list.error instanceof ApiError && list.error.status === 404;
  async function create(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      const r = await post<IngestKey & { key: string }>('/metrics/api/IngestKeys', { clusterName: cluster });
      setMade({ clusterName: r.clusterName, key: r.key });
      setCluster('');
      list.reload();
    } catch (err) {
      setError(errorText(err));
    }
  }
  async function revoke(k: IngestKey) {
    try {
      await del(`/metrics/api/IngestKeys/${k.id}`);
      list.reload();
    } catch (err) {
      setError(errorText(err));
    }
  }
  return (
    <Card title="Metrics ingest keys">
      {notDeployed ? (
        <Empty title="The metrics ingest API is not deployed here">
          This finwatch has no metrics service yet (its /metrics/api answers 404). Update finwatch to a
          version with the metrics API, then make a key per cluster here and give it to the cluster's agent as
          INGEST_KEY.
        </Empty>
      ) : list.error ? (
        <ErrorBox error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading />
      ) : (
        <>
          <form onSubmit={create} className="mb-3 flex flex-wrap items-end gap-2">
            <Field label="Cluster name">
              <input
                className={inputClass}
                required
                maxLength={512}
                value={cluster}
                onChange={(e) => setCluster(e.target.value)}
              />
            </Field>
            <Button kind="primary" type="submit">
              Make a key
            </Button>
          </form>
          {made ? (
            <div
              role="status"
              className="mb-3 rounded-md border border-amber-400 bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100"
            >
              Key for {made.clusterName} (shown this once; put it in the agent's INGEST_KEY):{' '}
              <code className="break-all">{made.key}</code>
            </div>
          ) : null}
          {error ? <ErrorBox error={error} /> : null}
          {list.data.length === 0 ? (
            <Empty title="No ingest keys">
              Make one per cluster: its agent sends pods, nodes, logs and events with it.
            </Empty>
          ) : (
            <ul className="space-y-1 text-sm">
              {list.data.map((k) => (
                <li
                  key={k.id}
                  className="flex flex-wrap items-center justify-between gap-2"
                  data-testid={`ingest-key-${k.id}`}
                >
                  <span>
                    {k.clusterName} · <code>{k.prefix}…</code> · {dateTime(k.createdAt)}{' '}
                    {k.revokedAt ? <Badge tone="slate">revoked</Badge> : null}
                  </span>
                  {k.revokedAt ? null : (
                    <Button onClick={() => revoke(k)} aria-label={`Revoke the key of ${k.clusterName}`}>
                      Revoke
                    </Button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Card>
  );
}

function Audit() {
  const [filters, setFilters] = useState({ action: '', userId: '', from: '', to: '' });
  const [applied, setApplied] = useState(filters);
  const [page, setPage] = useState(1);
  const params = new URLSearchParams({ page: String(page), pageSize: '25' });
  if (applied.action) params.set('action', applied.action);
  if (applied.userId) params.set('userId', applied.userId);
  // The dates are the viewer's days; the API takes instants.
  if (applied.from) params.set('from', new Date(`${applied.from}T00:00:00`).toISOString());
  if (applied.to)
    params.set('to', new Date(new Date(`${applied.to}T00:00:00`).getTime() + 86_400_000).toISOString());
  const list = useGet<AuditRecord[]>(`/auth/api/Audit?${params}`);
  const total = list.total ?? list.data?.length ?? 0;
  const pages = Math.max(1, Math.ceil(total / 25));
  return (
    <Card title="Audit trail">
      <form
        className="mb-3 flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setApplied(filters);
        }}
      >
        <Field label="Action (commas for several)">
          <input
            className={inputClass}
            value={filters.action}
            onChange={(e) => setFilters({ ...filters, action: e.target.value })}
          />
        </Field>
        <Field label="User id">
          <input
            className={inputClass}
            value={filters.userId}
            onChange={(e) => setFilters({ ...filters, userId: e.target.value })}
          />
        </Field>
        <Field label="From">
          <input
            type="date"
            className={inputClass}
            value={filters.from}
            onChange={(e) => setFilters({ ...filters, from: e.target.value })}
          />
        </Field>
        <Field label="To">
          <input
            type="date"
            className={inputClass}
            value={filters.to}
            onChange={(e) => setFilters({ ...filters, to: e.target.value })}
          />
        </Field>
        <Button type="submit">Filter</Button>
      </form>
      <LoadedView
        state={list}
        empty={{ title: 'No records match', text: 'Clear the filters to see the whole trail.' }}
      >
        {(rows) => (
          <>
            <DataTable
              label="Audit records"
              caption={`Audit records, newest first, times in ${timeZone}`}
              columns={[
                { header: 'When', className: 'whitespace-nowrap', cell: (r) => dateTime(r.at) },
                { header: 'Who', cell: (r) => r.actorEmail ?? r.actorId ?? '—' },
                { header: 'Action', cell: (r) => r.action },
                {
                  header: 'Target',
                  cell: (r) => (r.targetType ? `${r.targetType} ${r.targetId ?? ''}` : '—'),
                },
                { header: 'Details', className: 'max-w-md', cell: (r) => <DetailList details={r.details} /> },
              ]}
              rows={rows}
              rowKey={(r) => r.id}
              rowTestId={() => 'audit-row'}
            />
            <nav aria-label="Audit pages" className="mt-3 flex items-center gap-2 text-sm">
              <Button disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Newer
              </Button>
              <span>
                Page {page} of {pages} ({total} records)
              </span>
              <Button disabled={page >= pages} onClick={() => setPage(page + 1)}>
                Older
              </Button>
            </nav>
          </>
        )}
      </LoadedView>
    </Card>
  );
}

function Sessions() {
  const users = useGet<User[]>('/auth/api/User/GetAll');
  const viewer = useViewer();
  const [confirm, setConfirm] = useState<User | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  async function end(u: User) {
    try {
      await post(`/auth/api/User/${u.id}/revokeSessions`);
      setStatus(`Every session of ${u.email} has ended: they must sign in again.`);
    } catch (err) {
      setStatus(errorText(err));
    }
    setConfirm(null);
  }
  return (
    <Card title="Users and their sessions">
      <p aria-live="polite" className="mb-2 text-sm" data-testid="session-status">
        {status}
      </p>
      {users.error ? (
        <ErrorBox error={users.error} onRetry={users.reload} />
      ) : !users.data ? (
        <Loading />
      ) : (
        <ul className="divide-y divide-slate-200 text-sm dark:divide-slate-700">
          {users.data.map((u) => (
            <li key={u.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <span>
                {u.email} ({u.username}){u.isAdmin ? ' · administrator' : ''}
              </span>
              <Button
                onClick={() => setConfirm(u)}
                aria-label={`${u.id === viewer?.id ? 'End my sessions' : 'End sessions'} of ${u.email}`}
              >
                {u.id === viewer?.id ? 'End my sessions' : 'End sessions'}
              </Button>
            </li>
          ))}
        </ul>
      )}
      <Dialog open={confirm !== null} title="End every session?" onClose={() => setConfirm(null)}>
        {confirm ? (
          <div className="space-y-3 text-sm">
            <p>
              Every token of {confirm.email} issued until now stops working
              {confirm.id === viewer?.id ? ', yours included' : ''}. They sign in again to go on.
            </p>
            <div className="flex justify-end gap-2">
              <Button onClick={() => setConfirm(null)}>Cancel</Button>
              <Button kind="danger" onClick={() => end(confirm)}>
                End sessions
              </Button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </Card>
  );
}

export default function Admin() {
  return (
    <>
      <PageTitle title="Admin" />
      <div className="space-y-6">
        <Channels />
        <IngestKeys />
        <Audit />
        <Sessions />
      </div>
    </>
  );
}
