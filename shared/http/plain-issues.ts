import type { z } from 'zod';

/**
 * Validation messages a person can read. The original's web client shows only `message`, so a
 * 400 must name the first problem in words ("username must be at least 3 characters") rather
 * than "The request body is invalid." with the reason hidden in `errors`.
 *
 * Messages set on a schema (`z.string().min(3, 'must be at least 3 characters')`) win over this map
 * (zod's precedence); they are written as fragments that follow the field name, like these.
 */

type RawIssue = z.core.$ZodRawIssue;

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list',
  date: 'a date',
  tuple: 'a list',
  record: 'a JSON object',
};

const FORMAT_WORDS: Record<string, string> = {
  email: 'an email address',
  guid: 'a GUID',
  uuid: 'a GUID',
  url: 'a URL',
  datetime: 'an ISO 8601 date and time',
  date: 'an ISO 8601 date',
  time: 'an ISO 8601 time',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

const plural = (n: number | bigint, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`;

function sizeWords(origin: string, bound: number | bigint): string {
  if (origin === 'string') return plural(bound, 'character', 'characters');
  if (origin === 'array' || origin === 'set') return plural(bound, 'item', 'items');
  if (origin === 'date') return new Date(Number(bound)).toISOString();
  return String(bound);
}

function listWords(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

/**
 * A value no option of a union accepted: the message of the option it came closest to (right type,
 * wrong value), else the types it could have been ("must be a number or a string").
 */
function unionWords(branches: readonly (readonly z.core.$ZodIssue[])[]): string {
  const closest = branches.find((b) => b.length > 0 && b.every((i) => i.code !== 'invalid_type'));
  const first = closest?.[0];
  if (first && first.path.length === 0) return first.message;
  const types = branches.map((b) => b.find((i) => i.code === 'invalid_type' && i.path.length === 0));
  if (types.every((t) => t?.code === 'invalid_type')) {
    const words = [
      ...new Set(
        types.map((t) => (t?.code === 'invalid_type' ? (TYPE_WORDS[t.expected] ?? t.expected) : '')),
      ),
    ];
    return `must be ${words.join(' or ')}`;
  }
  return 'is not any of the accepted shapes';
}

/** A zod error map giving fragments that read after a field name ("must be a GUID"). */
export function plainIssue(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined || issue.input === null) return 'is required';
      const words = TYPE_WORDS[issue.expected];
      return words ? `must be ${words}` : 'has the wrong type';
    }
    case 'too_small': {
      const origin = String(issue.origin);
      if (origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      if (origin === 'array' || origin === 'set') {
        return `must list at least ${sizeWords(origin, issue.minimum)}`;
      }
      if (issue.exact) return `must be exactly ${sizeWords(origin, issue.minimum)}`;
      if (issue.inclusive === false) return `must be more than ${sizeWords(origin, issue.minimum)}`;
      return `must be at least ${sizeWords(origin, issue.minimum)}`;
    }
    case 'too_big': {
      const origin = String(issue.origin);
      if (origin === 'array' || origin === 'set') {
        return `must list at most ${sizeWords(origin, issue.maximum)}`;
      }
      if (issue.exact) return `must be exactly ${sizeWords(origin, issue.maximum)}`;
      if (issue.inclusive === false) return `must be less than ${sizeWords(origin, issue.maximum)}`;
      return `must be at most ${sizeWords(origin, issue.maximum)}`;
    }
    case 'invalid_format': {
      const words = FORMAT_WORDS[issue.format];
      return words ? `must be ${words}` : 'is not in the expected format';
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `has unknown properties: ${issue.keys.join(', ')}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${listWords(issue.values)}`
        : `must be one of ${listWords(issue.values)}`;
    case 'invalid_union':
      return unionWords(issue.errors);
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid entry';
    default:
      return 'is invalid';
  }
}

/** A field path as the answers write it: `clusters[0].name`, after `prefix` when one is given. */
export function fieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** How a field path reads in a sentence: `username`, `clusters[0].name`, `request body[0].userId`. */
export function fieldLabel(path: readonly PropertyKey[], what: string): string {
  const out = fieldPath(path);
  return out === '' ? `The ${what}` : out.startsWith('[') ? `${what}${out}` : out;
}

/**
 * The first problem of a failed parse as one sentence: the field name followed by its message,
 * or the message alone when a schema wrote it as a full sentence (it starts with a capital).
 */
export function firstProblem(error: z.ZodError, what: string): string {
  const issue = error.issues[0];
  if (!issue) return `The ${what} is invalid.`;
  const message = issue.message.trim();
  if (/^[A-Z]/.test(message)) return message;
  return `${fieldLabel(issue.path, what)} ${message}`;
}
