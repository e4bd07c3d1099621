import { describe, expect, it } from 'vitest';
import { rowsToJson } from '../../shared/http/json-rows.js';

describe('rowsToJson', () => {
  it('writes the rows as JSON with their instants formatted by `time`, other values as JSON.stringify does', () => {
    const at = new Date('2026-11-27T10:00:00.120Z');
    const rows = [
      { t: at, a: 1.5, b: 'quote " and \\ and \n', c: null, d: true, u: null },
      { t: at, a: Number.NaN, b: 'ü €', c: 0, d: false, u: new Date(0) },
    ];
    const time = (d: Date) => `at ${d.getTime()}`;
    expect(JSON.parse(rowsToJson(rows, ['t', 'u'], time))).toEqual([
      {
        t: `at ${Date.UTC(2026, 10, 27, 10, 0, 0, 120)}`,
        a: 1.5,
        b: 'quote " and \\ and \n',
        c: null,
        d: true,
        u: null,
      },
      { t: `at ${Date.UTC(2026, 10, 27, 10, 0, 0, 120)}`, a: null, b: 'ü €', c: 0, d: false, u: 'at 0' },
    ]);
  });

  it('writes an empty list as []', () => {
    expect(rowsToJson([], ['t'], String)).toBe('[]');
  });
});
