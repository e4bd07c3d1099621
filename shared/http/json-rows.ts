/**
 * JSON text of a long list of flat rows with known keys (the metrics sample lists: tens of thousands
 * of rows of a dozen strings, numbers, booleans, nulls and Dates). JSON.stringify with a replacer
 * and a Date-to-string pass over every row cost more than the database read (profiled with
 * `node --cpu-prof`); here each key's text is written once per list, each distinct string is quoted
 * once (a series' names repeat in every one of its rows), and each distinct instant is formatted
 * once (samples of one cycle, and every bucket of a rollup, share their timestamp).
 *
 * The text equals JSON.stringify of the rows with Dates formatted by `time`, except that a key
 * whose value is undefined is written as null instead of left out (rows here have no undefined).
 */
export function jsonRows(
  rows: readonly object[],
  keys: readonly string[],
  time: (d: Date) => string,
): string {
  if (!rows.length) return '[]';
  const prefixes = keys.map((k, i) => `${i ? ',' : '{'}${JSON.stringify(k)}:`);
  const quoted = new Map<string, string>();
  const times = new Map<number, string>();
  const value = (v: unknown): string => {
    switch (typeof v) {
      case 'string': {
        let q = quoted.get(v);
        if (q === undefined) {
          q = JSON.stringify(v);
          quoted.set(v, q);
        }
        return q;
      }
      case 'number':
        return Number.isFinite(v) ? String(v) : 'null';
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        if (v === null) return 'null';
        if (v instanceof Date) {
          const ms = v.getTime();
          let t = times.get(ms);
          if (t === undefined) {
            t = JSON.stringify(time(v));
            times.set(ms, t);
          }
          return t;
        }
        return JSON.stringify(v);
      }
      case 'undefined':
        return 'null';
      default:
        return JSON.stringify(v) ?? 'null';
    }
  };
  const out: string[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as Record<string, unknown>;
    let text = '';
    for (let i = 0; i < keys.length; i++) text += prefixes[i] + value(row[keys[i]!]);
    out[r] = `${text}}`;
  }
  return `[${out.join(',')}]`;
}
