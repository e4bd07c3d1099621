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

/** Field name → messages, collected before one 400 names them all. */
class Problems {
  readonly errors: Record<string, string[]> = {};
  add(name: string, message: string): void {
    const list = this.errors[name] ?? [];
    list.push(message);
    this.errors[name] = list;
  }
  throwIfAny(detail: string): void {
    if (Object.keys(this.errors).length) throw badRequest(detail, this.errors);
  }
}

/**
 * Refuses NUL characters (PostgreSQL text cannot hold them) and over-long values in path
 * parameters and the query string, with 400 naming each offending name.
 */
export function checkRequestStrings(params: Record<string, string>, query: URLSearchParams): void {
  const problems = new Problems();
  const check = (name: string, value: string) => {
    if (value.includes(NUL)) problems.add(name, 'must not contain a NUL character');
    else if (value.length > MAX_PARAM_CHARS)
      problems.add(name, `must be at most ${MAX_PARAM_CHARS} characters`);
  };
  for (const [name, value] of Object.entries(params)) check(name, value);
  for (const [name, value] of query) {
    check(name, value);
    if (name.includes(NUL)) problems.add('$query', 'a parameter name contains a NUL character');
  }
  problems.throwIfAny('The request is invalid.');
}

/** The same rules for every string and property name of a parsed JSON body. */
export function checkBodyStrings(value: unknown): void {
  const problems = new Problems();
  const walk = (v: unknown, path: string, depth: number): void => {
    const at = path || '$';
    if (typeof v === 'string') {
      if (v.includes(NUL)) problems.add(at, 'must not contain a NUL character');
      else if (v.length > MAX_BODY_STRING_CHARS)
        problems.add(at, `must be at most ${MAX_BODY_STRING_CHARS} characters`);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (depth > MAX_BODY_DEPTH) {
      problems.add(at, `is nested more than ${MAX_BODY_DEPTH} levels deep`);
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], `${path}[${i}]`, depth + 1);
      return;
    }
    for (const [key, item] of Object.entries(v)) {
      if (key.includes(NUL) || key.length > MAX_NAME_CHARS) {
        problems.add(at, 'has an invalid property name');
        continue;
      }
      walk(item, path ? `${path}.${key}` : key, depth + 1);
    }
  };
  walk(value, '', 0);
  problems.throwIfAny('The request body is invalid.');
}
