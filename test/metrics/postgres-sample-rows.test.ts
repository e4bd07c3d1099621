import { describe, expect, it } from 'vitest';
import { parseSampleRows } from '../../shared/metrics/store/postgres/reads.js';

/** The columns of rows, as the samples statement's json_agg per column writes them. */
const columnsOf = (rows: unknown[][]) => JSON.stringify(rows[0]!.map((_, c) => rows.map((row) => row[c])));

/** The PostgreSQL store's samples arrive as one JSON text of columns; the store reads rows, newest first. */
describe('sample rows read from the samples statement', () => {
  it('turns the columns into rows and keeps rows that arrive newest first, then by series, as they are', () => {
    const rows = [
      [2000, 1, 0.5, 1e8, 0, null, 1],
      [2000, 2, 0.25, 2e8, 1, 60, null],
      [1000, 1, 0.125, 3e8, 0, 30, 2],
    ];
    expect(parseSampleRows([[columnsOf(rows)]])).toEqual(rows);
  });

  it('puts rows in that order when the database sent them otherwise', () => {
    const rows = parseSampleRows([
      [
        columnsOf([
          [1000, 2, 3],
          [2000, 2, 2],
          [2000, 1, 1],
          [1000, 1, 4],
        ]),
      ],
    ]);
    expect(rows).toEqual([
      [2000, 1, 1],
      [2000, 2, 2],
      [1000, 1, 4],
      [1000, 2, 3],
    ]);
  });

  it("gives each series' newest row of a rollup read its latest sample's time, newest first again", () => {
    const rows = [
      [600_000, 1, 0.5],
      [600_000, 2, 0.25],
      [0, 1, 0.125],
      [0, 2, 0.75],
    ];
    const latest = JSON.stringify([
      [1, 640_000.4],
      [2, 700_000],
    ]);
    expect(parseSampleRows([[columnsOf(rows), latest]])).toEqual([
      [700_000, 2, 0.25],
      [640_000, 1, 0.5],
      [0, 1, 0.125],
      [0, 2, 0.75],
    ]);
  });

  it('answers no rows when the window holds none (every column is NULL)', () => {
    expect(parseSampleRows([['[null, null, null]']])).toEqual([]);
    expect(parseSampleRows([[null]])).toEqual([]);
    expect(parseSampleRows([])).toEqual([]);
  });
});
