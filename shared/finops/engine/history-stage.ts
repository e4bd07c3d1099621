/**
 * The daily cost history of an analysis, staged page by page in a temporary table as the cost pages
 * arrive, then summed into the run's HistoricalCosts rows by one INSERT … SELECT inside the run's
 * write transaction. The process holds one page at a time, never the run's history (a
 * 10,000-resource subscription has ~650,000 day × group × service cells), and the rows are not
 * part of any run until that transaction commits.
 *
 * A temporary table lives in the session that created it: the writer stages and writes the run on
 * one session (its dedicated connection on PostgreSQL; PGlite has a single session), and a session
 * that ends, a killed host's included, takes the table with it.
 */
import { randomBytes } from 'node:crypto';
import type { DailyCost } from '../azure/index.js';

/** Runs one statement; returns the affected row count. */
export type Exec = (sql: string, params: unknown[]) => Promise<number>;

/**
 * Runs one COPY … FROM STDIN with the given text-format data (written chunk by chunk as the
 * iterable yields it); returns the rows copied. PostgreSQL's writer has one; PGlite's does not.
 */
export type CopyIn = (sql: string, data: Iterable<string>) => Promise<number>;

/** The run's values of the columns the cost pages do not carry. */
export interface StagedHistoryTarget {
  subscriptionId: string;
  currency: string;
  recordedAt: Date;
}

/** Rows per staging statement (a page can be larger; 1,000 measured no lower peak, with 5× the statements). */
const STAGE_CHUNK_ROWS = 5_000;

/**
 * A value in COPY's text format: backslash, tab, newline and carriage return are the characters it
 * reads specially in a field (every other character, unicode included, goes as it is).
 */
function copyField(v: string): string {
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (ch) => COPY_ESCAPES[ch]!) : v;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export interface HistoryStageOptions {
  /** Stage by COPY instead of INSERT … SELECT FROM json_array_elements (PostgreSQL's writer). */
  copyIn?: CopyIn | undefined;
}

export class HistoryStage {
  /** Unique per stage: PGlite's one session may stage two analyses at once. */
  readonly table = `finwatch_history_${randomBytes(6).toString('hex')}`;
  private created = false;
  /** Cost rows staged (before summing per day, group and service). */
  rows = 0;
  /** Time spent in staging statements. */
  ms = 0;
  /** Arrival order of the staged rows: the sums add in it (see writeRun). */
  private seq = 0;

  private readonly copyIn: CopyIn | undefined;

  constructor(
    private readonly exec: Exec,
    options: HistoryStageOptions = {},
  ) {
    this.copyIn = options.copyIn;
  }

  /** Stages one page: yyyy-MM-dd, upper-case group, service, cost. Rows without a date are left out. */
  async add(page: readonly DailyCost[]): Promise<void> {
    const started = performance.now();
    if (!this.created) {
      await this.exec(
        `CREATE TEMPORARY TABLE ${this.table} (n integer NOT NULL, d date NOT NULL, g text NOT NULL, s text NOT NULL, c double precision NOT NULL)`,
        [],
      );
      this.created = true;
    }
    if (this.copyIn) {
      this.rows += await this.copyIn(`COPY ${this.table} (n, d, g, s, c) FROM STDIN`, this.copyText(page));
      this.ms += performance.now() - started;
      return;
    }
    for (let at = 0; at < page.length; at += STAGE_CHUNK_ROWS) {
      // One JSON text per statement: the serializer writes it in one go, where array parameters
      // cost a few strings per value (the history's garbage is what sets the analysis's peak RSS).
      const rows: Array<[string, string, string, number]> = [];
      const end = Math.min(page.length, at + STAGE_CHUNK_ROWS);
      for (let i = at; i < end; i++) {
        const r = page[i]!;
        if (!r.date) continue;
        // JavaScript's upper case, not SQL's upper(): the same groups as every other place that folds them.
        rows.push([r.date, (r.resourceGroup ?? '').toUpperCase(), r.serviceName ?? '', r.cost]);
      }
      if (rows.length === 0) continue;
      // Numbers go as JSON writes them, the shortest text that reads back as the same double.
      this.rows += await this.exec(
        `INSERT INTO ${this.table} (n, d, g, s, c)
         SELECT $2::integer + o::integer - 1, (e->>0)::date, e->>1, e->>2, (e->>3)::double precision
         FROM json_array_elements($1::json) WITH ORDINALITY AS t(e, o)`,
        [JSON.stringify(rows), this.seq],
      );
      this.seq += rows.length;
    }
    this.ms += performance.now() - started;
  }

  /**
   * The page as COPY text, STAGE_CHUNK_ROWS rows a chunk (one round trip a page). Measured per
   * 560,000 rows: String() per cost and a regular expression per field cost ~0.8 s of CPU, the JSON
   * path's stringify 0.2 s; JSON.stringify writes a chunk's costs in one native call (the same
   * shortest text String() gives; a cost that is not finite becomes NULL, which the NOT NULL column
   * refuses as the JSON path's null was), and each page's few distinct dates, groups and services
   * are folded and escaped once.
   */
  private *copyText(page: readonly DailyCost[]): Generator<string> {
    const groups = new Map<string, string>();
    const texts = new Map<string, string>();
    const text = (v: string) => {
      let e = texts.get(v);
      if (e === undefined) {
        e = copyField(v);
        texts.set(v, e);
      }
      return e;
    };
    const group = (v: string) => {
      let e = groups.get(v);
      // JavaScript's upper case, not SQL's upper(): the same groups as every other place that folds them.
      if (e === undefined) {
        e = copyField(v.toUpperCase());
        groups.set(v, e);
      }
      return e;
    };
    for (let at = 0; at < page.length; at += STAGE_CHUNK_ROWS) {
      const rows = page.slice(at, at + STAGE_CHUNK_ROWS).filter((r) => r.date);
      if (rows.length === 0) continue;
      const costs = JSON.stringify(rows.map((r) => r.cost))
        .slice(1, -1)
        .split(',');
      const lines: string[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        const c = costs[i]!;
        lines[i] =
          `${this.seq++}\t${text(r.date)}\t${group(r.resourceGroup ?? '')}\t${text(r.serviceName ?? '')}\t${c === 'null' ? '\\N' : c}\n`;
      }
      yield lines.join('');
    }
  }

  /**
   * Writes the run's HistoricalCosts from the staged rows (inside the run's transaction): per day a
   * Total, per day and group a ResourceGroup row, per day, group and service a Service row, in that
   * order and by day. Costs are summed as doubles in the order the rows arrived (a cell's rows by
   * arrival, a day's or group's cells by their first row), so every sum is the same double as adding
   * in the process would give; a different order changes the last bits and, at a half, the 4th
   * decimal. Then rounded half up to 4 decimals, as Math.round(x * 10000) / 10000 does: floor(x + 0.5)
   * is that rounding, not round(), whose double-precision form rounds ties to even. Returns the rows
   * written.
   */
  async writeRun(exec: Exec, analysisRunId: number, target: StagedHistoryTarget): Promise<number> {
    if (!this.created) return 0;
    // Measured on 560,000 staged rows (PostgreSQL 15): work_mem 128 MB for this statement's sorts
    // (in memory instead of external merges), Totals and groups from one GROUPING SETS pass, and
    // sorting on ranks of the group and service names instead of the texts each took as long or
    // longer; the insert into HistoricalCosts, its indexes and its foreign key are ~70% of it.
    return exec(
      `WITH cells AS (SELECT d, g, s, sum(c ORDER BY n) AS c, min(n) AS f FROM ${this.table} GROUP BY d, g, s),
       summed AS (
         SELECT 0 AS k, d, NULL::text AS g, NULL::text AS s, sum(c ORDER BY f) AS c FROM cells GROUP BY d
         UNION ALL SELECT 1, d, g, NULL::text, sum(c ORDER BY f) FROM cells GROUP BY d, g
         UNION ALL SELECT 2, d, g, s, c FROM cells)
       INSERT INTO "HistoricalCosts"
         ("analysisRunId", "subscriptionId", "costDate", "costType", "resourceGroup", "name", "cost", "currency", "recordedAt")
       SELECT $1::integer, $2::text, d::timestamp(3),
              CASE k WHEN 0 THEN 'Total' WHEN 1 THEN 'ResourceGroup' ELSE 'Service' END, g, s,
              (floor(c * 10000 + 0.5) / 10000)::numeric, $3::text, $4::timestamp(3)
       FROM summed ORDER BY k, d, g, s`,
      [
        analysisRunId,
        target.subscriptionId,
        target.currency,
        target.recordedAt.toISOString().replace('T', ' ').replace('Z', ''),
      ],
    );
  }

  /** Drops the table (PGlite's session outlives the analysis; a PostgreSQL writer's does not). */
  async drop(): Promise<void> {
    if (this.created) await this.exec(`DROP TABLE IF EXISTS ${this.table}`, []);
    this.created = false;
  }
}
