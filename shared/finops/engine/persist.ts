/**
 * Writes a run all or nothing: the AnalysisRun row and every child row in one transaction. A failure
 * rolls everything back, so a failed analysis never leaves a half-written run behind, nor becomes
 * its subscription's latest run. Older runs are not touched (POST /Analysis/cleanup removes them).
 *
 * Children go in as INSERT … SELECT FROM unnest(array per column) statements of 5,000 rows. Measured on 2,000 resources (130,000 rows,
 * bench/finops-analysis.ts): Prisma's `createMany` took 11× the time of a plain multi-row INSERT of
 * the same rows and peaked at 1.8 GB RSS; multi-row VALUES through Prisma with ~30,000 parameters a
 * statement, 4.7× and 576 MB. Prisma's cost is per parameter, so one array parameter per column.
 * Every value is cast in SQL, so the statement means the same on PostgreSQL and PGlite.
 *
 * An analysis's daily history is not held until the write: the writer is opened before the history
 * is fetched and stages each cost page as it arrives (history-stage.ts); the run's transaction then
 * sums the staged rows into HistoricalCosts in SQL.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Prisma, PrismaClient } from '../../db/generated/client.js';
import { type DatabaseTimeouts, pgTimeoutOptions } from '../../db/timeouts.js';
import type { DailyCost } from '../azure/index.js';
import { type CopyIn, type Exec, HistoryStage, type StagedHistoryTarget } from './history-stage.js';
import { writeRunTotals } from './run-totals.js';

/** A large run (10,000 resources, 6 months of history) writes ~600,000 rows: allow it time. */
export const TRANSACTION_TIMEOUT_MS = 30 * 60_000;
/** Rows per INSERT statement. */
export const CHUNK_ROWS = 5_000;
/**
 * Resource rows carry their properties as JSON (about a kilobyte each): 500 a statement keeps one
 * statement's arrays and their serialized text to a few megabytes instead of tens.
 */
export const RESOURCE_CHUNK_ROWS = 500;

type RunData = Omit<Prisma.AnalysisRunUncheckedCreateInput, 'id'>;

export interface ResourceRow {
  resourceId: string;
  resourceType: string;
  resourceName: string;
  resourceGroup: string;
  location: string;
  propertiesJson: string | null;
  tagsJson: string | null;
  metricsJson: string | null;
  flags: string | null;
  flagDetails: unknown;
  monthToDateCost: number | null;
  recordedAt: Date;
}
export interface CostDetailRow {
  costType: string;
  name: string;
  resourceGroup: string | null;
  cost: number;
  currency: string;
  recordedAt: Date;
}
export interface HistoricalCostRow {
  subscriptionId: string;
  costDate: Date;
  costType: string;
  resourceGroup: string | null;
  name: string | null;
  cost: number;
  currency: string;
  recordedAt: Date;
}
export interface RecommendationRow {
  recommendationText: string;
  summary: string | null;
  messageId: string;
  conversationId: string;
  model: string;
  timestamp: number;
  source: string;
  recordedAt: Date;
}

export interface RunToPersist {
  run: RunData;
  resources: Iterable<ResourceRow>;
  costDetails: Iterable<CostDetailRow>;
  /** Rows as given, or `{ staged }`: the history the writer staged page by page (RunWriter.stageHistory). */
  historicalCosts: Iterable<HistoricalCostRow> | { staged: StagedHistoryTarget };
  recommendations: Iterable<RecommendationRow>;
  /**
   * History the new run takes over from an earlier run of the subscription: that run's rows of
   * days in [from, to] (yyyy-MM-dd, inclusive) and outside [skipFrom, skipTo] (the days the new run
   * brings itself), in its currency only. An import of one month keeps the months before it.
   */
  carryHistory?: CarriedHistory | undefined;
}

export interface CarriedHistory {
  fromRunId: number;
  currency: string;
  from: string;
  to: string;
  skipFrom: string;
  skipTo: string;
}

/** Copies the carried days in SQL, inside the run's transaction (so the run's totals count them). */
async function carryHistory(exec: Exec, runId: number, c: CarriedHistory): Promise<number> {
  return exec(
    `INSERT INTO "HistoricalCosts"
       ("analysisRunId", "subscriptionId", "costDate", "costType", "resourceGroup", "name", "cost", "currency", "recordedAt")
     SELECT $1::integer, "subscriptionId", "costDate", "costType", "resourceGroup", "name", "cost", "currency", "recordedAt"
       FROM "HistoricalCosts"
      WHERE "analysisRunId" = $2::integer AND "currency" = $3::text
        AND "costDate" >= $4::timestamp(3) AND "costDate" <= $5::timestamp(3)
        AND ("costDate" < $6::timestamp(3) OR "costDate" > $7::timestamp(3))
      ORDER BY "costDate", id`,
    [runId, c.fromRunId, c.currency, c.from, c.to, c.skipFrom, c.skipTo],
  );
}

export interface PersistStats {
  runId: number;
  /** Rows of the run (the run row and its children). */
  rows: number;
  /** Time spent writing: the run's transaction and, before it, staging the history. */
  ms: number;
  /** Of which staging the history. */
  stagingMs: number;
}

type Cast = 'text' | 'jsonb' | 'numeric' | 'double precision' | 'timestamp(3)';
type Columns<T> = ReadonlyArray<readonly [keyof T & string, Cast]>;

const RESOURCE_COLUMNS: Columns<ResourceRow> = [
  ['resourceId', 'text'],
  ['resourceType', 'text'],
  ['resourceName', 'text'],
  ['resourceGroup', 'text'],
  ['location', 'text'],
  ['propertiesJson', 'text'],
  ['tagsJson', 'text'],
  ['metricsJson', 'text'],
  ['flags', 'text'],
  ['flagDetails', 'jsonb'],
  ['monthToDateCost', 'numeric'],
  ['recordedAt', 'timestamp(3)'],
];
const COST_COLUMNS: Columns<CostDetailRow> = [
  ['costType', 'text'],
  ['name', 'text'],
  ['resourceGroup', 'text'],
  ['cost', 'numeric'],
  ['currency', 'text'],
  ['recordedAt', 'timestamp(3)'],
];
const HISTORY_COLUMNS: Columns<HistoricalCostRow> = [
  ['subscriptionId', 'text'],
  ['costDate', 'timestamp(3)'],
  ['costType', 'text'],
  ['resourceGroup', 'text'],
  ['name', 'text'],
  ['cost', 'numeric'],
  ['currency', 'text'],
  ['recordedAt', 'timestamp(3)'],
];
const RECOMMENDATION_COLUMNS: Columns<RecommendationRow> = [
  ['recommendationText', 'text'],
  ['summary', 'text'],
  ['messageId', 'text'],
  ['conversationId', 'text'],
  ['model', 'text'],
  ['timestamp', 'double precision'],
  ['source', 'text'],
  ['recordedAt', 'timestamp(3)'],
];

/** UTC wall time without an offset: what the `timestamp(3)` columns hold. */
function sqlTimestamp(d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', '');
}

let lastDate: Date | undefined;
let lastDateText = '';

function param(value: unknown, cast: Cast): string | number | null {
  if (value === null || value === undefined) return null;
  if (cast === 'timestamp(3)') {
    // Rows share a few Date objects (recordedAt, each day's costDate): format each once.
    if (value !== lastDate) {
      lastDate = value as Date;
      lastDateText = sqlTimestamp(lastDate);
    }
    return lastDateText;
  }
  if (cast === 'jsonb') return JSON.stringify(value);
  if (cast === 'numeric' || cast === 'double precision') return String(value);
  return value as string;
}

/**
 * One statement per chunk of rows: INSERT … SELECT * FROM unnest($1::integer[], $2::text[], …), one
 * array parameter per column, so the statement has a dozen parameters whatever the chunk size.
 */
async function insertRows<T>(
  exec: Exec,
  table: string,
  columns: Columns<T>,
  analysisRunId: number,
  rows: Iterable<T>,
  chunkRows = CHUNK_ROWS,
): Promise<number> {
  const sql =
    `INSERT INTO "${table}" ("analysisRunId", ${columns.map(([c]) => `"${c}"`).join(', ')}) ` +
    `SELECT * FROM unnest($1::integer[], ${columns.map(([, cast], i) => `$${i + 2}::${cast}[]`).join(', ')})`;
  let written = 0;
  let arrays: Array<Array<string | number | null>> = columns.map(() => []);
  let count = 0;
  const flush = async () => {
    if (count === 0) return;
    written += await exec(sql, [new Array(count).fill(analysisRunId), ...arrays]);
    arrays = columns.map(() => []);
    count = 0;
  };
  for (const row of rows) {
    const r = row as Record<string, unknown>;
    for (let i = 0; i < columns.length; i++) {
      const [name, cast] = columns[i]!;
      arrays[i]!.push(param(r[name], cast));
    }
    if (++count >= chunkRows) await flush();
  }
  await flush();
  return written;
}

async function insertChildren(
  exec: Exec,
  stage: HistoryStage,
  runId: number,
  data: RunToPersist,
): Promise<number> {
  let rows = 0;
  rows += await insertRows(
    exec,
    'ResourceAnalyses',
    RESOURCE_COLUMNS,
    runId,
    data.resources,
    RESOURCE_CHUNK_ROWS,
  );
  rows += await insertRows(exec, 'CostDetails', COST_COLUMNS, runId, data.costDetails);
  rows +=
    'staged' in data.historicalCosts
      ? await stage.writeRun(exec, runId, data.historicalCosts.staged)
      : await insertRows(exec, 'HistoricalCosts', HISTORY_COLUMNS, runId, data.historicalCosts);
  if (data.carryHistory) rows += await carryHistory(exec, runId, data.carryHistory);
  rows += await insertRows(exec, 'AiRecommendations', RECOMMENDATION_COLUMNS, runId, data.recommendations);
  await writeRunTotals(exec, runId, data.run.subscriptionId);
  return rows;
}

const RUN_COLUMNS: ReadonlyArray<readonly [keyof RunData & string, Cast | 'integer' | 'date']> = [
  ['subscriptionId', 'text'],
  ['subscriptionName', 'text'],
  ['runDate', 'timestamp(3)'],
  ['totalMonthlyCost', 'numeric'],
  ['totalResourcesAnalyzed', 'integer'],
  ['aiModel', 'text'],
  ['conversationId', 'text'],
  ['reportFilePath', 'text'],
  ['currency', 'text'],
  ['costQueryType', 'text'],
  ['monthSelection', 'text'],
  ['periodFrom', 'date'],
  ['periodTo', 'date'],
  ['recommendationSource', 'text'],
  ['recommendationError', 'text'],
];

const RUN_INSERT = `INSERT INTO "AnalysisRuns" (${RUN_COLUMNS.map(([c]) => `"${c}"`).join(', ')}) VALUES (${RUN_COLUMNS.map(
  ([, cast], i) => `$${i + 1}::${cast}`,
).join(', ')}) RETURNING id`;

/** The schema's defaults, for the columns a caller may leave out (a raw INSERT would write NULL). */
const RUN_DEFAULTS: Partial<Record<keyof RunData, unknown>> = {
  aiModel: 'N/A',
  conversationId: 'N/A',
  reportFilePath: '',
  currency: 'USD',
  costQueryType: 'ActualCost',
  monthSelection: 'current',
  recommendationSource: 'none',
};

function runParams(run: RunData): unknown[] {
  return RUN_COLUMNS.map(([name, cast]) => {
    const v = (run[name] ?? RUN_DEFAULTS[name]) as unknown;
    if (v === null || v === undefined) return null;
    if (cast === 'date') return (v as Date).toISOString().slice(0, 10);
    if (cast === 'integer') return Number(v);
    return param(v, cast);
  });
}

export interface PersistOptions {
  /**
   * PostgreSQL: write through one dedicated pg connection (BEGIN … COMMIT) instead of a Prisma
   * interactive transaction. Prisma's raw-query path allocates heavily per call (a 10,000-resource run
   * peaked near 700 MB RSS through it). PGlite (no URL) uses the Prisma client: it is in-process and
   * has a single session, which the staged history's temporary table needs.
   */
  postgresUrl?: string | undefined;
  /** The writer's connection gets the long statement budget: it writes the whole run. */
  postgresTimeouts?: DatabaseTimeouts | undefined;
}

/** One database session: statements outside a transaction, and one transaction. */
interface Session {
  exec: Exec;
  /** PostgreSQL only: COPY … FROM STDIN on the session's connection. */
  copyIn?: CopyIn;
  transaction<T>(fn: (exec: Exec, queryId: QueryId) => Promise<T>): Promise<T>;
  end(): Promise<void>;
}
/** Runs a statement that returns one row with an `id`. */
type QueryId = (sql: string, params: unknown[]) => Promise<number>;

async function postgresSession(url: string, timeouts: DatabaseTimeouts | undefined): Promise<Session> {
  const client = new pg.Client({
    connectionString: url,
    application_name: 'finwatch-analysis-writer',
    ...(timeouts ? pgTimeoutOptions(timeouts, 'long') : {}),
  });
  await client.connect();
  const exec: Exec = async (sql, params) => (await client.query(sql, params)).rowCount ?? 0;
  return {
    exec,
    async copyIn(sql, data) {
      const stream = client.query(copyFrom(sql));
      await pipeline(Readable.from(data), stream);
      return stream.rowCount;
    },
    async transaction(fn) {
      await client.query('BEGIN');
      try {
        const result = await fn(
          exec,
          async (sql, params) => (await client.query<{ id: number }>(sql, params)).rows[0]!.id,
        );
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
    end: () => client.end().catch(() => undefined),
  };
}

function prismaSession(prisma: PrismaClient): Session {
  return {
    exec: (sql, params) => prisma.$executeRawUnsafe(sql, ...params),
    transaction: (fn) =>
      prisma.$transaction(
        (tx) =>
          fn(
            (sql, params) => tx.$executeRawUnsafe(sql, ...params),
            async (sql, params) =>
              Number((await tx.$queryRawUnsafe<Array<{ id: number }>>(sql, ...params))[0]!.id),
          ),
        { timeout: TRANSACTION_TIMEOUT_MS, maxWait: 60_000 },
      ),
    end: async () => {},
  };
}

/**
 * Writes one run. Open it before the history is fetched, stage each cost page as it arrives
 * (`stageHistory`), then `persist` the run with `historicalCosts: { staged }`; `close` always.
 */
export interface RunWriter {
  stageHistory(page: readonly DailyCost[]): Promise<void>;
  /** Cost rows staged so far. */
  readonly stagedRows: number;
  persist(data: RunToPersist): Promise<PersistStats>;
  close(): Promise<void>;
}

export async function openRunWriter(prisma: PrismaClient, opts: PersistOptions = {}): Promise<RunWriter> {
  const session = opts.postgresUrl
    ? await postgresSession(opts.postgresUrl, opts.postgresTimeouts)
    : prismaSession(prisma);
  const stage = new HistoryStage(session.exec, { copyIn: session.copyIn });
  return {
    stageHistory: (page) => stage.add(page),
    get stagedRows() {
      return stage.rows;
    },
    async persist(data) {
      const started = performance.now();
      let rows = 0;
      const runId = await session.transaction(async (exec, queryId) => {
        const id = await queryId(RUN_INSERT, runParams(data.run));
        rows = 1 + (await insertChildren(exec, stage, id, data));
        return id;
      });
      return { runId, rows, ms: stage.ms + performance.now() - started, stagingMs: stage.ms };
    },
    async close() {
      try {
        await stage.drop();
      } catch {
        // The session may be gone (that drops the table too); nothing is left to clean.
      } finally {
        await session.end();
      }
    },
  };
}

/** Writes a run whose rows are all given (no staged history). */
export async function persistRun(
  prisma: PrismaClient,
  data: RunToPersist,
  opts: PersistOptions = {},
): Promise<PersistStats> {
  const writer = await openRunWriter(prisma, opts);
  try {
    return await writer.persist(data);
  } finally {
    await writer.close();
  }
}
