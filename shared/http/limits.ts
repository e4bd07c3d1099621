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
 * Refuses NUL characters (PostgreSQL text cannot hold them) and over-long values in path
 * parameters and the query string, with 400 naming each offending name.
 */
export function checkRequestStrings(params: Record<string, string>, query: URLSearchParams): void {
  const errors: Record<string, string[]> = {};
  const check = (name: string, value: string) => {
    if (value.includes(NUL)) (errors[name] ??= []).push('must not contain a NUL character');
    else if (value.length > MAX_PARAM_CHARS)
      (errors[name] ??= []).push(`must be at most ${MAX_PARAM_CHARS} characters`);
  };
  for (const [name, value] of Object.entries(params)) check(name, value);
  for (const [name, value] of query) {
    check(name, value);
    if (name.includes(NUL)) (errors.$query ??= []).push('a parameter name contains a NUL character');
  }
  if (Object.keys(errors).length) throw badRequest('The request is invalid.', errors);
}

/** The same rules for every string and property name of a parsed JSON body. */
export function checkBodyStrings(value: unknown): void {
  const errors: Record<string, string[]> = {};
  const walk = (v: unknown, path: string, depth: number) => {
    if (typeof v === 'string') {
      if (v.includes(NUL)) (errors[path || '$'] ??= []).push('must not contain a NUL character');
      else if (v.length > MAX_BODY_STRING_CHARS)
        (errors[path || '$'] ??= []).push(`must be at most ${MAX_BODY_STRING_CHARS} characters`);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (depth > MAX_BODY_DEPTH) {
      (errors[path || '$'] ??= []).push(`is nested more than ${MAX_BODY_DEPTH} levels deep`);
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${path}[${i}]`, depth + 1));
      return;
    }
    for (const [key, item] of Object.entries(v)) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes(NUL) || key.length > MAX_NAME_CHARS) {
        (errors[path || '$'] ??= []).push('has an invalid property name');
        continue;
      }
      walk(item, at, depth + 1);
    }
  };
  walk(value, '', 0);
  if (Object.keys(errors).length) throw badRequest('The request body is invalid.', errors);
}
