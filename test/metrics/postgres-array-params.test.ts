import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPGlite } from '../../shared/db/client.js';
import {
  binaryArray,
  paramCasts,
  textArray,
  unnestSelect,
} from '../../shared/metrics/store/postgres/array-params.js';
import { pgSql } from '../../shared/metrics/store/postgres/sql.js';
import { TEST_PG_URL } from '../support/databases.js';

const T0 = Date.UTC(2026, 10, 28, 9, 30);

/** Columns as the write statements send them, with the values that could go wrong. */
const CASES: Array<[string, unknown[]]> = [
  ['timestamptz', [T0, T0 + 1, null, Date.UTC(1999, 11, 31, 23, 59, 59, 999), Date.UTC(2100, 0, 1), 0]],
  ['integer', [0, 1, -1, 2_147_483_647, -2_147_483_648, null, 86_400]],
  ['smallint', [1, null, 32_767, -32_768]],
  ['bigint', [0, 2 ** 31, 2 ** 53 - 1, -(2 ** 40), '9223372036854775807', '-9223372036854775808', null]],
  ['double precision', [0, 0.1, 1e-300, 1.7976931348623157e308, 536870912, 0.412345, null]],
  ['real', [0, 0.1, 0.412345, 1e-40, 3.4e38, 1 / 3, null, 123456.789]],
  ['boolean', [true, false, null]],
  ['integer', []],
];

describe('column arrays for the write statements', () => {
  it('reads each parameter cast of a statement', () => {
    expect(
      paramCasts('SELECT * FROM unnest($2::integer[], $1::timestamptz[], $3::double precision[]), $4'),
    ).toEqual(['timestamptz', 'integer', 'double precision']);
  });

  it('numbers the unnested column arrays from the first parameter, each with its cast', () => {
    const sql = unnestSelect(['timestamptz', 'integer', 'double precision'], 4);
    expect(sql).toBe(
      'SELECT unnest($4::timestamptz[]), unnest($5::integer[]), unnest($6::double precision[])',
    );
    expect(paramCasts(sql)).toEqual([
      undefined,
      undefined,
      undefined,
      'timestamptz',
      'integer',
      'double precision',
    ]);
  });

  it('unnests column arrays into the rows unnest(a, b, …) in FROM gives, nulls and unequal lengths alike', async () => {
    const pglite = await createPGlite('memory://');
    try {
      const params = ['{1,2,NULL,4}', '{a,NULL,"c d"}', '{2026-11-28T09:30:00Z}'];
      const casts = ['integer', 'text', 'timestamptz'];
      const rows = async (select: string) =>
        (await pglite.query(`SELECT x::text FROM (${select}) x`, params)).rows;
      const expected = await rows('SELECT * FROM unnest($1::integer[], $2::text[], $3::timestamptz[])');
      expect(expected).toHaveLength(4);
      expect(await rows(unnestSelect(casts))).toEqual(expected);
      // An upsert that meets its key twice fails the same way either way: no row is written twice.
      await pglite.exec('CREATE TABLE t (k integer PRIMARY KEY, v text)');
      const upsert = (select: string) =>
        pglite.query(`INSERT INTO t ${select} ON CONFLICT (k) DO UPDATE SET v = excluded.v`, [
          [1, 1],
          ['a', 'b'],
        ]);
      await expect(upsert(unnestSelect(['integer', 'text']))).rejects.toThrow(/second time/);
      await expect(upsert('SELECT * FROM unnest($1::integer[], $2::text[])')).rejects.toThrow(/second time/);
    } finally {
      await pglite.close();
    }
  });

  it('sends as text what the binary format would store otherwise than text did', () => {
    // Exactly halfway between two float4s: the double rounds to even, its decimal text upward.
    expect(binaryArray('real', [1 + 2 ** -24])).toBeUndefined();
    expect(binaryArray('real', [1e-50])).toBeUndefined(); // text input refuses the underflow
    expect(binaryArray('real', [1e39])).toBeUndefined(); // and the overflow
    expect(binaryArray('integer', [2_147_483_648])).toBeUndefined();
    expect(binaryArray('integer', [1.5])).toBeUndefined();
    expect(binaryArray('smallint', [40_000])).toBeUndefined();
    expect(binaryArray('bigint', ['9223372036854775808'])).toBeUndefined();
    expect(binaryArray('double precision', [Number.NaN])).toBeUndefined();
    expect(binaryArray('double precision', [Number.POSITIVE_INFINITY])).toBeUndefined();
    expect(binaryArray('text', ['a'])).toBeUndefined();
    expect(binaryArray('boolean', ['t'])).toBeUndefined();
  });

  it('writes times as ISO text and values needing quotes as they are, for the driver to escape', () => {
    expect(textArray('timestamptz', [T0, null])).toBe('{2026-11-28T09:30:00.000Z,NULL}');
    expect(textArray('double precision', [1.5, null, 2])).toBe('{1.5,NULL,2}');
    expect(textArray('text', ['a b', 'é"{}'])).toEqual(['a b', 'é"{}']);
    expect(textArray('double precision', [1, Number.NaN])).toEqual([1, Number.NaN]);
  });
});

describe.skipIf(!TEST_PG_URL)('column arrays on a PostgreSQL server', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: TEST_PG_URL, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
  });

  /** The array as PostgreSQL stores it (its text output), from the parameter as sent. */
  const stored = async (type: string, param: unknown) =>
    (await pool.query(`SELECT $1::${type}[]::text AS t`, [param])).rows[0].t as string;

  it('stores from the binary format exactly what it stored from text', async () => {
    for (const [type, values] of CASES) {
      const binary = binaryArray(type, values);
      expect(binary, type).toBeInstanceOf(Buffer);
      expect(await stored(type, binary), type).toBe(await stored(type, textArray(type, values)));
    }
  });

  it('unnests binary column arrays into the rows unnest(a, b, …) in FROM gives', async () => {
    const casts = ['timestamptz', 'integer', 'real', 'boolean'];
    const params = pgSql(pool).arrays(casts, [
      [T0, T0 + 60_000, null],
      [1, null, 3],
      [0.1, 2.5, null],
      [true, null, false],
    ]);
    const rows = async (select: string) =>
      (await pool.query(`SELECT x::text FROM (${select}) x`, params)).rows;
    const expected = await rows(
      `SELECT * FROM unnest(${casts.map((c, n) => `$${n + 1}::${c}[]`).join(', ')})`,
    );
    expect(expected).toHaveLength(3);
    expect(await rows(unnestSelect(casts))).toEqual(expected);
  });

  it('stores a real column of many decimals as their text did', async () => {
    const values = Array.from({ length: 2000 }, (_, i) => ((i * 7919) % 100_000) / 4000 + i / 1e7);
    expect(await stored('real', binaryArray('real', values))).toBe(
      await stored('real', textArray('real', values)),
    );
  });

  it('falls back to text for a value the binary format cannot carry, refused or stored as before', async () => {
    const sql = pgSql(pool);
    const [halfway] = sql.arrays(['real'], [[1 + 2 ** -24, 0.5]]);
    expect(typeof halfway).toBe('string');
    expect(await stored('real', halfway)).toBe('{1.0000001,0.5}');
    const [tooBig] = sql.arrays(['integer'], [[2 ** 31]]);
    await expect(stored('integer', tooBig)).rejects.toThrow(/out of range/);
    const [nan] = sql.arrays(['double precision'], [[Number.NaN, 1]]);
    expect(await stored('double precision', nan)).toBe('{NaN,1}');
  });
});
