import { describe, expect, it } from 'vitest';
import { jsonRows } from '../../shared/http/json-rows.js';

describe('jsonRows', () => {
  it('writes the same text as JSON.stringify of the rows, keys in the order given, Dates by the formatter', () => {
    const at = new Date('2026-11-27T10:00:00.120Z');
    const rows = [
      { b: 'quote " and \\ and \n', a: 1.5, c: null, d: true, t: at, e: -0, f: 'ü €' },
      { b: 'quote " and \\ and \n', a: Number.NaN, c: 0, d: false, t: at, e: 2 ** 53, f: '' },
      { b: 'x', a: 1e21, c: Number.POSITIVE_INFINITY, d: true, t: new Date(0), e: 0.1 + 0.2, f: '\u0001' },
    ];
    const keys = ['t', 'a', 'b', 'c', 'd', 'e', 'f'];
    const time = (d: Date) => `at ${d.getTime()}`;
    const expected = JSON.stringify(
      rows.map((r) =>
        Object.fromEntries(
          keys.map((k) => [k, r[k as keyof typeof r] instanceof Date ? time(r.t) : r[k as keyof typeof r]]),
        ),
      ),
    );
    expect(jsonRows(rows, keys, time)).toBe(expected);
    expect(JSON.parse(jsonRows(rows, keys, time))[0]).toEqual({
      t: `at ${Date.UTC(2026, 10, 27, 10, 0, 0, 120)}`,
      a: 1.5,
      b: 'quote " and \\ and \n',
      c: null,
      d: true,
      e: 0,
      f: 'ü €',
    });
  });

  it('writes an empty list as []', () => {
    expect(jsonRows([], ['a'], String)).toBe('[]');
  });
});
