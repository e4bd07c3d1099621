import { useGet } from '../hooks';
import { setQuery } from '../router';
import type { SubscriptionRef } from '../types';
import { Field, inputClass } from './ui';

/** The subscriptions the viewer can pick from (configured and analysed ones). */
export function useSubscriptions(): {
  list: SubscriptionRef[];
  loaded: boolean;
  error: unknown;
  name: (id: string) => string;
} {
  const { data, error } = useGet<SubscriptionRef[]>('/finops/api/Subscription');
  // Imported or formerly configured subscriptions have runs but may not be configured now.
  const runs = useGet<SubscriptionRef[]>('/finops/api/AnalysisRuns/latest-per-subscription');
  // Registered subscriptions (with a budget or a description) may have no run yet.
  const registered =
    useGet<Array<{ subscriptionId: string; description: string | null }>>('/finops/api/Subscriptions');
  const seen = new Map<string, SubscriptionRef>();
  const fromRegistered = (registered.data ?? []).map((r) => ({
    subscriptionId: r.subscriptionId,
    subscriptionName: r.description || r.subscriptionId,
  }));
  for (const s of [...fromRegistered, ...(runs.data ?? []), ...(data ?? [])]) {
    const name =
      s.subscriptionName && s.subscriptionName !== s.subscriptionId ? s.subscriptionName : undefined;
    const prev = seen.get(s.subscriptionId.toLowerCase());
    seen.set(s.subscriptionId.toLowerCase(), {
      subscriptionId: s.subscriptionId,
      subscriptionName: name ?? prev?.subscriptionName ?? s.subscriptionId,
    });
  }
  const list = [...seen.values()].sort((a, b) => a.subscriptionName.localeCompare(b.subscriptionName));
  const byId = new Map(list.map((s) => [s.subscriptionId.toLowerCase(), s.subscriptionName]));
  return {
    list,
    loaded:
      (data !== undefined || error !== undefined) && (runs.data !== undefined || runs.error !== undefined),
    error,
    name: (id) => byId.get(id.toLowerCase()) ?? id,
  };
}

export function SubscriptionSelect({
  value,
  onChange,
  allowAll = true,
  label = 'Subscription',
}: {
  value: string;
  onChange: (v: string) => void;
  allowAll?: boolean;
  label?: string;
}) {
  const { list } = useSubscriptions();
  return (
    <Field label={label}>
      <select className={inputClass} value={value} onChange={(e) => onChange(e.target.value)}>
        {allowAll ? <option value="">All subscriptions</option> : null}
        {list.map((s) => (
          <option key={s.subscriptionId} value={s.subscriptionId}>
            {s.subscriptionName}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** From and to days of a page's filters, kept in the query string (`from`, `to`). */
export function DayRangeFields({ from, to, noun = 'day' }: { from: string; to: string; noun?: string }) {
  return (
    <>
      {(
        [
          ['From', 'from', from],
          ['To', 'to', to],
        ] as const
      ).map(([label, key, value]) => (
        <Field key={key} label={`${label} (${noun})`}>
          <input
            type="date"
            className={inputClass}
            value={value}
            onChange={(e) => setQuery({ [key]: e.target.value })}
          />
        </Field>
      ))}
    </>
  );
}
