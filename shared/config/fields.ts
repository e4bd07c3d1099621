import { z } from 'zod';

// Settings arrive as strings; these coerce them and treat "" as unset, as app settings often are.
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

export const optionalString = () =>
  z.preprocess(blankToUndefined, z.string().trim().optional()) as z.ZodType<string | undefined>;
export const stringWithDefault = (d: string) =>
  z.preprocess(blankToUndefined, z.string().trim().default(d)) as z.ZodType<string>;

export const bool = (d: boolean) =>
  z.preprocess(
    (v) => {
      const b = blankToUndefined(v);
      if (b === undefined) return d;
      if (typeof b === 'boolean') return b;
      const s = String(b).trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(s)) return true;
      if (['false', '0', 'no', 'off'].includes(s)) return false;
      return s;
    },
    z.boolean({ error: 'must be true or false' }),
  ) as z.ZodType<boolean>;

/** A boolean whose absence means something else than either value (the caller decides). */
export const optionalBool = () =>
  z.preprocess((v) => {
    const b = blankToUndefined(v);
    if (b === undefined || typeof b === 'boolean') return b;
    const s = String(b).trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(s)) return true;
    if (['false', '0', 'no', 'off'].includes(s)) return false;
    return s;
  }, z.boolean({ error: 'must be true or false' }).optional()) as z.ZodType<boolean | undefined>;

export const int = (d: number, min: number, max: number) =>
  z.preprocess(
    (v) => {
      const b = blankToUndefined(v);
      return b === undefined ? d : Number(b);
    },
    z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  ) as z.ZodType<number>;

export const num = (d: number, min: number, max: number) =>
  z.preprocess(
    (v) => {
      const b = blankToUndefined(v);
      return b === undefined ? d : Number(b);
    },
    z
      .number({ error: 'must be a number' })
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  ) as z.ZodType<number>;

/** Comma-separated list, trimmed, blanks dropped. */
export const list = (d: string[] = []) =>
  z.preprocess((v) => {
    const b = blankToUndefined(v);
    if (b === undefined) return d;
    return String(b)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }, z.array(z.string())) as z.ZodType<string[]>;

export const url = () =>
  z.preprocess(blankToUndefined, z.url({ error: 'must be an absolute URL' }).optional()) as z.ZodType<
    string | undefined
  >;

/** A GUID's text (any case), for patterns that find one inside a longer value. */
export const GUID_TEXT = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A value that is a GUID and nothing else. */
export const GUID = new RegExp(`^${GUID_TEXT}$`, 'i');
