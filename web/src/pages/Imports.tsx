import { type FormEvent, useRef, useState } from 'react';
import { errorText, get } from '../api';
import { DataTable } from '../components/data';
import { SubscriptionSelect, useSubscriptions } from '../components/filters';
import {
  Badge,
  Button,
  Card,
  Empty,
  ErrorBox,
  Field,
  inputClass,
  Loading,
  PageTitle,
} from '../components/ui';
import { dateTime, day, number } from '../format';
import { useGet, usePoll } from '../hooks';
import { setQuery, useRoute } from '../router';
import type { Job } from '../types';
import { uploadFile } from '../upload';

interface ImportSummary {
  analysisRunId: number;
  importId: number;
  format: 'focus' | 'costDetails';
  currency: string;
  rows: number;
  skippedRows: number;
  from: string;
  to: string;
  newAnomalies: number;
}

interface History {
  imports: Array<{
    importId: number;
    analysisRunId: number;
    source: 'http' | 'blob';
    format: 'focus' | 'costDetails';
    location: string | null;
    rows: number;
    skippedRows: number;
    from: string;
    to: string;
    createdAt: string;
    createdBy: string | null;
  }>;
  failed: Array<{ jobId: string; createdAt: string; message: string | null; errorDetails: string | null }>;
}

const FORMAT_TEXT = { focus: 'FOCUS', costDetails: 'Cost details' };

export default function Imports() {
  const { query } = useRoute();
  const subs = useSubscriptions();
  const subscriptionId = query.get('subscriptionId') || subs.list[0]?.subscriptionId || '';
  const history = useGet<History>(
    subscriptionId ? `/finops/api/CostImports/history?subscriptionId=${subscriptionId}` : null,
  );
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [result, setResult] = useState<ImportSummary | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  usePoll(job !== null && job.status !== 'completed' && job.status !== 'failed', 1000, async () => {
    const next = await get<Job>(`/finops/api/Analysis/jobs/${job!.jobId}`);
    setJob(next);
    if (next.status === 'completed' || next.status === 'failed') {
      if (next.status === 'failed') setError(next.errorDetails || next.message || 'The import failed.');
      history.reload();
      return true;
    }
    return false;
  });

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!file || !subscriptionId) return;
    setError(null);
    setResult(null);
    setJob(null);
    setProgress(0);
    const gz = /\.gz$/i.test(file.name);
    try {
      const answer = await uploadFile<ImportSummary | Job>(
        `/finops/api/CostImports?subscriptionId=${subscriptionId}`,
        file,
        gz ? 'application/gzip' : 'text/csv',
        (sent, total) => setProgress(total ? Math.round((sent / total) * 100) : 0),
      );
      if (answer.status === 202) setJob(answer.data as Job);
      else setResult(answer.data as ImportSummary);
      history.reload();
      setFile(null);
      if (input.current) input.current.value = '';
    } catch (err) {
      setError(errorText(err));
      history.reload();
    } finally {
      setProgress(null);
    }
  }

  return (
    <>
      <PageTitle title="Imports" />
      <div className="grid gap-6 lg:grid-cols-3">
        <Card title="Upload a cost export" className="lg:col-span-1">
          <form onSubmit={submit} className="space-y-3">
            <SubscriptionSelect
              allowAll={false}
              value={subscriptionId}
              onChange={(v) => setQuery({ subscriptionId: v })}
            />
            <Field
              label="Export file"
              hint="FOCUS 1.0 (the FocusCost export) or Azure's cost details CSV, optionally gzip-compressed, up to 100 MB. Rows of other subscriptions are skipped."
            >
              <input
                ref={input}
                type="file"
                accept=".csv,.gz,text/csv,application/gzip"
                className={inputClass}
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
                required
              />
            </Field>
            <Button kind="primary" type="submit" disabled={!file || !subscriptionId || progress !== null}>
              {progress !== null ? 'Uploading…' : 'Upload and import'}
            </Button>
            <div aria-live="polite" className="space-y-2 text-sm">
              {progress !== null ? (
                <p>
                  <progress max={100} value={progress} className="w-full" aria-label="Upload progress" />{' '}
                  {progress} % sent
                  {progress === 100 ? ', importing…' : ''}
                </p>
              ) : null}
              {job ? (
                <p>
                  Import job{' '}
                  {job.status === 'completed'
                    ? 'finished'
                    : job.status === 'failed'
                      ? 'failed'
                      : `running (${job.progress ?? 0} %)`}
                  {job.message ? `: ${job.message}` : ''}
                </p>
              ) : null}
              {result ? (
                <p data-testid="import-result">
                  Imported {number(result.rows)} rows ({FORMAT_TEXT[result.format]}, {result.currency}) from{' '}
                  {day(result.from)} to {day(result.to)}; {number(result.skippedRows)} rows of other
                  subscriptions skipped; {result.newAnomalies} new anomalies.
                </p>
              ) : null}
            </div>
            {error ? (
              <div
                role="alert"
                className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
                data-testid="import-error"
              >
                The import failed: {error} Nothing was stored; fix the file and upload it again.
              </div>
            ) : null}
          </form>
        </Card>
        <div className="space-y-6 lg:col-span-2">
          <Card title="Past imports">
            {history.error ? (
              <ErrorBox error={history.error} onRetry={history.reload} />
            ) : !history.data ? (
              subscriptionId ? (
                <Loading />
              ) : (
                <Empty title="No subscription to import into">Configure a subscription first.</Empty>
              )
            ) : history.data.imports.length === 0 ? (
              <Empty title="No imports yet">
                Upload a Cost Management export to load its daily costs, or set up scheduled exports
                (docs/imports.md).
              </Empty>
            ) : (
              <DataTable
                label="Past imports"
                rows={history.data.imports}
                rowKey={(i) => i.importId}
                rowTestId={(i) => `import-${i.importId}`}
                columns={[
                  { header: 'When', cell: (i) => dateTime(i.createdAt) },
                  {
                    header: 'How',
                    cell: (i) => (i.source === 'http' ? 'Upload' : `Blob ${i.location ?? ''}`),
                  },
                  { header: 'Format', cell: (i) => FORMAT_TEXT[i.format] },
                  { header: 'Days', cell: (i) => `${day(i.from)} – ${day(i.to)}` },
                  { header: 'Rows', numeric: true, cell: (i) => number(i.rows) },
                  { header: 'Skipped', numeric: true, cell: (i) => number(i.skippedRows) },
                  { header: 'By', cell: (i) => i.createdBy ?? '—' },
                ]}
              />
            )}
          </Card>
          {history.data && history.data.failed.length > 0 ? (
            <Card title="Failed import jobs">
              <ul className="space-y-2 text-sm">
                {history.data.failed.map((f) => (
                  <li key={f.jobId}>
                    <Badge tone="red">failed</Badge> {dateTime(f.createdAt)}:{' '}
                    {f.errorDetails ?? f.message ?? 'no reason recorded'}
                  </li>
                ))}
              </ul>
            </Card>
          ) : null}
        </div>
      </div>
    </>
  );
}
