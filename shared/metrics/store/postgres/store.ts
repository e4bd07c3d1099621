/**
 * The PostgreSQL metrics store (PGlite under `npm start`, a PostgreSQL server in production).
 *
 * Raw SQL throughout, on purpose: writes go in as INSERT … SELECT unnest(one array per column)
 * (unnestSelect) so a batch of thousands of samples is one statement with a dozen parameters (Prisma's
 * per-row and per-parameter costs are what bench/finops-analysis measured as 5-11× slower), the
 * sample tables are partitioned (which Prisma cannot declare), and one statement writes a batch's
 * samples and updates both rollups.
 *
 * Series ids are cached per store (per host): a known label set with unchanged attributes, seen in
 * the last SERIES_REFRESH_MS, costs no series statement. A refresh re-upserts it, so a series row
 * removed by cleanup or housekeeping (only ever when unseen for longer than that) comes back.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { MetricsSettings } from '../../../config/metrics.js';
import type { PrismaClient } from '../../../db/client.js';
import type {
  EventRecord,
  MetricRecord,
  NodeRecord,
  PodLogRecord,
  PodRecord,
  PvcRecord,
} from '../../records.js';
import type {
  CleanupResult,
  EventQuery,
  HousekeepingResult,
  KubernetesEvent,
  LogQuery,
  MetricsStore,
  NodeQuery,
  NodeSample,
  PodLog,
  PodQuery,
  PodSample,
  PvcQuery,
  PvcSample,
  Rows,
  TableSize,
  WindowQuery,
  WriteBatch,
  WriteResult,
} from '../contract.js';
import { planRead } from '../read-plan.js';
import { paramCasts, unnestSelect } from './array-params.js';
import { clearCostDays, dropCostDaysBefore, markLateDays } from './cost-days.js';
import { IdentityMap } from './identity-map.js';
import {
  createPartitionSql,
  listPartitionsSql,
  type PartitionRange,
  partitionFor,
  partitionsIn,
} from './partitions.js';
import { parseSampleRows, samplesSql, seriesSql } from './reads.js';
import { rollupArrays, rollupUpsertSql, type SampleArrays } from './rollups.js';
import { type Exec, pgSql, prismaSql, type Query, retryTransient, type Sql } from './sql.js';
import {
  LEVELS,
  type Level,
  NODE,
  POD,
  PVC,
  RAW_EPOCH_S,
  rawBound,
  rawSeconds,
  rollupCasts,
  rollupMerge,
  SAMPLE_KINDS,
  type SampleKind,
  tableName,
} from './tables.js';

const DAY_MS = 86_400_000;
/** How long a cached series is trusted before its row is touched again (lastSeenAt, attributes). */
export const SERIES_REFRESH_MS = 30 * 60_000;
/** Reads look at series seen since the window's start minus this (lastSeenAt lags by the refresh). */
const SEEN_SLACK_MS = 2 * SERIES_REFRESH_MS;
/** Cached series per store; past it the cache starts over (a fleet of 200,000 containers fits). */
const MAX_CACHED_SERIES = 200_000;
/** Distinct pod states kept by number; further names are stored as unknown (null). */
const MAX_POD_STATES = 1000;
/** Partitions made ahead of today by housekeeping (days for day partitions). */
const DAYS_AHEAD = 3;
/**
 * A day (or month) partition is packed this long after it closed: the last cycles of the day and
 * a retry or two have landed by then.
 */
const PACK_AFTER_MS = 60 * 60_000;
/** Rows a read answers at most, whatever the caller asks. */
const MAX_LIMIT = 1_000_000;

const md5 = (parts: unknown[]) => createHash('md5').update(JSON.stringify(parts)).digest('hex');
const iso = (d: Date) => d.toISOString();
/** A float4 read back carries binary noise (0.412345 → 0.41234499…): six decimals, as the original wrote. */
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const numOrNull = (v: number | null | undefined) => (v === null || v === undefined ? null : Number(v));

interface CachedSeries {
  id: number;
  attrs: unknown[];
  seenAt: number;
}

/**
 * One label set to upsert: its identity and its attributes (the columns after the identity).
 * The cache is keyed by the identity's texts (IdentityMap); the stored seriesKey (an MD5 of the
 * identity) is worked out only for a label set the cache lacks, so a batch of known containers
 * hashes nothing.
 */
interface SeriesRow {
  identity: string[];
  /**
   * The attributes as stored (texts, numbers, null), compared one by one, except a pod's labels:
   * the record's labels object, made JSON text only for the upsert (seriesColumnValue).
   */
  attrs: unknown[];
  seenAt: Date;
  /** The series id, once the upsert returned it. */
  id?: number;
}

/** Labels are the one object among a label set's attributes. */
type Labels = Record<string, string>;

function sameAttrs(a: unknown[], b: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (!sameLabels(x as Labels, y as Labels)) return false;
  }
  return a.length === b.length;
}

/**
 * Whether two label sets hold the same keys with the same values, in any order: the jsonb column
 * keeps no key order (it stores keys sorted), so a reordered set stores the same value and is a
 * cache hit. Walking the objects replaces a JSON text of every sample's labels, which a cache hit
 * (nearly every sample the agent sends) threw away. The cache holds the labels object of the
 * record it learned from: records are not changed once validated.
 */
function sameLabels(a: Labels, b: Labels): boolean {
  let n = 0;
  // Validated label values are texts, which no inherited property of a plain object is: the same
  // text under the same key is b's own key.
  for (const k in a) {
    if (a[k] !== b[k]) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

/** A label set's attribute as its upsert binds it: labels (the one object) as JSON text. */
const seriesColumnValue = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : v);

interface SeriesSpec {
  table: string;
  /** Columns after seriesKey, with their SQL array casts; identity columns first. */
  columns: Array<[string, string]>;
  /** How many of `columns` are the identity (never updated). */
  identity: number;
}

const POD_SERIES: SeriesSpec = {
  table: 'MetricsPodSeries',
  identity: 4,
  columns: [
    ['clusterName', 'text'],
    ['namespace', 'text'],
    ['pod', 'text'],
    ['container', 'text'],
    ['nodeName', 'text'],
    ['ownerKind', 'text'],
    ['ownerName', 'text'],
    ['labels', 'jsonb'],
    ['cpuRequestCores', 'double precision'],
    ['memoryRequestBytes', 'double precision'],
    ['lastTerminationReason', 'text'],
    ['cpuLimitCores', 'double precision'],
    ['memoryLimitBytes', 'double precision'],
  ],
};
const NODE_SERIES: SeriesSpec = {
  table: 'MetricsNodeSeries',
  identity: 2,
  columns: [
    ['clusterName', 'text'],
    ['nodeName', 'text'],
    ['clusterEnvironment', 'text'],
    ['kubernetesVersion', 'text'],
    ['cloudProvider', 'text'],
    ['architecture', 'text'],
    ['operatingSystem', 'text'],
    ['region', 'text'],
    ['instanceType', 'text'],
    ['providerId', 'text'],
    ['nodePool', 'text'],
    ['cpuAllocatableCores', 'double precision'],
    ['memoryAllocatableBytes', 'double precision'],
  ],
};
const PVC_SERIES: SeriesSpec = {
  table: 'MetricsPvcSeries',
  identity: 5,
  columns: [
    ['clusterName', 'text'],
    ['namespace', 'text'],
    ['pod', 'text'],
    ['pvcNamespace', 'text'],
    ['pvcName', 'text'],
    ['volumeName', 'text'],
    ['azureDiskResourceId', 'text'],
  ],
};

function seriesUpsertSql(spec: SeriesSpec): string {
  const cols = ['seriesKey', ...spec.columns.map(([c]) => c), 'firstSeenAt', 'lastSeenAt'];
  const casts = ['text', ...spec.columns.map(([, t]) => t), 'timestamptz', 'timestamptz'];
  const t = `"${spec.table}"`;
  // An older batch (a late retry) refreshes lastSeenAt only forward and never overwrites newer attributes.
  const attrs = spec.columns
    .slice(spec.identity)
    .map(
      ([c]) =>
        `"${c}" = CASE WHEN excluded."lastSeenAt" >= ${t}."lastSeenAt" THEN excluded."${c}" ELSE ${t}."${c}" END`,
    );
  return (
    `INSERT INTO ${t} (${cols.map((c) => `"${c}"`).join(', ')}) ` +
    `${unnestSelect(casts)} ` +
    `ON CONFLICT ("seriesKey") DO UPDATE SET ${[...attrs, `"lastSeenAt" = greatest(${t}."lastSeenAt", excluded."lastSeenAt")`, `"firstSeenAt" = least(${t}."firstSeenAt", excluded."firstSeenAt")`].join(', ')} ` +
    `RETURNING id, "seriesKey"`
  );
}

const SERIES_SQL = new Map<SeriesSpec, string>(
  [POD_SERIES, NODE_SERIES, PVC_SERIES].map((s) => [s, seriesUpsertSql(s)]),
);

/**
 * One statement: the batch's samples into the raw table and its rollup rows (merged per series and
 * bucket on the host, see rollups.ts) into both rollups. One statement keeps a one-object post
 * atomic without a transaction.
 */
function sampleWriteSql(kind: SampleKind): string {
  const names = ['ts', 'series_id', ...kind.columns.map((c) => c.name)];
  const casts = ['integer', 'integer', ...kind.columns.map((c) => c.type)];
  const merge = rollupMerge(kind);
  const r5 = rollupUpsertSql(kind, '5m', names.length + 1, merge);
  const r1 = rollupUpsertSql(kind, '1h', names.length + rollupCasts(kind).length + 1, merge);
  return (
    `WITH raw AS (INSERT INTO metrics.${tableName(kind, 'raw')} (${names.join(', ')}) ` +
    `${unnestSelect(casts)}), ` +
    `r5 AS (${r5}) ${r1}`
  );
}

const SAMPLE_SQL = new Map<SampleKind, string>(SAMPLE_KINDS.map((k) => [k, sampleWriteSql(k)]));
/** Each sample statement's parameter types, read from its text: how its column arrays are sent. */
const SAMPLE_CASTS = new Map<SampleKind, string[]>(
  SAMPLE_KINDS.map((k) => [k, paramCasts(SAMPLE_SQL.get(k)!)]),
);

/** Keeps the newest record per key (a batch may carry two cycles of the same container). */
function newestByKey<T extends { collectedAt: Date }>(items: T[], keyOf: (t: T) => string): Map<string, T> {
  const out = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    const had = out.get(key);
    if (!had || had.collectedAt.getTime() <= item.collectedAt.getTime()) out.set(key, item);
  }
  return out;
}

type Rec<K extends MetricRecord['kind']> = Extract<MetricRecord, { kind: K }>;

export interface PostgresStoreOptions {
  now?: () => Date;
  /** A PostgreSQL server's pg pool (the database's, see sql.ts); unset: Prisma's raw queries. */
  pool?: pg.Pool | undefined;
}

export class PostgresMetricsStore implements MetricsStore {
  readonly engine = 'postgres' as const;
  private readonly series = new Map<SeriesSpec, IdentityMap<CachedSeries>>([
    [POD_SERIES, new IdentityMap()],
    [NODE_SERIES, new IdentityMap()],
    [PVC_SERIES, new IdentityMap()],
  ]);
  private readonly partitions = new Set<string>();
  private states: Map<string, number> | undefined;
  private stateNameOf = new Map<number, string>();
  private readonly now: () => Date;

  constructor(
    prisma: PrismaClient,
    private readonly settings: Pick<
      MetricsSettings,
      | 'Metrics__RetentionRawDays'
      | 'Metrics__Retention5mDays'
      | 'Metrics__RetentionHourlyDays'
      | 'Metrics__RetentionLogsDays'
    >,
    options: PostgresStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.sql = options.pool ? pgSql(options.pool) : prismaSql(prisma);
    this.exec = this.sql.exec;
    this.query = this.sql.query;
  }

  private readonly sql: Sql;
  private readonly exec: Exec;
  private readonly query: Query;

  // ------------------------------------------------------------------------------------ writes

  async write(batch: WriteBatch): Promise<WriteResult> {
    const byKind = recordsByKind(batch.records);
    const pods = byKind.pod;
    // Partitions and pod state numbers are made outside the batch's transaction: they are shared
    // and harmless if the batch then fails.
    for (const w of SAMPLE_WRITERS) await this.ensurePartitionsFor(byKind[w.kind], w.table);
    const states = await this.stateIds(pods.map((p) => p.data.podState));

    // Label sets are upserted before the batch's transaction, in statements of their own: a
    // refresh locks its rows only for its statement. Inside the transaction it held them until
    // the batch committed, and the other batches in flight, refreshing the same label sets (each
    // misses the cache until the one before it is done), waited for that commit one after the
    // other (200 ms a batch with 4 in flight against 14 alone). Committed at once, the ids are
    // cached at once. A label set upserted for a batch that then fails or is a duplicate is
    // harmless, as it always was for one-object posts: the upsert only moves lastSeenAt forward
    // and keeps the newest attributes.
    const ids = new Map<SampleWriter, number[]>();
    for (const w of SAMPLE_WRITERS) {
      const records = byKind[w.kind] as SampleRecord[];
      if (records.length) ids.set(w, await retryTransient(() => this.seriesIds(w, records)));
    }

    const run = async (exec: Exec): Promise<WriteResult> => {
      if (batch.batchId) {
        const stored = await exec(
          `INSERT INTO "MetricsIngestBatches" ("clusterName", "batchId", "records") VALUES ($1, $2::uuid, $3)
           ON CONFLICT DO NOTHING`,
          batch.clusterName,
          batch.batchId,
          batch.records.length,
        );
        if (stored === 0) return { duplicate: true, records: 0 };
      }
      for (const w of SAMPLE_WRITERS) {
        const records = byKind[w.kind] as SampleRecord[];
        if (!records.length) continue;
        const columns = sampleColumns(w, records, ids.get(w)!, states);
        await exec(SAMPLE_SQL.get(w.table)!, ...this.sql.arrays(SAMPLE_CASTS.get(w.table)!, columns));
      }
      await markLateDays(exec, batch.records, this.now());
      const logs = byKind.podLog;
      const events = byKind.event;
      if (logs.length) await writeLogs(exec, logs);
      if (events.length) await writeEvents(exec, events);
      return { duplicate: false, records: batch.records.length };
    };
    // One-object posts (no batch id, records of one kind: one post, or posts written together)
    // need no transaction: their one sample statement is atomic by itself. Skipping BEGIN/COMMIT
    // and Prisma's interactive transaction is most of such a post's cost.
    const oneKind = batch.records.every((r) => r.kind === batch.records[0]?.kind);
    return retryTransient(() => (!batch.batchId && oneKind ? run(this.exec) : this.sql.transaction(run)));
  }

  private remember(spec: SeriesSpec, row: SeriesRow, id: number): void {
    const cache = this.series.get(spec)!;
    if (cache.size >= MAX_CACHED_SERIES) cache.clear();
    cache.set(row.identity, { id, attrs: row.attrs, seenAt: row.seenAt.getTime() });
  }

  /** Series ids for each record, in order: from the cache, else one upsert of the missing ones. */
  private async seriesIds(w: SampleWriter, records: SampleRecord[]): Promise<number[]> {
    const spec = w.series;
    const cache = this.series.get(spec)!;
    const ids = new Array<number>(records.length);
    // The label set each record the cache could not answer waits for (sparse: a known batch has none).
    const unknown = new Array<SeriesRow | undefined>(records.length);
    const missing = new IdentityMap<SeriesRow>();
    const list: SeriesRow[] = [];
    // Each record's identity and attributes are written into one array each and compared there:
    // a copy is kept only for a label set the cache cannot answer.
    const identity: string[] = [];
    const scratch: unknown[] = [];
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      w.seriesIdentity(r.data as never, identity);
      w.seriesAttrs(r.data as never, scratch);
      const hit = cache.get(identity);
      if (hit && r.collectedAt.getTime() - hit.seenAt < SERIES_REFRESH_MS && sameAttrs(hit.attrs, scratch)) {
        ids[i] = hit.id;
        continue;
      }
      const attrs = scratch.slice();
      // A batch often misses on most of its samples (a backlog of cycles sent 4 batches at a
      // time: the cache learns a label set only once its upsert is done), so a label set already
      // missing is updated in place, not made again a sample.
      const had = missing.get(identity);
      if (!had) {
        const row: SeriesRow = { identity: identity.slice(), attrs, seenAt: r.collectedAt };
        missing.set(row.identity, row);
        list.push(row);
        unknown[i] = row;
      } else {
        unknown[i] = had;
        if (had.seenAt <= r.collectedAt) {
          had.attrs = attrs;
          had.seenAt = r.collectedAt;
        }
      }
    }
    if (list.length) {
      const keys = list.map((row) => md5(row.identity));
      const width = spec.columns.length + 3;
      const arrays: unknown[][] = Array.from({ length: width }, () => []);
      for (const [n, row] of list.entries()) {
        arrays[0]!.push(keys[n]);
        const values = [...row.identity, ...row.attrs];
        for (let c = 0; c < spec.columns.length; c++) arrays[c + 1]!.push(seriesColumnValue(values[c]));
        arrays[width - 2]!.push(iso(row.seenAt));
        arrays[width - 1]!.push(iso(row.seenAt));
      }
      const returned = await this.query<{ id: number; seriesKey: string }>(SERIES_SQL.get(spec)!, ...arrays);
      const byKey = new Map(returned.map((r) => [r.seriesKey, Number(r.id)]));
      // The upsert committed on its own (write): its ids may be cached.
      for (const [n, row] of list.entries()) {
        row.id = byKey.get(keys[n]!)!;
        this.remember(spec, row, row.id);
      }
      for (let i = 0; i < records.length; i++) if (ids[i] === undefined) ids[i] = unknown[i]!.id!;
    }
    return ids;
  }

  /** Numbers of pod states (Running, Pending, …), adding new names to the dictionary. */
  private async stateIds(names: Array<string | null>): Promise<Map<string, number>> {
    if (!this.states) {
      const rows = await this.query<{ id: number; name: string }>(`SELECT id, name FROM "MetricsPodStates"`);
      this.states = new Map(rows.map((r) => [r.name, Number(r.id)]));
    }
    const states = this.states;
    const unknown = [...new Set(names.filter((n): n is string => n !== null && !states.has(n)))];
    if (unknown.length && states.size < MAX_POD_STATES) {
      await this.exec(
        `INSERT INTO "MetricsPodStates" ("name") SELECT * FROM unnest($1::text[]) ON CONFLICT DO NOTHING`,
        unknown.slice(0, MAX_POD_STATES - states.size),
      );
      const rows = await this.query<{ id: number; name: string }>(
        `SELECT id, name FROM "MetricsPodStates" WHERE name = ANY($1::text[])`,
        unknown,
      );
      for (const r of rows) states.set(r.name, Number(r.id));
    }
    return states;
  }

  private async ensurePartitionsFor(records: Array<{ collectedAt: Date }>, kind: SampleKind): Promise<void> {
    if (!records.length) return;
    const seen = new Set<number>();
    for (const r of records) seen.add(Math.floor(r.collectedAt.getTime() / DAY_MS));
    for (const day of seen) {
      const t = new Date(day * DAY_MS);
      for (const level of LEVELS) await this.ensurePartition(kind, level, partitionFor(kind, level, t));
    }
  }

  private async ensurePartition(kind: SampleKind, level: Level, p: PartitionRange): Promise<boolean> {
    if (this.partitions.has(p.name)) return false;
    try {
      await this.exec(createPartitionSql(kind, level, p));
    } catch (error) {
      // Two instances creating the same partition at once: the loser's IF NOT EXISTS can still
      // fail on the catalog's unique index; the partition exists either way.
      const code =
        (error as { code?: string; meta?: { code?: string } }).meta?.code ??
        (error as { code?: string }).code;
      if (!/42P07|23505/.test(String(code)) && !/already exists|duplicate key/i.test(String(error)))
        throw error;
    }
    this.partitions.add(p.name);
    return true;
  }

  // ------------------------------------------------------------------------------------- reads

  async pods(q: PodQuery): Promise<Rows<PodSample>> {
    const read = await this.readSamples(
      POD,
      q,
      ['clusterName', 'namespace', 'pod', 'container', 'nodeName', 'cpuLimitCores', 'memoryLimitBytes'],
      [['namespace', q.namespace]],
      ['cpu', 'mem', 'restarts', 'pod_age', 'state'],
    );
    const states = await this.stateNames(read.rows.map((r) => r[6] as number | null));
    return joinSeries(read, (r, s) => ({
      timestamp: new Date(r[0] as number),
      clusterName: s[1] as string,
      namespace: s[2] as string,
      pod: s[3] as string,
      container: s[4] as string,
      cpuUsageCores: round6(r[2] as number),
      cpuLimitCores: s[6] === null ? null : round6(s[6] as number),
      memoryUsageBytes: r[3] as number,
      memoryLimitBytes: numOrNull(s[7] as number | null),
      nodeName: s[5] as string | null,
      podState: r[6] === null ? null : (states.get(r[6] as number) ?? null),
      restartCount: (r[4] as number | null) ?? 0,
      podAge: r[5] as number | null,
    }));
  }

  async nodes(q: NodeQuery): Promise<Rows<NodeSample>> {
    const read = await this.readSamples(
      NODE,
      q,
      [
        'clusterName',
        'clusterEnvironment',
        'nodeName',
        'kubernetesVersion',
        'cloudProvider',
        'architecture',
        'operatingSystem',
        'region',
        'instanceType',
      ],
      [['nodeName', q.nodeName]],
      [
        'cpu',
        'cpu_capacity',
        'mem',
        'mem_capacity',
        'ready',
        'memory_pressure',
        'disk_pressure',
        'pid_pressure',
      ],
    );
    return joinSeries(read, (r, s) => ({
      timestamp: new Date(r[0] as number),
      clusterName: s[1] as string,
      clusterEnvironment: s[2] as string | null,
      nodeName: s[3] as string,
      cpuUsageCores: round6(r[2] as number),
      cpuCapacityCores: round6(r[3] as number),
      memoryUsageBytes: r[4] as number,
      memoryCapacityBytes: r[5] as number,
      kubernetesVersion: s[4] as string | null,
      cloudProvider: s[5] as string | null,
      isReady: r[6] as boolean | null,
      hasMemoryPressure: r[7] as boolean | null,
      hasDiskPressure: r[8] as boolean | null,
      hasPidPressure: r[9] as boolean | null,
      architecture: s[6] as string | null,
      operatingSystem: s[7] as string | null,
      region: s[8] as string | null,
      instanceType: s[9] as string | null,
    }));
  }

  async pvcs(q: PvcQuery): Promise<Rows<PvcSample>> {
    const read = await this.readSamples(
      PVC,
      q,
      ['clusterName', 'namespace', 'pod', 'pvcNamespace', 'pvcName', 'volumeName'],
      [['namespace', q.namespace]],
      ['used', 'available', 'capacity'],
    );
    return joinSeries(read, (r, s) => ({
      timestamp: new Date(r[0] as number),
      clusterName: s[1] as string,
      namespace: s[2] as string,
      pod: s[3] as string,
      pvcNamespace: s[4] as string,
      pvcName: s[5] as string,
      volumeName: s[6] as string | null,
      usedBytes: Math.round(r[2] as number),
      availableBytes: Math.round(r[3] as number),
      capacityBytes: Math.round(r[4] as number),
    }));
  }

  /**
   * A sample read (see reads.ts): the series in scope, the plan from their number, then their
   * samples. Rows are [t, series id, ...columns]; series rows [id, ...seriesColumns]. A raw read
   * keeps each series' latest sample per step (rows come newest first, so the first seen).
   */
  private async readSamples(
    kind: SampleKind,
    q: WindowQuery,
    seriesColumns: string[],
    equal: Array<[string, string | undefined]>,
    columns: string[],
  ): Promise<{
    series: unknown[][];
    rows: unknown[][];
    page: Pick<Rows<unknown>, 'truncated' | 'resolution'>;
  }> {
    const limit = Math.min(q.limit, MAX_LIMIT);
    const found = seriesSql(kind, seriesColumns, {
      clusters: q.clusters,
      clusterName: q.clusterName,
      equal,
      seenSince: new Date(q.from.getTime() - SEEN_SLACK_MS),
    });
    const series = q.clusters?.length === 0 ? [] : await this.sql.queryArrays(found.text, ...found.params);
    const plan = planRead(q.from, q.to, {
      maxPoints: q.maxPoints,
      series: series.length,
      maxRows: limit,
      level: q.resolution,
    });
    if (!series.length) return { series, rows: [], page: { truncated: false, resolution: plan.resolution } };
    const ids = series.map((s) => Number(s[0]));
    const read = samplesSql(kind, plan, columns, { from: q.from, to: q.to, limit: limit + 1 }, ids);
    let rows = parseSampleRows(await this.sql.queryArrays(read.text, ...read.params));
    const truncated = rows.length > limit;
    if (truncated) rows = rows.slice(0, limit);
    if (plan.level === 'raw') rows = latestPerStep(rows, plan.stepMs);
    return { series, rows, page: { truncated, resolution: plan.resolution } };
  }

  /** Pod state names by number, read again when another instance added a state this one lacks. */
  private async stateNames(ids: Array<number | null>): Promise<Map<number, string>> {
    if (!this.states || ids.some((id) => id !== null && !this.stateNameOf.has(id))) {
      const rows = await this.query<{ id: number; name: string }>(`SELECT id, name FROM "MetricsPodStates"`);
      this.states = new Map(rows.map((r) => [r.name, Number(r.id)]));
    }
    if (this.stateNameOf.size !== this.states.size) {
      this.stateNameOf = new Map([...this.states].map(([name, id]) => [id, name]));
    }
    return this.stateNameOf;
  }

  async logs(q: LogQuery): Promise<Rows<PodLog>> {
    const filters: string[] = [];
    const params: unknown[] = [];
    scope(filters, params, q, 'l');
    for (const [field, value] of [
      ['namespace', q.namespace],
      ['pod', q.pod],
      ['container', q.container],
    ] as const) {
      if (value !== undefined) filters.push(`l."${field}" = $${params.push(value)}`);
    }
    filters.push(`l."collectedAt" >= $${params.push(iso(q.from))}::timestamptz`);
    const rows = await this.query<{
      t: number;
      clusterName: string;
      namespace: string;
      pod: string;
      container: string;
      logContent: string;
    }>(
      `SELECT (extract(epoch FROM l."collectedAt") * 1000)::float8 AS t, l."clusterName", l."namespace", l."pod",
              l."container", l."logContent"
         FROM "MetricsPodLogs" l
        WHERE ${filters.join(' AND ')}
        ORDER BY l."collectedAt" DESC, l."seriesKey"
        LIMIT ${Math.min(q.limit, MAX_LIMIT) + 1}`,
      ...params,
    );
    return {
      truncated: rows.length > q.limit,
      rows: rows.slice(0, q.limit).map(({ t, ...r }) => ({ timestamp: new Date(Number(t)), ...r })),
    };
  }

  async events(q: EventQuery): Promise<Rows<KubernetesEvent>> {
    const filters: string[] = [];
    const params: unknown[] = [];
    scope(filters, params, q, 'e');
    for (const [field, value] of [
      ['namespace', q.namespace],
      ['involvedObjectKind', q.involvedObjectKind],
      ['involvedObjectName', q.involvedObjectName],
      ['eventType', q.eventType],
    ] as const) {
      if (value !== undefined) filters.push(`e."${field}" = $${params.push(value)}`);
    }
    // The window is on when the event last happened (or, without that, when it was collected).
    const since = `$${params.push(iso(q.from))}::timestamptz`;
    filters.push(`(e."collectedAt" >= ${since} OR e."lastTimestamp" >= ${since})`);
    const rows = await this.query<
      Record<string, unknown> & { t: number; ft: number | null; lt: number | null }
    >(
      `SELECT (extract(epoch FROM e."collectedAt") * 1000)::float8 AS t,
              (extract(epoch FROM e."firstTimestamp") * 1000)::float8 AS ft,
              (extract(epoch FROM e."lastTimestamp") * 1000)::float8 AS lt,
              e."clusterName", e."namespace", e."eventName", e."eventUid", e."involvedObjectKind",
              e."involvedObjectName", e."involvedObjectNamespace", e."eventType", e."reason", e."message",
              e."sourceComponent", e."count"
         FROM "MetricsEvents" e
        WHERE ${filters.join(' AND ')}
        ORDER BY e."collectedAt" DESC, e.id DESC
        LIMIT ${Math.min(q.limit, MAX_LIMIT) + 1}`,
      ...params,
    );
    return {
      truncated: rows.length > q.limit,
      rows: rows.slice(0, q.limit).map((r) => ({
        timestamp: new Date(Number(r.t)),
        clusterName: r.clusterName as string,
        namespace: r.namespace as string,
        eventName: r.eventName as string,
        eventUid: r.eventUid as string,
        involvedObjectKind: r.involvedObjectKind as string,
        involvedObjectName: r.involvedObjectName as string,
        involvedObjectNamespace: r.involvedObjectNamespace as string,
        eventType: r.eventType as string,
        reason: r.reason as string,
        message: r.message as string,
        sourceComponent: r.sourceComponent as string,
        count: Number(r.count),
        firstTimestamp: r.ft === null ? null : new Date(Number(r.ft)),
        lastTimestamp: r.lt === null ? null : new Date(Number(r.lt)),
      })),
    };
  }

  async clusters(since: Date, clusters?: string[]): Promise<string[]> {
    const params: unknown[] = [iso(since)];
    const only = clusters ? `AND "clusterName" = ANY($${params.push(clusters)}::text[])` : '';
    const rows = await this.query<{ name: string }>(
      `SELECT DISTINCT "clusterName" AS name FROM (
         SELECT "clusterName" FROM "MetricsNodeSeries" WHERE "lastSeenAt" >= $1::timestamptz ${only}
         UNION SELECT "clusterName" FROM "MetricsPodSeries" WHERE "lastSeenAt" >= $1::timestamptz ${only}
         UNION SELECT "clusterName" FROM "MetricsPvcSeries" WHERE "lastSeenAt" >= $1::timestamptz ${only}
       ) c WHERE "clusterName" <> '' ORDER BY 1`,
      ...params,
    );
    return rows.map((r) => r.name);
  }

  async namespaces(since: Date, clusters: string[] | undefined, clusterName?: string): Promise<string[]> {
    const params: unknown[] = [iso(since)];
    let where = `"lastSeenAt" >= $1::timestamptz AND "namespace" <> ''`;
    if (clusters) where += ` AND "clusterName" = ANY($${params.push(clusters)}::text[])`;
    if (clusterName !== undefined) where += ` AND "clusterName" = $${params.push(clusterName)}`;
    const rows = await this.query<{ name: string }>(
      `SELECT DISTINCT "namespace" AS name FROM "MetricsPodSeries" WHERE ${where} ORDER BY 1`,
      ...params,
    );
    return rows.map((r) => r.name);
  }

  // ------------------------------------------------------------------------------ maintenance

  async cleanup(days: number, now = this.now()): Promise<CleanupResult> {
    if (days === 0) {
      await this.exec(
        `TRUNCATE ${SAMPLE_KINDS.flatMap((k) => LEVELS.map((l) => `metrics.${tableName(k, l)}`)).join(', ')}, "MetricsPodLogs", "MetricsEvents", "MetricsIngestBatches"`,
      );
      await clearCostDays(this.exec);
      await this.dropUnseenSeries(new Date(now.getTime() - SEEN_SLACK_MS));
      return { scope: 'all metrics' };
    }
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    const listed = await this.query<{ parent: string; name: string }>(listPartitionsSql());
    for (const kind of SAMPLE_KINDS) {
      for (const level of LEVELS) {
        for (const p of partitionsIn(listed, kind, level)) {
          if (p.to.getTime() <= cutoff.getTime()) await this.dropPartition(p.name);
          else if (p.from.getTime() < cutoff.getTime()) {
            // The one partition the cutoff falls in: a DELETE bounded to it.
            await this.exec(
              level === 'raw'
                ? `DELETE FROM metrics.${p.name} WHERE ts < $1::integer`
                : `DELETE FROM metrics.${p.name} WHERE bucket < $1::timestamptz`,
              level === 'raw' ? rawBound(cutoff) : iso(cutoff),
            );
          }
        }
      }
    }
    await clearCostDays(this.exec, cutoff);
    await this.exec(`DELETE FROM "MetricsPodLogs" WHERE "collectedAt" < $1::timestamptz`, iso(cutoff));
    await this.exec(`DELETE FROM "MetricsEvents" WHERE "collectedAt" < $1::timestamptz`, iso(cutoff));
    await this.dropUnseenSeries(new Date(Math.min(cutoff.getTime(), now.getTime() - SEEN_SLACK_MS)));
    return { scope: `metrics older than ${days} days` };
  }

  async housekeeping(now = this.now()): Promise<HousekeepingResult> {
    const created: string[] = [];
    const dropped: string[] = [];
    const retentionDays: Record<Level, number> = {
      raw: this.settings.Metrics__RetentionRawDays,
      '5m': this.settings.Metrics__Retention5mDays,
      '1h': this.settings.Metrics__RetentionHourlyDays,
    };
    // Every table's partitions, listed once: what is made or dropped below is known without asking again.
    const listed = await this.query<{ parent: string; name: string }>(listPartitionsSql());
    const kept = new Map<string, PartitionRange[]>();
    for (const kind of SAMPLE_KINDS) {
      for (const level of LEVELS) {
        const existing = partitionsIn(listed, kind, level);
        for (let d = 0; d <= DAYS_AHEAD; d++) {
          const p = partitionFor(kind, level, new Date(now.getTime() + d * DAY_MS));
          if (existing.some((e) => e.name === p.name)) continue;
          this.partitions.delete(p.name);
          if (await this.ensurePartition(kind, level, p)) created.push(p.name);
          existing.push(p);
        }
        const horizon = now.getTime() - retentionDays[level] * DAY_MS;
        const live: PartitionRange[] = [];
        for (const p of existing) {
          if (p.to.getTime() <= horizon) {
            await this.dropPartition(p.name);
            dropped.push(p.name);
          } else live.push(p);
        }
        kept.set(tableName(kind, level), live);
      }
    }
    // The cost read's per-day sums live as long as the hourly partitions they were summed from.
    await dropCostDaysBefore(
      this.exec,
      partitionFor(POD, '1h', new Date(now.getTime() - retentionDays['1h'] * DAY_MS)).from,
    );
    const logHorizon = iso(new Date(now.getTime() - this.settings.Metrics__RetentionLogsDays * DAY_MS));
    await this.exec(`DELETE FROM "MetricsPodLogs" WHERE "collectedAt" < $1::timestamptz`, logHorizon);
    await this.exec(`DELETE FROM "MetricsEvents" WHERE "collectedAt" < $1::timestamptz`, logHorizon);
    // A retry older than raw retention is refused anyway, so its batch id need not be kept longer.
    await this.exec(
      `DELETE FROM "MetricsIngestBatches" WHERE "storedAt" < $1::timestamptz`,
      iso(new Date(now.getTime() - this.settings.Metrics__RetentionRawDays * DAY_MS)),
    );
    const longest = Math.max(...Object.values(retentionDays));
    await this.dropUnseenSeries(new Date(now.getTime() - longest * DAY_MS));
    const packed = await this.packClosedPartitions(now, kept);
    return { created, dropped, ...(packed.length ? { packed } : {}) };
  }

  /**
   * Rebuilds the indexes of each partition whose day (or month) has closed, once per partition.
   * Samples arrive in time order across every series, so each index page of (series_id, ts) or of
   * the rollups' key takes rows from many cycles and is split half-full again and again: a day's
   * index ends up about two thirds full. Rebuilt once no more rows are expected, with a fill factor
   * of 100 (the default 90 keeps room for inserts), its pages are full, and stay so, since a closed
   * partition is not written again (bar a late retry). CONCURRENTLY: writes and reads of other
   * partitions are never blocked, and this one's reads go on during the rebuild. metrics.packed_partitions records what was done.
   */
  private async packClosedPartitions(
    now: Date,
    partitions: Map<string, PartitionRange[]>,
  ): Promise<string[]> {
    const done = new Set(
      (await this.query<{ name: string }>(`SELECT name FROM metrics.packed_partitions`)).map((r) => r.name),
    );
    const packed: string[] = [];
    for (const kind of SAMPLE_KINDS) {
      for (const level of LEVELS) {
        for (const p of partitions.get(tableName(kind, level)) ?? []) {
          if (done.has(p.name) || p.to.getTime() > now.getTime() - PACK_AFTER_MS) continue;
          // Full pages: the 10% a B-tree leaves free by default is for inserts that a closed
          // partition no longer gets (a late retry's few rows split a page or two, no more).
          const indexes = await this.query<{ name: string }>(
            `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
              WHERE i.indrelid = $1::regclass`,
            `metrics.${p.name}`,
          );
          for (const { name } of indexes)
            await this.exec(`ALTER INDEX metrics."${name}" SET (fillfactor = 100)`);
          await this.exec(`REINDEX TABLE CONCURRENTLY metrics.${p.name}`);
          await this.exec(
            `INSERT INTO metrics.packed_partitions (name) VALUES ($1) ON CONFLICT DO NOTHING`,
            p.name,
          );
          packed.push(p.name);
        }
      }
    }
    return packed;
  }

  private async dropUnseenSeries(before: Date): Promise<void> {
    for (const t of ['MetricsPodSeries', 'MetricsNodeSeries', 'MetricsPvcSeries']) {
      await this.exec(`DELETE FROM "${t}" WHERE "lastSeenAt" < $1::timestamptz`, iso(before));
    }
  }

  private async dropPartition(name: string): Promise<void> {
    await this.exec(`DROP TABLE IF EXISTS metrics.${name}`);
    // A partition made again under this name (a late retry of a dropped day) is not packed yet.
    await this.exec(`DELETE FROM metrics.packed_partitions WHERE name = $1`, name);
    this.partitions.delete(name);
  }

  async tableSizes(): Promise<TableSize[]> {
    const rows = await this.query<{ db: string; name: string; bytes: number }>(
      `SELECT current_database() AS db, p.relname AS name,
              coalesce(sum(pg_total_relation_size(i.inhrelid)), 0)::float8 AS bytes
         FROM pg_class p
         JOIN pg_namespace n ON n.oid = p.relnamespace AND n.nspname = 'metrics'
         LEFT JOIN pg_inherits i ON i.inhparent = p.oid
        WHERE p.relkind = 'p'
        GROUP BY p.relname
       UNION ALL
       SELECT current_database(), c.relname, pg_total_relation_size(c.oid)::float8
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
        WHERE c.relkind = 'r' AND c.relname LIKE 'Metrics%'
        ORDER BY 3 DESC, 2`,
    );
    return rows.map((r) => ({
      database: r.db,
      table: r.name,
      totalSize: readableSize(Number(r.bytes)),
      totalSizeBytes: Number(r.bytes),
    }));
  }

  async close(): Promise<void> {
    this.series.forEach((m) => {
      m.clear();
    });
    await this.sql.close();
  }
}

/** Bytes as ClickHouse's formatReadableSize writes them (`1.23 GiB`), the original's totalSize. */
export function readableSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(2)} ${units[u]}`;
}

/** A sample read's rows, each built from its values and its series' row (found by the series id). */
function joinSeries<T>(
  read: { series: unknown[][]; rows: unknown[][]; page: Pick<Rows<unknown>, 'truncated' | 'resolution'> },
  build: (row: unknown[], series: unknown[]) => T,
): Rows<T> {
  const bySeries = new Map(read.series.map((s) => [Number(s[0]), s]));
  return { ...read.page, rows: read.rows.map((r) => build(r, bySeries.get(r[1] as number)!)) };
}

/**
 * Rows ([t, series id, …], newest first) keeping each series' latest sample per step: what a raw
 * read answers when a series was sampled more often than the plan's step.
 */
function latestPerStep(rows: unknown[][], stepMs: number): unknown[][] {
  const lastStep = new Map<unknown, number>();
  const kept: unknown[][] = [];
  for (const row of rows) {
    const step = Math.floor((row[0] as number) / stepMs);
    if (lastStep.get(row[1]) === step) continue;
    lastStep.set(row[1], step);
    kept.push(row);
  }
  return kept.length === rows.length ? rows : kept;
}

/** The caller's visible clusters and the requested one, as conditions on the series alias `s`. */
function scope(
  filters: string[],
  params: unknown[],
  q: { clusters?: string[] | undefined; clusterName?: string | undefined },
  alias = 's',
): void {
  if (q.clusters) filters.push(`${alias}."clusterName" = ANY($${params.push(q.clusters)}::text[])`);
  if (q.clusterName !== undefined) filters.push(`${alias}."clusterName" = $${params.push(q.clusterName)}`);
  if (!filters.length) filters.push('TRUE');
}

// ------------------------------------------------------------------- record → row conversions

/**
 * A label set's identity texts key the cache (IdentityMap); its attributes are compared with the
 * cached ones value by value (a JSON text of them per sample was a tenth of a batch's host CPU),
 * labels as the record's object (sameLabels).
 */
const podSeriesIdentity = (d: PodRecord, a: string[]) => {
  a[0] = d.clusterName;
  a[1] = d.namespace;
  a[2] = d.pod;
  a[3] = d.container;
};
const podSeriesAttrs = (d: PodRecord, a: unknown[]) => {
  a[0] = d.nodeName;
  a[1] = d.ownerKind;
  a[2] = d.ownerName;
  a[3] = d.labels;
  a[4] = d.cpuRequestCores;
  a[5] = d.memoryRequestBytes;
  a[6] = d.lastTerminationReason;
  a[7] = d.cpuLimitCores;
  a[8] = d.memoryLimitBytes === null ? null : Math.round(d.memoryLimitBytes);
};

const nodeSeriesIdentity = (d: NodeRecord, a: string[]) => {
  a[0] = d.clusterName;
  a[1] = d.nodeName;
};
const nodeSeriesAttrs = (d: NodeRecord, a: unknown[]) => {
  a[0] = d.clusterEnvironment ?? 'PROD';
  a[1] = d.kubernetesVersion;
  a[2] = d.cloudProvider;
  a[3] = d.architecture;
  a[4] = d.operatingSystem;
  a[5] = d.region;
  a[6] = d.instanceType;
  a[7] = d.providerId;
  a[8] = d.nodePool;
  a[9] = d.cpuAllocatableCores;
  a[10] = d.memoryAllocatableBytes;
};

const pvcSeriesIdentity = (d: PvcRecord, a: string[]) => {
  a[0] = d.clusterName;
  a[1] = d.namespace;
  a[2] = d.pod;
  a[3] = d.pvcNamespace;
  a[4] = d.pvcName;
};
const pvcSeriesAttrs = (d: PvcRecord, a: unknown[]) => {
  a[0] = d.volumeName;
  a[1] = d.azureDiskResourceId;
};

type SampleRecord = Rec<'pod'> | Rec<'node'> | Rec<'pvc'>;

/** How one sample kind's records become its label sets and its sample columns. */
interface SampleWriter<K extends SampleRecord['kind'] = SampleRecord['kind']> {
  kind: K;
  table: SampleKind;
  series: SeriesSpec;
  /** The label set's identity texts, then its attributes, written into `a` in the series columns' order. */
  seriesIdentity(d: Rec<K>['data'], a: string[]): void;
  seriesAttrs(d: Rec<K>['data'], a: unknown[]): void;
  /**
   * The sample's values written into row `i` of `cols`, one array per `table.columns` entry
   * (after ts and series_id): no array a sample.
   */
  values(d: Rec<K>['data'], cols: unknown[][], i: number, states: Map<string, number>): void;
}

const sampleWriter = <K extends SampleRecord['kind']>(w: SampleWriter<K>) => w as unknown as SampleWriter;

const SAMPLE_WRITERS: SampleWriter[] = [
  sampleWriter({
    kind: 'pod',
    table: POD,
    series: POD_SERIES,
    seriesIdentity: podSeriesIdentity,
    seriesAttrs: podSeriesAttrs,
    values: (d, cols, i, states) => {
      cols[0]![i] = Math.round(d.memoryUsageBytes);
      cols[1]![i] = d.cpuUsageCores;
      cols[2]![i] = d.restartCount;
      // Whole seconds in a 32-bit column: 68 years of pod age.
      cols[3]![i] = d.podAge === null ? null : Math.max(-2_147_483_648, Math.min(2_147_483_647, d.podAge));
      cols[4]![i] = d.podState === null ? null : (states.get(d.podState) ?? null);
    },
  }),
  sampleWriter({
    kind: 'node',
    table: NODE,
    series: NODE_SERIES,
    seriesIdentity: nodeSeriesIdentity,
    seriesAttrs: nodeSeriesAttrs,
    values: (d, cols, i) => {
      cols[0]![i] = Math.round(d.memoryUsageBytes);
      cols[1]![i] = Math.round(d.memoryCapacityBytes);
      cols[2]![i] = d.cpuUsageCores;
      cols[3]![i] = d.cpuCapacityCores;
      cols[4]![i] = d.isReady;
      cols[5]![i] = d.hasMemoryPressure;
      cols[6]![i] = d.hasDiskPressure;
      cols[7]![i] = d.hasPidPressure;
    },
  }),
  sampleWriter({
    kind: 'pvc',
    table: PVC,
    series: PVC_SERIES,
    seriesIdentity: pvcSeriesIdentity,
    seriesAttrs: pvcSeriesAttrs,
    // bigint arrays as text: a JSON number above 2^31 must not be bound as a 32-bit integer.
    values: (d, cols, i) => {
      cols[0]![i] = String(d.usedBytes);
      cols[1]![i] = String(d.availableBytes);
      cols[2]![i] = String(d.capacityBytes);
    },
  }),
];

/**
 * Column arrays of the sample statement: the raw columns (ts as raw seconds, tables.ts; series_id;
 * the writer's values), then each rollup's rows (their times as epoch milliseconds).
 */
function sampleColumns(
  w: SampleWriter,
  records: SampleRecord[],
  ids: number[],
  states: Map<string, number>,
): unknown[][] {
  const n = records.length;
  const s: SampleArrays = {
    ts: new Array(n),
    ids,
    values: w.table.columns.map(() => new Array(n)),
  };
  // The raw table's times: whole seconds since 2000 (tables.ts). The rollups get the same whole
  // second, so a bucket's latest time is its latest raw sample's.
  const rawTs = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    const seconds = rawSeconds(r.collectedAt.getTime());
    rawTs[i] = seconds;
    s.ts[i] = (seconds + RAW_EPOCH_S) * 1000;
    w.values(r.data as never, s.values, i, states);
  }
  return [rawTs, ids, ...s.values, ...rollupArrays(w.table, '5m', s), ...rollupArrays(w.table, '1h', s)];
}

/** The batch's records by kind, in the order they came. */
function recordsByKind(records: MetricRecord[]): { [K in MetricRecord['kind']]: Rec<K>[] } {
  const out: { [K in MetricRecord['kind']]: Rec<K>[] } = {
    pod: [],
    node: [],
    pvc: [],
    podLog: [],
    event: [],
  };
  for (const r of records) (out[r.kind] as MetricRecord[]).push(r);
  return out;
}

async function writeLogs(exec: Exec, logs: Rec<'podLog'>[]): Promise<void> {
  const newest = newestByKey(logs, (l) =>
    md5([l.data.clusterName, l.data.namespace, l.data.pod, l.data.container]),
  );
  const cols: unknown[][] = Array.from({ length: 7 }, () => []);
  for (const [key, l] of newest) {
    const d: PodLogRecord = l.data;
    for (const [i, v] of [
      key,
      d.clusterName,
      d.namespace,
      d.pod,
      d.container,
      d.logContent,
      iso(l.collectedAt),
    ].entries())
      cols[i]!.push(v);
  }
  await exec(
    `INSERT INTO "MetricsPodLogs" ("seriesKey", "clusterName", "namespace", "pod", "container", "logContent", "collectedAt")
     ${unnestSelect(['text', 'text', 'text', 'text', 'text', 'text', 'timestamptz'])}
     ON CONFLICT ("seriesKey") DO UPDATE SET "logContent" = excluded."logContent", "collectedAt" = excluded."collectedAt"
     WHERE excluded."collectedAt" >= "MetricsPodLogs"."collectedAt"`,
    ...cols,
  );
}

/**
 * An event's identity: its uid when it has one; without one, its name too, so unrelated events of
 * one object (the original collapsed every uid-less event of an object into one row) stay apart.
 */
function eventKey(d: EventRecord): string {
  return d.eventUid
    ? md5([d.clusterName, d.namespace, d.eventUid, d.involvedObjectKind, d.involvedObjectName])
    : md5([d.clusterName, d.namespace, '', d.involvedObjectKind, d.involvedObjectName, d.eventName]);
}

async function writeEvents(exec: Exec, events: Rec<'event'>[]): Promise<void> {
  const newest = newestByKey(events, (e) => eventKey(e.data));
  const cols: unknown[][] = Array.from({ length: 17 }, () => []);
  for (const [key, e] of newest) {
    const d = e.data;
    const values = [
      key,
      d.clusterName,
      d.namespace,
      d.eventName,
      d.eventUid,
      d.involvedObjectKind,
      d.involvedObjectName,
      d.involvedObjectNamespace,
      d.eventType,
      d.reason,
      d.message,
      d.sourceComponent,
      d.count,
      d.firstTimestamp ? iso(d.firstTimestamp) : null,
      // lastTimestamp falls back to firstTimestamp, as the agent fills it.
      d.lastTimestamp ? iso(d.lastTimestamp) : d.firstTimestamp ? iso(d.firstTimestamp) : null,
      iso(e.collectedAt),
    ];
    values.forEach((v, i) => {
      cols[i]!.push(v);
    });
  }
  const names = [
    'eventKey',
    'clusterName',
    'namespace',
    'eventName',
    'eventUid',
    'involvedObjectKind',
    'involvedObjectName',
    'involvedObjectNamespace',
    'eventType',
    'reason',
    'message',
    'sourceComponent',
    'count',
    'firstTimestamp',
    'lastTimestamp',
    'collectedAt',
  ];
  const casts = [...Array(12).fill('text'), 'integer', 'timestamptz', 'timestamptz', 'timestamptz'];
  const updates = names
    .slice(1)
    .map((n) => `"${n}" = excluded."${n}"`)
    .join(', ');
  await exec(
    `INSERT INTO "MetricsEvents" (${names.map((n) => `"${n}"`).join(', ')})
     ${unnestSelect(casts)}
     ON CONFLICT ("eventKey") DO UPDATE SET ${updates}
     WHERE excluded."collectedAt" >= "MetricsEvents"."collectedAt"`,
    ...cols.slice(0, 16),
  );
}
