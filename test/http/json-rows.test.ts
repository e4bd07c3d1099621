import { describe, expect, it } from 'vitest';
import { rowsToJson, rowsToJsonInTurns } from '../../shared/http/json-rows.js';

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

  it('writes the same text a few rows per turn (rowsToJsonInTurns)', async () => {
    const rows = () =>
      Array.from({ length: 7 }, (_, i) => ({ t: new Date(i * 1000), n: i / 3, s: `row "${i}"` }));
    const whole = rowsToJson(rows(), ['t'], (d) => d.toISOString());
    expect(await rowsToJsonInTurns(rows(), ['t'], (d) => d.toISOString(), 2)).toBe(whole);
    expect(await rowsToJsonInTurns(rows(), ['t'], (d) => d.toISOString(), 7)).toBe(whole);
    expect(await rowsToJsonInTurns([], ['t'], String, 2)).toBe('[]');
  });
});
