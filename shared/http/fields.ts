import { z } from 'zod';
import { GUID } from '../config/fields.js';
import { INT32_MAX, INT32_MIN } from './limits.js';

/**
 * The field schemas every route shares, for bodies, path and query values alike. Messages are
 * fragments that read after the field name ("subscriptionId must be a GUID"), the one style of
 * every 400 (see plain-issues.ts).
 *
 * Path and query values arrive as strings; the schemas here parse them, so a route's `input`
 * declares what it accepts once and the OpenAPI document shows that same schema.
 */

/** Whole-sentence messages of an id field, for the routes whose clients show the original's words. */
export interface IdMessages {
  required: string;
  notGuid: string;
}

/**
 * A GUID, trimmed and lower-cased: Azure and most clients write ids in lower case, so one spelling
 * is stored and compared. The one check of every GUID a request carries.
 */
export const guid = (messages?: IdMessages) => {
  const value = z.string(messages ? { error: messages.required } : undefined).trim();
  return (messages ? value.min(1, messages.required) : value)
    .regex(GUID, messages?.notGuid ?? 'must be a GUID')
    .transform((s) => s.toLowerCase());
};

/** An Azure subscription id: a GUID in lower case. */
export const subscriptionId = (messages?: IdMessages) =>
  guid(messages).describe('Azure subscription id (GUID; any case, answered in lower case)');

/**
 * A subscription id naming what to list (a path value of a read route): trimmed and lower-cased
 * like subscriptionId, but a value that is not a GUID is not refused: it names no stored
 * subscription, so the list is empty, as the original answered.
 */
export const subscriptionKey = () =>
  text(200)
    .transform((s) => s.toLowerCase())
    .describe('Azure subscription id (GUID; any case)');

/** A whole number within the 32-bit range the original's `int` ids had (a larger value reached PostgreSQL and gave 500). */
export const int32 = () =>
  z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(INT32_MIN, `must be at least ${INT32_MIN}`)
    .max(INT32_MAX, `must be at most ${INT32_MAX}`);

/** A path or query value holding a whole number between min and max (strings in, numbers out). */
export const intText = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^[-+]?\d{1,10}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** A path value naming a stored row: a positive 32-bit integer. */
export const idText = () => intText(1, INT32_MAX);

/** A required text value, trimmed, not blank. */
export const text = (max = 1000) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** A query flag: true/false (also 1/0, yes/no), as ASP.NET binds a bool. */
export const boolText = () =>
  z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' }))
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Whether YYYY-MM-DD names a day of the calendar (JavaScript rolls 2026-02-30 over to March). */
function realDay(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A day, optionally with a time (T or a space, seconds and up to 7 fraction digits) and a zone. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * The instant a date value names, as ASP.NET binds a DateTime: a value with a zone is converted to
 * UTC; one without is taken as UTC wall-clock time, as the stored times are. Undefined when the
 * value is not a date, names no day of the calendar or an hour past 23.
 */
export function parseDateValue(raw: string): Date | undefined {
  const m = DATE_TIME.exec(raw.trim());
  if (!m) return undefined;
  const [, y, mo, da, h = '0', mi = '0', sec = '0', frac = '0', zone] = m;
  if (!realDay(`${y}-${mo}-${da}`) || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return undefined;
  const ms = Number(frac.slice(0, 3).padEnd(3, '0'));
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(da), Number(h), Number(mi), Number(sec), ms);
  if (zone && zone.toUpperCase() !== 'Z') {
    const z2 = /([+-])(\d{2}):?(\d{2})/.exec(zone)!;
    t -= (Number(z2[2]) * 60 + Number(z2[3])) * (z2[1] === '-' ? -1 : 1) * 60_000;
  }
  return Number.isNaN(t) ? undefined : new Date(t);
}

/**
 * A date or date and time (ISO 8601: YYYY-MM-DD, optionally THH:mm[:ss[.fff]] and Z or an
 * offset; without a zone, UTC), answered as a Date. The one rule of every date query value.
 */
export const dateText = () =>
  z
    .string()
    .trim()
    .transform((v, ctx) => {
      const d = parseDateValue(v);
      if (d) return d;
      ctx.issues.push({
        code: 'custom',
        input: v,
        message: 'must be an ISO 8601 date (YYYY-MM-DD) or date and time',
      });
      return z.NEVER;
    });

/** A day only (YYYY-MM-DD), as a Date at midnight UTC. */
export const dayText = () =>
  z
    .string()
    .trim()
    .regex(DAY, 'must be a date in the form YYYY-MM-DD')
    .refine(realDay, 'is not a day of the calendar')
    .transform((v) => new Date(`${v}T00:00:00Z`));
