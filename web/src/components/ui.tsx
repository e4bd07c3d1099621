import { cloneElement, type ReactElement, type ReactNode, useEffect, useId, useRef } from 'react';
import { ApiError, errorText } from '../api';

export function PageTitle({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · finwatch`;
  }, [title]);
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      {children ? <div className="flex flex-wrap items-center gap-2">{children}</div> : null}
    </div>
  );
}

export function Card({
  title,
  children,
  className = '',
  actions,
}: {
  title?: string;
  children: ReactNode;
  className?: string;
  actions?: ReactNode;
}) {
  const id = useId();
  return (
    <section
      aria-labelledby={title ? id : undefined}
      className={`rounded-lg border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-700 dark:bg-slate-900 ${className}`}
    >
      {title ? (
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          <h2 id={id} className="text-base font-semibold">
            {title}
          </h2>
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const status = error instanceof ApiError ? error.status : undefined;
  return (
    <div
      role="alert"
      className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
    >
      <p>
        <strong>{status ? `Error ${status}: ` : 'Error: '}</strong>
        {errorText(error)}
      </p>
      {onRetry ? (
        <button type="button" className="mt-2 underline" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-md border border-dashed border-slate-300 p-6 text-center dark:border-slate-600">
      <p className="font-medium">{title}</p>
      {children ? (
        <div className="mt-2 space-y-2 text-sm text-slate-600 dark:text-slate-300">{children}</div>
      ) : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
      {label}
    </p>
  );
}

type ButtonKind = 'primary' | 'secondary' | 'danger';
const KINDS: Record<ButtonKind, string> = {
  primary: 'bg-teal-700 text-white hover:bg-teal-800 disabled:bg-slate-400 dark:disabled:bg-slate-600',
  secondary:
    'border border-slate-300 bg-white text-slate-900 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700',
  danger: 'bg-red-700 text-white hover:bg-red-800',
};

export function Button({
  kind = 'secondary',
  className = '',
  ...props
}: React.ButtonHTMLAttributes<HTMLButtonElement> & { kind?: ButtonKind }) {
  return (
    <button
      type="button"
      {...props}
      className={`inline-flex items-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed ${KINDS[kind]} ${className}`}
    />
  );
}

export const inputClass =
  'rounded-md border border-slate-400 bg-white px-2 py-1.5 text-sm text-slate-900 dark:border-slate-500 dark:bg-slate-800 dark:text-slate-100';

/**
 * A labelled control: the label names the control alone (its `for` points at it) and the hint is
 * tied to it as its description, so a screen reader reads both and the name stays short.
 */
export function Field({ label, children, hint }: { label: string; children: ReactElement; hint?: string }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const control = cloneElement(children as ReactElement<{ id?: string; 'aria-describedby'?: string }>, {
    id,
    ...(hint ? { 'aria-describedby': hintId } : {}),
  });
  return (
    <div className="flex flex-col gap-1 text-sm">
      <label htmlFor={id} className="font-medium">
        {label}
      </label>
      {control}
      {hint ? (
        <span id={hintId} className="text-xs text-slate-600 dark:text-slate-300">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** A modal dialog (the browser's own: focus is trapped, Escape closes it). */
export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={id}
      onClose={onClose}
      className="m-auto w-full max-w-lg rounded-lg border border-slate-300 bg-white p-5 text-slate-900 shadow-xl dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
    >
      <h2 id={id} className="mb-4 text-lg font-semibold">
        {title}
      </h2>
      {open ? children : null}
    </dialog>
  );
}

export function Badge({
  tone,
  children,
}: {
  tone: 'green' | 'amber' | 'red' | 'slate' | 'blue';
  children: ReactNode;
}) {
  const tones = {
    green: 'bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100',
    amber: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
    red: 'bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100',
    slate: 'bg-slate-200 text-slate-900 dark:bg-slate-700 dark:text-slate-100',
    blue: 'bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100',
  } as const;
  return (
    <span className={`inline-block whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium ${tones[tone]}`}>
      {children}
    </span>
  );
}

export const tableClass = 'w-full border-collapse text-left text-sm';
export const thClass = 'border-b border-slate-300 px-2 py-2 font-semibold dark:border-slate-600';
export const tdClass = 'border-b border-slate-200 px-2 py-2 align-top dark:border-slate-700';
// Amounts never break inside a cell; headers may wrap.
export const numClass = 'text-right tabular-nums [td&]:whitespace-nowrap';

/** A table that scrolls sideways on a narrow screen and can be reached with the keyboard to do so. */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable for keyboard users.
    <section className="overflow-x-auto" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
