import { type ZodType, z } from 'zod';
import { fieldPath, firstProblem, plainIssue } from './plain-issues.js';
import { badRequest, HttpError, type ValidationErrors } from './problem.js';

/** Request bodies above this size are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;

function unwrap(schema: unknown): unknown {
  let s = schema as { def?: { type?: string; innerType?: unknown; in?: unknown; getter?: () => unknown } };
  for (let i = 0; i < 10 && s?.def; i++) {
    const t = s.def.type;
    if (t === 'optional' || t === 'nullable' || t === 'default' || t === 'prefault' || t === 'catch') {
      s = s.def.innerType as typeof s;
    } else if (t === 'pipe') {
      s = s.def.in as typeof s;
    } else if (t === 'lazy' && s.def.getter) {
      s = s.def.getter() as typeof s;
    } else break;
  }
  return s;
}

type Shape = 'union' | 'array' | 'object' | 'other';
const shapes = new WeakMap<object, { s: unknown; shape: Shape }>();

/** A schema unwrapped and what it takes, remembered per schema (zod's instanceof costs a lookup each). */
function unwrapped(schema: unknown): { s: unknown; shape: Shape } {
  const known = schema !== null && typeof schema === 'object' ? shapes.get(schema) : undefined;
  if (known) return known;
  const s = unwrap(schema);
  const shape: Shape =
    s instanceof z.ZodUnion
      ? 'union'
      : s instanceof z.ZodArray
        ? 'array'
        : s instanceof z.ZodObject
          ? 'object'
          : 'other';
  const found = { s, shape };
  if (schema !== null && typeof schema === 'object') shapes.set(schema, found);
  return found;
}

/** What normalizeKeys needs of an object schema, worked out once per schema. */
interface ObjectPlan {
  shape: Record<string, unknown>;
  byLower: Map<string, string>;
  /** Fields whose values have keys of their own to rename (objects with fields, arrays, unions). */
  nested: Set<string>;
  /**
   * The keys, in order, of the last value found spelled as the schema: a value with the same
   * keys in the same order (a batch's records, which one agent serialised alike) is known as it
   * is by comparing names instead of looking each up in the shape.
   */
  asIs: string[] | undefined;
}

const plans = new WeakMap<object, ObjectPlan>();

function hasKeysToRename(schema: unknown): boolean {
  const { s, shape } = unwrapped(schema);
  if (shape === 'object') return Object.keys((s as z.ZodObject).shape).length > 0;
  // A union renames through its object option only (normalizeKeys): a number-or-numeric-text
  // field has nothing to rename, and counting it made every pod record a copy (1 µs a record).
  if (shape === 'union') return hasKeysToRename(objectOption(s as z.ZodUnion));
  return shape === 'array';
}

/** The option of a union that takes an object, whose spelling an object value gets. */
function objectOption(s: z.ZodUnion): unknown {
  return (s.options as unknown[]).find((o) => unwrapped(o).shape === 'object');
}

function planOf(s: z.ZodObject): ObjectPlan {
  let plan = plans.get(s);
  if (!plan) {
    const shape = s.shape as Record<string, unknown>;
    const keys = Object.keys(shape);
    plan = {
      shape,
      byLower: new Map(keys.map((k) => [k.toLowerCase(), k])),
      nested: new Set(keys.filter((k) => hasKeysToRename(shape[k]))),
      asIs: undefined,
    };
    plans.set(s, plan);
  }
  return plan;
}

/**
 * Renames the value's property names to the schema's spelling when they differ only in case, as
 * ASP.NET Core's web JSON defaults do (the mobile app sends `apikey`, other services PascalCase).
 * An object already spelled as the schema, with nothing nested to rename, is returned as it is:
 * a batch of thousands of records pays for a key check per field, not for a copy.
 */
export function normalizeKeys(value: unknown, schema: unknown): unknown {
  const { s, shape: takes } = unwrapped(schema);
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  // A union that takes an object (or something else): the object option's spelling.
  if (takes === 'union' && isObject) {
    const option = objectOption(s as z.ZodUnion);
    return option ? normalizeKeys(value, option) : value;
  }
  if (takes === 'array' && Array.isArray(value)) {
    // Copied only from the first element that changes: a batch's thousands of records, spelled as
    // the schema, are not copied into a second array the parse then copies again.
    const element = (s as z.ZodArray).element;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const n = normalizeKeys(v, element);
      if (out === undefined && n !== v) out = value.slice(0, i);
      out?.push(n);
    }
    return out ?? value;
  }
  if (takes === 'object' && isObject) {
    const plan = planOf(s as z.ZodObject);
    const { shape, byLower, nested } = plan;
    if (byLower.size === 0) return value;
    const record = value as Record<string, unknown>;
    if (sameKeys(record, plan.asIs)) return value;
    const keys: string[] = [];
    let asIs = true;
    for (const key in record) {
      if (!Object.hasOwn(shape, key) || nested.has(key)) {
        asIs = false;
        break;
      }
      keys.push(key);
    }
    if (asIs) {
      plan.asIs = keys;
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(record)) {
      const canonical = Object.hasOwn(shape, key) ? key : (byLower.get(key.toLowerCase()) ?? key);
      // An exact-case key wins over a differently cased duplicate.
      if (canonical in out && key !== canonical) continue;
      out[canonical] = nested.has(canonical) ? normalizeKeys(v, shape[canonical]) : v;
    }
    return out;
  }
  return value;
}

/** Whether the object's enumerable keys are exactly `known`, in its order. */
function sameKeys(record: Record<string, unknown>, known: string[] | undefined): boolean {
  if (known === undefined) return false;
  let i = 0;
  for (const key in record) {
    if (key !== known[i]) return false;
    i++;
  }
  return i === known.length;
}

export function zodErrors(error: z.ZodError): ValidationErrors {
  const errors: ValidationErrors = {};
  for (const issue of error.issues) {
    // Named as the message names the field (`clusters[0].name`), as ASP.NET keys its ModelState.
    const key = fieldPath(issue.path) || '$';
    const list = errors[key] ?? [];
    list.push(issue.message);
    errors[key] = list;
  }
  return errors;
}

/** The 400 of a failed parse: `detail` names the first problem, `errors` lists them all by field. */
export function validationProblem(error: z.ZodError, what = 'request'): HttpError {
  return badRequest(firstProblem(error, what), zodErrors(error));
}

/** Parses a value with a schema; a failure is a 400 naming the first problem in words. */
export function validate<T>(schema: ZodType<T>, value: unknown, what = 'request'): T {
  const r = schema.safeParse(normalizeKeys(value, schema), { error: plainIssue });
  if (!r.success) throw validationProblem(r.error, what);
  return r.data;
}

/**
 * A JSON body's text parsed: 413 past `maxBytes`, 400 when blank or not JSON. `maxBytes` null: the
 * caller bounded the body before it read it.
 */
export function parseJsonText(text: string, maxBytes: number | null = MAX_BODY_BYTES): unknown {
  if (maxBytes !== null && Buffer.byteLength(text) > maxBytes) {
    throw new HttpError(413, `The request body is larger than ${maxBytes} bytes.`);
  }
  if (text.trim() === '') throw badRequest('A JSON request body is required.');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`The request body is not valid JSON: ${(e as Error).message}`);
  }
}
