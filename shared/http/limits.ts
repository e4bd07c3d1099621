import { badRequest } from './problem.js';

/**
 * Lengths every input is held to before anything is looked up. Besides memory, they keep values
 * under PostgreSQL's B-tree limit (about 2,700 bytes per index entry; a character may take 4).
 */
export const MAX_EMAIL_CHARS = 254; // RFC 5321's path limit
export const MAX_NAME_CHARS = 256;
export const MAX_PASSWORD_CHARS = 1024;
export const MAX_SECRET_CHARS = 512;
/** Any path parameter or query value (ids, names, search terms, dates). */
export const MAX_PARAM_CHARS = 512;
/** Any string anywhere in a JSON body, whatever its field (the longest, an action, is 4,000). */
export const MAX_BODY_STRING_CHARS = 8192;
/** Keys and nesting of a JSON body, so that walking it stays cheap. */
const MAX_BODY_DEPTH = 32;

export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

const NUL = '\u0000';
/**
 * An unpaired UTF-16 surrogate (JSON allows `"\ud800"`): PostgreSQL's jsonb and text refuse it,
 * and a text column would otherwise keep U+FFFD in its place. Refused here, once, for every route.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NOT_UNICODE = 'must not contain an unpaired surrogate (\\ud800-\\udfff); send valid Unicode';

/** Problems by field; the first one becomes the answer's message, as validation errors do. */
class Issues {
  readonly byField: Record<string, string[]> = {};
  add(field: string, problem: string): void {
    const list = this.byField[field] ?? [];
    list.push(problem);
    this.byField[field] = list;
  }
  throwIfAny(): void {
    const first = Object.entries(this.byField)[0];
    if (!first) return;
    const [field, [problem]] = first;
    const subject = field === '$' ? 'the body' : field === '$query' ? 'the query string' : field;
    throw badRequest(`${subject} ${problem}`, this.byField);
  }
}

/**
 * Refuses NUL characters (PostgreSQL text cannot hold them), unpaired surrogates and over-long values in path
 * parameters and the query string, with 400 naming each offending name.
 */
export function checkRequestStrings(params: Record<string, string>, query: URLSearchParams): void {
  const issues = new Issues();
  const check = (name: string, value: string) => {
    if (value.includes(NUL)) issues.add(name, 'must not contain a NUL character');
    else if (LONE_SURROGATE.test(value)) issues.add(name, NOT_UNICODE);
    else if (value.length > MAX_PARAM_CHARS)
      issues.add(name, `must be at most ${MAX_PARAM_CHARS} characters`);
  };
  for (const [name, value] of Object.entries(params)) check(name, value);
  for (const [name, value] of query) {
    if (name.includes(NUL)) issues.add('$query', 'has a parameter name with a NUL character');
    else check(name, value);
  }
  issues.throwIfAny();
}

/** The same rules for every string and property name of a parsed JSON body. */
export function checkBodyStrings(value: unknown): void {
  const issues = new Issues();
  const walk = (v: unknown, path: string, depth: number) => {
    if (typeof v === 'string') {
      if (v.includes(NUL)) issues.add(path || '$', 'must not contain a NUL character');
      else if (LONE_SURROGATE.test(v)) issues.add(path || '$', NOT_UNICODE);
      else if (v.length > MAX_BODY_STRING_CHARS)
        issues.add(path || '$', `must be at most ${MAX_BODY_STRING_CHARS} characters`);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (depth > MAX_BODY_DEPTH) {
      issues.add(path || '$', `is nested more than ${MAX_BODY_DEPTH} levels deep`);
      return;
    }
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, `${path}[${i}]`, depth + 1);
      return;
    }
    for (const [key, item] of Object.entries(v)) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes(NUL) || key.length > MAX_NAME_CHARS || LONE_SURROGATE.test(key)) {
        issues.add(path || '$', 'has an invalid property name');
        continue;
      }
      walk(item, at, depth + 1);
    }
  };
  walk(value, '', 0);
  issues.throwIfAny();
}
