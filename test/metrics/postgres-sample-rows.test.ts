import { describe, expect, it } from 'vitest';
import { parseSampleRows } from '../../shared/metrics/store/postgres/reads.js';

/** The PostgreSQL store's samples arrive as one JSON text; the store reads them newest first. */
describe('sample rows read from the samples statement', () => {
  it('keeps rows that arrive newest first, then by series, as they are', () => {
    const text = JSON.stringify([
      [2000, 1, 0.5, 1e8, 0, null, 1],
      [2000, 2, 0.25, 2e8, 1, 60, null],
      [1000, 1, 0.125, 3e8, 0, 30, 2],
    ]);
    expect(parseSampleRows([[text]])).toEqual(JSON.parse(text));
  });

  it('puts rows in that order when the database sent them otherwise', () => {
    const rows = parseSampleRows([
      [
        JSON.stringify([
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

  it('answers no rows when the window holds none (the aggregate is NULL)', () => {
    expect(parseSampleRows([[null]])).toEqual([]);
    expect(parseSampleRows([])).toEqual([]);
  });
});
