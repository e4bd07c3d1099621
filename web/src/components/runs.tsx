import { useState } from 'react';
import { errorText, get, post } from '../api';
import { usePoll } from '../hooks';
import type { Job } from '../types';
import { Button } from './ui';

const PHASES: Record<string, string> = {
  queued: 'Queued',
  pending: 'Waiting for its turn',
  resources: 'Reading resources',
  costs: 'Reading costs',
};

/** Starts an analysis as a job and follows it (POST start-async, then the job's status every second). */
export function RunAnalysisButton({
  subscriptionId,
  name,
  onDone,
}: {
  subscriptionId: string;
  name: string;
  onDone: () => void;
}) {
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<string | null>(null);
  const running = job !== null && job.status !== 'completed' && job.status !== 'failed';
  usePoll(running, 1000, async () => {
    if (!job) return true;
    const next = await get<Job>(`/finops/api/Analysis/jobs/${job.jobId}`);
    setJob(next);
    if (next.status === 'completed' || next.status === 'failed') {
      if (next.status === 'failed' || next.success === false)
        setError(next.errorDetails || next.message || 'The analysis failed.');
      onDone();
      return true;
    }
    return false;
  });
  async function start() {
    setError(null);
    try {
      setJob(await post<Job>('/finops/api/Analysis/start-async', subscriptionId));
    } catch (e) {
      setError(errorText(e));
    }
  }
  const progress = job?.progress ?? 0;
  return (
    <div className="flex flex-col gap-1">
      <Button kind="primary" onClick={start} disabled={running} aria-label={`Run analysis of ${name}`}>
        {running ? 'Analysing…' : 'Run analysis'}
      </Button>
      {job ? (
        <div className="text-xs" aria-live="polite">
          {running ? (
            <>
              <progress className="h-2 w-32" max={100} value={progress} aria-label={`Analysis of ${name}`} />
              <span className="ml-2">
                {PHASES[job.phase ?? job.status] ?? job.phase ?? job.status} · {progress} %
              </span>
            </>
          ) : job.status === 'completed' && job.success !== false ? (
            <span>Analysis finished (run {job.analysisRunId}).</span>
          ) : null}
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="text-xs text-red-800 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}
