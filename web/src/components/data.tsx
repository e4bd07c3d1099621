/**
 * The two blocks every page repeats: an answer that is loading, failed, empty or there, and a table
 * of rows. One way for each, so every page says the same thing in the same states.
 */
import { Fragment, type ReactNode } from 'react';
import type { Loaded } from '../hooks';
import { Empty, ErrorBox, Loading, numClass, TableWrap, tableClass, tdClass, thClass } from './ui';

/**
 * What a GET shows: its error (with a retry), "Loading…" until the first answer, the empty state
 * when `isEmpty` says so (default: an empty array), else `children` with the data.
 */
export function LoadedView<T>({
  state,
  empty,
  isEmpty = (d) => Array.isArray(d) && d.length === 0,
  children,
}: {
  state: Pick<Loaded<T>, 'data' | 'error' | 'reload'>;
  /** The empty state's title and text; without it an empty answer renders `children`. */
  empty?: { title: string; text?: ReactNode };
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  if (state.error) return <ErrorBox error={state.error} onRetry={state.reload} />;
  if (state.data === undefined) return <Loading />;
  if (empty && isEmpty(state.data)) return <Empty title={empty.title}>{empty.text}</Empty>;
  return <>{children(state.data)}</>;
}

export interface Column<T> {
  /** The header; a column of controls names itself for screen readers only (`srOnly`). */
  header: string;
  srOnly?: boolean;
  /** Amounts: right-aligned, tabular figures, never broken inside a cell. */
  numeric?: boolean;
  /** data-testid of the cell (tests find a row's value by it). */
  testId?: string;
  className?: string;
  cell: (row: T) => ReactNode;
}

/** A table of rows in a labelled, keyboard-scrollable region. */
export function DataTable<T>({
  label,
  caption,
  columns,
  rows,
  rowKey,
  rowTestId,
  rowClassName,
}: {
  label: string;
  caption?: string;
  columns: Array<Column<T>>;
  rows: readonly T[];
  rowKey: (row: T) => string | number;
  rowTestId?: (row: T) => string;
  rowClassName?: (row: T) => string;
}) {
  const cls = (base: string, c: Column<T>) =>
    [base, c.numeric ? numClass : '', c.className ?? ''].filter(Boolean).join(' ');
  return (
    <TableWrap label={label}>
      <table className={tableClass}>
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} className={cls(thClass, c)}>
                {c.srOnly ? <span className="sr-only">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)} data-testid={rowTestId?.(r)} className={rowClassName?.(r)}>
              {columns.map((c) => (
                <td key={c.header} className={cls(tdClass, c)} data-testid={c.testId}>
                  {c.cell(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** "subscriptionId" as "Subscription id": a details key as a reader says it. */
function keyLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function valueText(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (Array.isArray(v))
    return v.every((x) => typeof x !== 'object' || x === null) ? v.join(', ') : JSON.stringify(v);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** The pairs of a details object, a nested object's under its parent's key. */
function detailPairs(o: Record<string, unknown>, parent = ''): Array<[string, string]> {
  return Object.entries(o).flatMap(([k, v]): Array<[string, string]> => {
    const label = parent ? `${parent} · ${keyLabel(k)}` : keyLabel(k);
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? detailPairs(v as Record<string, unknown>, label)
      : [[label, valueText(v)]];
  });
}

/** A record's free-form details (the audit trail's) as labelled rows rather than raw JSON. */
export function DetailList({ details }: { details: unknown }) {
  if (details === null || details === undefined) return null;
  if (typeof details !== 'object' || Array.isArray(details)) return <span>{valueText(details)}</span>;
  const pairs = detailPairs(details as Record<string, unknown>);
  if (pairs.length === 0) return null;
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
      {pairs.map(([k, v]) => (
        <Fragment key={k}>
          <dt className="font-medium text-slate-600 dark:text-slate-300">{k}</dt>
          <dd className="break-words">{v}</dd>
        </Fragment>
      ))}
    </dl>
  );
}
