/**
 * A very small KQL interpreter: just enough of Resource Graph's language for the queries finwatch
 * sends. Supported: the tables `Resources`, `ResourceContainers` and `AdvisorResources`,
 * `where a =~ 'x'` / `==` / `!=` / `in~ ('x','y')` joined by `and`, `project a, b`,
 * `union (Table | …)`, `order by a [asc|desc]` (or `sort by`), `take n` / `limit n`. Anything else is
 * rejected with an error, as the real service rejects malformed queries.
 */

export class KqlError extends Error {}

type Row = Record<string, unknown>;
type Stage = (rows: Row[], tables: Tables) => Row[];
/** The rows of a table by its lower-case name (resources, resourcecontainers, advisorresources). */
export type Tables = (name: string) => Row[];
const TABLES = new Set(['resources', 'resourcecontainers', 'advisorresources']);

function getPath(row: Row, path: string): unknown {
  let cur: unknown = row;
  for (const part of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function unquote(s: string): string {
  const t = s.trim();
  const m = /^'((?:[^'\\]|\\.)*)'$/.exec(t) ?? /^"((?:[^"\\]|\\.)*)"$/.exec(t);
  if (!m) throw new KqlError(`Expected a string literal, got: ${t}`);
  return m[1]!.replace(/\\(.)/g, '$1');
}

function splitTopLevel(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let depth = 0;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === sep && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out;
}

function condition(text: string): (row: Row) => boolean {
  const m = /^\s*([A-Za-z_][\w.]*)\s*(=~|==|!=|!~|in~|in)\s*(.+?)\s*$/s.exec(text);
  if (!m) throw new KqlError(`Unsupported where clause: ${text.trim()}`);
  const [, field, op, rhs] = m as unknown as [string, string, string, string];
  const ci = op === '=~' || op === '!~' || op === 'in~';
  const norm = (v: unknown) => (ci ? String(v ?? '').toLowerCase() : String(v ?? ''));
  if (op === 'in' || op === 'in~') {
    const inner = /^\((.*)\)$/s.exec(rhs);
    if (!inner) throw new KqlError(`Expected a list after ${op}`);
    const values = new Set(splitTopLevel(inner[1]!, ',').map((v) => norm(unquote(v))));
    return (row) => values.has(norm(getPath(row, field)));
  }
  const value = norm(unquote(rhs));
  const negate = op === '!=' || op === '!~';
  return (row) => (norm(getPath(row, field)) === value) !== negate;
}

function stage(text: string): Stage {
  const t = text.trim();
  let m = /^where\s+(.+)$/is.exec(t);
  if (m) {
    const parts = m[1]!.split(/\s+and\s+/i).map(condition);
    return (rows) => rows.filter((r) => parts.every((p) => p(r)));
  }
  m = /^project\s+(.+)$/is.exec(t);
  if (m) {
    const fields = m[1]!.split(',').map((f) => f.trim());
    for (const f of fields) if (!/^[A-Za-z_]\w*$/.test(f)) throw new KqlError(`Unsupported projection: ${f}`);
    return (rows) => rows.map((r) => Object.fromEntries(fields.map((f) => [f, r[f] ?? null])));
  }
  m = /^(?:order|sort)\s+by\s+([A-Za-z_][\w.]*)(?:\s+(asc|desc))?$/is.exec(t);
  if (m) {
    const field = m[1]!;
    const dir = (m[2] ?? 'desc').toLowerCase() === 'asc' ? 1 : -1; // KQL sorts descending by default
    return (rows) =>
      [...rows].sort((a, b) => {
        const x = String(getPath(a, field) ?? '');
        const y = String(getPath(b, field) ?? '');
        return x < y ? -dir : x > y ? dir : 0;
      });
  }
  m = /^union\s+\((.+)\)$/is.exec(t);
  if (m) {
    const inner = compileQuery(m[1]!);
    return (rows, tables) => [...rows, ...inner(tables)];
  }
  m = /^(?:take|limit)\s+(\d+)$/i.exec(t);
  if (m) {
    const n = Number(m[1]);
    return (rows) => rows.slice(0, n);
  }
  throw new KqlError(`Unsupported query operator: ${t.split(/\s+/)[0] ?? ''}`);
}

/** Compiles a query into a function over the tables. */
export function compileQuery(query: string): (tables: Tables) => Row[] {
  const [source, ...rest] = splitTopLevel(query, '|');
  const table = (source ?? '').trim().toLowerCase();
  if (!TABLES.has(table)) {
    throw new KqlError(`Unsupported table: ${(source ?? '').trim()}`);
  }
  const stages = rest.map(stage);
  return (tables) => stages.reduce((rows, s) => s(rows, tables), tables(table));
}
