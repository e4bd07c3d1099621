/** Money in the run's currency, dates in the viewer's locale and time zone. */

export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

const moneyFormats = new Map<string, Intl.NumberFormat>();

export function money(value: number | null | undefined, currency: string | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  const code = currency && /^[A-Z]{3}$/.test(currency) ? currency : 'USD';
  let f = moneyFormats.get(code);
  if (!f) {
    f = new Intl.NumberFormat(undefined, { style: 'currency', currency: code, maximumFractionDigits: 2 });
    moneyFormats.set(code, f);
  }
  return f.format(value);
}

export function number(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined) return '—';
  return new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(value);
}

export function percent(value: number): string {
  return new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 }).format(value);
}

/** The API writes some instants without an offset; they are UTC. */
export function parseInstant(text: string): Date {
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const shortDayFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});

/** An instant (a run, an acknowledgement) in the viewer's time zone. */
export function dateTime(text: string | null | undefined): string {
  if (!text) return '—';
  return dateTimeFormat.format(parseInstant(text));
}

/** A cost day (yyyy-MM-dd, a UTC day as billed), shown as that calendar day. */
export function day(text: string | null | undefined): string {
  if (!text) return '—';
  return dayFormat.format(new Date(`${text.slice(0, 10)}T00:00:00Z`));
}

export function shortDay(text: string): string {
  return shortDayFormat.format(new Date(`${text.slice(0, 10)}T00:00:00Z`));
}

const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** The month of a cost day. */
export function month(text: string): string {
  return monthFormat.format(new Date(`${text.slice(0, 10)}T00:00:00Z`));
}
