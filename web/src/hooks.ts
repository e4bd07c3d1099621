import { useCallback, useEffect, useRef, useState } from 'react';
import { request } from './api';

export interface Loaded<T> {
  data: T | undefined;
  /** X-Total-Count of a paged list. */
  total: number | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** GETs a path (null: nothing yet) and reloads it on demand; an answer for an older path is dropped. */
export function useGet<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data?: T; total?: number; error?: unknown; loading: boolean }>({
    loading: path !== null,
  });
  // Bumped by reload() to fetch the same path again.
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null || tick < 0) {
      setState({ loading: false });
      return;
    }
    const abort = new AbortController();
    setState((s) => ({ data: s.data, total: s.total, loading: true }));
    request<T>(path, { signal: abort.signal }).then(
      (answer) => {
        const total = answer.headers.get('x-total-count');
        if (!abort.signal.aborted)
          setState({ data: answer.data, total: total === null ? undefined : Number(total), loading: false });
      },
      (error: unknown) => {
        if (!abort.signal.aborted) setState({ error, loading: false });
      },
    );
    return () => abort.abort();
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, total: state.total, error: state.error, loading: state.loading, reload };
}

/** Runs `work` every `ms` while `active`, without overlapping runs. */
export function usePoll(active: boolean, ms: number, work: () => Promise<boolean | undefined>): void {
  const saved = useRef(work);
  saved.current = work;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let handle: ReturnType<typeof setTimeout>;
    const step = async () => {
      const done = await saved.current().catch(() => true);
      if (!stopped && !done) handle = setTimeout(step, ms);
    };
    handle = setTimeout(step, ms);
    return () => {
      stopped = true;
      clearTimeout(handle);
    };
  }, [active, ms]);
}
