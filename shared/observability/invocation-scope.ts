import { AsyncLocalStorage } from 'node:async_hooks';

/** What identifies the invocation a piece of work belongs to, for log correlation. */
export interface InvocationScope {
  invocationId: string;
  /** The W3C traceparent the caller sent, when it sent one. */
  traceparent?: string;
}

const storage = new AsyncLocalStorage<InvocationScope>();

/**
 * Runs work inside an invocation's scope: every line a finwatch logger writes from it, however deep
 * (modules hold their own loggers, created once per process), carries the invocation id, which is
 * how Application Insights and a log search tie the lines of one request together.
 */
export function withInvocationScope<T>(scope: InvocationScope, work: () => T): T {
  return storage.run(scope, work);
}

/** The fields every log line written inside an invocation carries (none outside one). */
export function invocationLogFields(): Record<string, string> {
  const scope = storage.getStore();
  if (!scope) return {};
  return scope.traceparent
    ? { invocationId: scope.invocationId, traceparent: scope.traceparent }
    : { invocationId: scope.invocationId };
}
