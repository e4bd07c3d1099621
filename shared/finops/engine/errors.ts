/** How analysis failures are told apart and shown: short messages, never stack traces. */

/** A failure that another attempt will not fix (bad subscription, 4xx from Azure, bad settings). */
export class PermanentAnalysisError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentAnalysisError';
  }
}

/** Thrown when the module is closing: the job is left to the stale-heartbeat recovery. */
export class AnalysisAborted extends Error {
  constructor() {
    super('The analysis was interrupted because the host is stopping.');
    this.name = 'AnalysisAborted';
  }
}

function statusOf(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { status?: unknown; statusCode?: unknown; response?: { status?: unknown } };
  for (const v of [e.statusCode, e.status, e.response?.status]) if (typeof v === 'number') return v;
  return undefined;
}

/** True when retrying cannot help: a 4xx other than 408/429, a credential error, bad input. */
export function isPermanent(err: unknown): boolean {
  if (err instanceof PermanentAnalysisError) return true;
  const name = (err as { name?: string })?.name ?? '';
  if (name === 'AuthenticationError' || name === 'CredentialUnavailableError') return true;
  const status = statusOf(err);
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** One line, at most `max` characters, without a stack: what the job and the API show. */
export function shortReason(err: unknown, max = 300): string {
  let text: string;
  if (err instanceof Error) text = err.message || err.name;
  else text = String(err);
  const status = statusOf(err);
  const first = (text.split(/\r?\n/)[0] ?? '').replace(/\s+at\s.+$/, '').trim();
  const withStatus = status && !first.includes(String(status)) ? `${first} (HTTP ${status})` : first;
  return withStatus.length > max ? `${withStatus.slice(0, max - 1)}…` : withStatus || 'Unknown error';
}

/** The job is being run by another instance (its heartbeat is fresh): leave its row alone. */
export class JobBusyElsewhere extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is running on another instance`);
    this.name = 'JobBusyElsewhere';
  }
}
