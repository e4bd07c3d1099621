/**
 * How the write statements' column arrays (`$n::type[]`, one array per column) reach PostgreSQL.
 *
 * On a PostgreSQL server (pg) an array of numbers, booleans or times goes in PostgreSQL's binary
 * array format: one Buffer a column, written value by value, which pg sends as it is. As text,
 * every value was a string of its own on the host (7 of them a pod sample, plus a text per
 * rollup row's times) and a number PostgreSQL then parsed back. On Prisma's raw queries (PGlite),
 * which take no binary parameters, the same arrays go as text literals.
 *
 * Times are epoch milliseconds in the arrays (what a Date holds); each path writes them as its
 * format wants. A value the binary format would store otherwise than the text did (a float4
 * exactly halfway between two, an integer out of range, NaN) sends its column as text, so that
 * PostgreSQL stores or refuses it exactly as before.
 */

/** The `$n::type[]` casts of a statement's parameters, by parameter number (index 0 is $1). */
export function paramCasts(sql: string): string[] {
  const casts: string[] = [];
  for (const m of sql.matchAll(/\$(\d+)::([a-z0-9 ]+)\[\]/g)) casts[Number(m[1]) - 1] = m[2]!;
  return casts;
}

/**
 * The rows of a write statement's column arrays: `SELECT unnest($first::type[]), unnest(…), …`,
 * one parameter a cast, numbered from `first`. Each array is unnested in the select list, not as
 * `SELECT * FROM unnest(a, b, …)`: the select list's set-returning functions run in a ProjectSet
 * node that takes each array's next element per row, while a FROM function first copies every
 * array's elements into a tuplestore of its own. Measured on the batched bench's pod batches, one
 * at a time: the samples statement's backend CPU 4.2-5.3 -> 3.4-4.1 us a sample. Both forms give
 * the same rows, arrays of unequal length padded with nulls alike (PostgreSQL 10 and later).
 */
export function unnestSelect(casts: readonly string[], first = 1): string {
  return `SELECT ${casts.map((c, n) => `unnest($${first + n}::${c}[])`).join(', ')}`;
}

/** Characters that would need quoting inside a PostgreSQL array literal. */
const NEEDS_QUOTES = /[{},"\\\s]|^null$/i;

/**
 * A column's values as a PostgreSQL array literal, for values that need no quoting (numbers,
 * booleans, null, ISO times, digit texts): a join instead of pg's per-element escaping. Anything
 * else goes to the driver as it is. Times (a timestamptz column's epoch milliseconds) as ISO text.
 */
export function textArray(type: string | undefined, values: readonly unknown[]): unknown {
  const time = type === 'timestamptz';
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return time ? values.map(isoOf) : values;
      parts[i] = time ? new Date(v).toISOString() : String(v);
    } else if (typeof v === 'boolean') parts[i] = v ? 't' : 'f';
    else if (typeof v === 'string' && v !== '' && !NEEDS_QUOTES.test(v)) parts[i] = v;
    else return time ? values.map(isoOf) : values;
  }
  return `{${parts.join(',')}}`;
}

const isoOf = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? new Date(v).toISOString() : v);

/** Element types the binary format is written for: OID and bytes a value. */
const BINARY: Record<string, { oid: number; width: number }> = {
  boolean: { oid: 16, width: 1 },
  smallint: { oid: 21, width: 2 },
  integer: { oid: 23, width: 4 },
  bigint: { oid: 20, width: 8 },
  real: { oid: 700, width: 4 },
  'double precision': { oid: 701, width: 8 },
  timestamptz: { oid: 1184, width: 8 },
};

/** PostgreSQL's epoch (2000-01-01 UTC) in Unix milliseconds: its times count microseconds from it. */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;
const INT8_TEXT = /^-?\d{1,19}$/;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * Whether `v`'s float4 is the one PostgreSQL's text input picks: the nearest, unless `v` lies
 * exactly halfway between two, where rounding the double and rounding its shortest decimal text
 * can part. Zero from a non-zero value (text input refuses an underflow) and overflow are out too.
 */
function float4Exact(v: number): boolean {
  const f = Math.fround(v);
  if (f === v) return true;
  if (!Number.isFinite(f) || f === 0) return false;
  f32[0] = f;
  // The float4 on v's other side: one step away from f, toward v.
  u32[0] = v > f === f > 0 ? u32[0]! + 1 : u32[0]! - 1;
  return v - f !== f32[0]! - v;
}

/**
 * The values in PostgreSQL's binary array format for `type` (array_recv: dimensions, a null
 * flag, the element OID, then each value's length and bytes), or undefined when the type has no
 * binary writer here or a value cannot be written exactly (the caller then sends text).
 */
export function binaryArray(type: string | undefined, values: readonly unknown[]): Buffer | undefined {
  const spec = type === undefined ? undefined : BINARY[type];
  if (!spec) return undefined;
  const n = values.length;
  let nulls = 0;
  for (let i = 0; i < n; i++) if (values[i] === null || values[i] === undefined) nulls++;
  const header = n === 0 ? 12 : 20;
  const buf = Buffer.allocUnsafe(header + n * 4 + (n - nulls) * spec.width);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
  view.setInt32(0, n === 0 ? 0 : 1);
  view.setInt32(4, nulls ? 1 : 0);
  view.setInt32(8, spec.oid);
  if (n) {
    view.setInt32(12, n);
    view.setInt32(16, 1);
  }
  let at = header;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      view.setInt32(at, -1);
      at += 4;
      continue;
    }
    view.setInt32(at, spec.width);
    at += 4;
    switch (type) {
      case 'boolean':
        if (typeof v !== 'boolean') return undefined;
        view.setUint8(at, v ? 1 : 0);
        break;
      case 'smallint':
        if (!Number.isInteger(v) || (v as number) < -32_768 || (v as number) > 32_767) return undefined;
        view.setInt16(at, v as number);
        break;
      case 'integer':
        if (!Number.isInteger(v) || (v as number) < -2_147_483_648 || (v as number) > 2_147_483_647)
          return undefined;
        view.setInt32(at, v as number);
        break;
      case 'bigint': {
        if (Number.isSafeInteger(v)) writeInt64(view, at, v as number);
        else if (typeof v === 'string' && INT8_TEXT.test(v)) {
          const big = BigInt(v);
          if (big !== BigInt.asIntN(64, big)) return undefined;
          view.setBigInt64(at, big);
        } else return undefined;
        break;
      }
      case 'real':
        if (typeof v !== 'number' || !Number.isFinite(v) || !float4Exact(v)) return undefined;
        view.setFloat32(at, v);
        break;
      case 'double precision':
        if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
        view.setFloat64(at, v);
        break;
      default: {
        // timestamptz: whole epoch milliseconds (a Date's), as microseconds since 2000-01-01.
        const micros = ((v as number) - PG_EPOCH_MS) * 1000;
        if (!Number.isSafeInteger(v) || !Number.isSafeInteger(micros)) return undefined;
        writeInt64(view, at, micros);
      }
    }
    at += spec.width;
  }
  return buf;
}

/** A safe integer as a big-endian int64 without a BigInt a value. */
function writeInt64(view: DataView, at: number, v: number): void {
  const hi = Math.floor(v / TWO_32);
  view.setInt32(at, hi);
  view.setUint32(at + 4, v - hi * TWO_32);
}
