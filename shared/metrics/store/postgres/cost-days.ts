/**
 * The Kubernetes cost read's per-day sums (`metrics.cost_day`, `metrics.cost_node_hour`): kept for
 * closed UTC days so that a month's read groups ~30 rows per container instead of ~720 hourly ones.
 *
 * - Summed ahead of a read by the hourly housekeeping timer (the last 31 closed days), and by the
 *   cost read itself for any closed day of its period still without sums (DAYS_TO_SUM_SQL, FILL_DAYS_SQL).
 * - A batch that writes samples into a day before today marks that day late (markLateDays); the
 *   next read sums it again. Samples of today, the usual case, cost no statement.
 * - A day whose containers' series rows changed node or requests since it was summed is summed
 *   again too (the read applies each series' latest node and requests to the whole period).
 * - Kept as long as the hourly rollup they come from: dropped with its monthly partitions.
 */
import { lateDays } from '../late-days.js';
import type { Exec } from './sql.js';

const DAY_MS = 86_400_000;

/**
 * Marks the closed days a batch wrote pod or node samples into. Called after the samples'
 * statement (in the batch's transaction when it has one): a read that sums the day after this
 * statement's commit sees the samples. DO UPDATE, not DO NOTHING, so the row is locked: a read
 * deleting the mark waits for this batch to commit, and then sums a day that includes it.
 */
export async function markLateDays(
  exec: Exec,
  records: ReadonlyArray<{ kind: string; collectedAt: Date; data: unknown }>,
  now: Date,
): Promise<void> {
  const late = lateDays(records, now);
  if (!late.length) return;
  await exec(
    `INSERT INTO metrics.cost_day_late (cluster, day, marked_at)
     SELECT c, d, $3::timestamptz FROM unnest($1::text[], $2::date[]) AS l(c, d)
     ON CONFLICT (cluster, day) DO UPDATE SET marked_at = excluded.marked_at`,
    late.map(([c]) => c),
    late.map(([, d]) => d),
    now.toISOString(),
  );
}

const COST_TABLES = ['cost_day', 'cost_day_summed', 'cost_day_late'] as const;

/**
 * Drops the sums of the days before `keepFrom` (a UTC day start): housekeeping passes the start of
 * the hourly rollup's oldest partition it keeps, so a day is summed exactly as long as its hours exist.
 */
export async function dropCostDaysBefore(exec: Exec, keepFrom: Date): Promise<void> {
  const day = keepFrom.toISOString().slice(0, 10);
  for (const t of COST_TABLES) await exec(`DELETE FROM metrics.${t} WHERE day < $1::date`, day);
  await exec(`DELETE FROM metrics.cost_node_hour WHERE bucket < $1::timestamptz`, keepFrom.toISOString());
}

/**
 * The sums a cleanup makes wrong: all of them (`cutoff` undefined), or those of the days up to and
 * including the cutoff's (its day lost part of its hours: it is summed again from what is left).
 */
export async function clearCostDays(exec: Exec, cutoff?: Date): Promise<void> {
  if (!cutoff) {
    await exec(`TRUNCATE ${[...COST_TABLES, 'cost_node_hour'].map((t) => `metrics.${t}`).join(', ')}`);
    return;
  }
  const next = new Date((Math.floor(cutoff.getTime() / DAY_MS) + 1) * DAY_MS);
  await dropCostDaysBefore(exec, next);
}

/**
 * The closed days of $2..$3 (UTC day starts, $1 the cluster) the read must sum before using the
 * stored sums: never summed, marked late, or summed with a container's node or requests that its
 * series row no longer has (or a series since removed).
 */
export const DAYS_TO_SUM_SQL = `SELECT to_char(d, 'YYYY-MM-DD') AS day FROM (
  SELECT d FROM (
    SELECT ($2::timestamptz AT TIME ZONE 'UTC')::date + i AS d
    FROM generate_series(0, ($3::timestamptz AT TIME ZONE 'UTC')::date - ($2::timestamptz AT TIME ZONE 'UTC')::date - 1) i) g
  WHERE NOT EXISTS (SELECT 1 FROM metrics.cost_day_summed m WHERE m.cluster = $1 AND m.day = g.d)
  UNION
  SELECT day FROM metrics.cost_day_late
  WHERE cluster = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND day < ($3::timestamptz AT TIME ZONE 'UTC')::date
  UNION
  SELECT c.day FROM metrics.cost_day c LEFT JOIN "MetricsPodSeries" s ON s.id = c.series_id
  WHERE c.cluster = $1 AND c.day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND c.day < ($3::timestamptz AT TIME ZONE 'UTC')::date
    AND (s."nodeName" IS DISTINCT FROM c.node
         OR (c.node IS NOT NULL AND (s."cpuRequestCores" IS DISTINCT FROM c.cpu_request
                                     OR s."memoryRequestBytes" IS DISTINCT FROM c.mem_request)))
) x ORDER BY 1`;

/** Deletes the late marks of days $2 (dates) of cluster $1: before summing them, in a statement of its own. */
export const UNMARK_DAYS_SQL = `DELETE FROM metrics.cost_day_late WHERE cluster = $1 AND day = ANY($2::date[])`;

/** Deletes the stored sums of days $2 (dates) of cluster $1, in the summing transaction. */
export const CLEAR_DAYS_SQL = [
  `DELETE FROM metrics.cost_day WHERE cluster = $1 AND day = ANY($2::date[])`,
  `DELETE FROM metrics.cost_node_hour WHERE cluster = $1 AND (bucket AT TIME ZONE 'UTC')::date = ANY($2::date[])`,
];

/**
 * Sums days $4 (dates) within $2..$3 (the range's bounds, so the scan reads only its partitions) of
 * cluster $1 in one pass over the hourly rollup: each container-hour's charge (max(request, usage)
 * times the part of the hour its samples cover against the hour's agent cycles, the most samples
 * any node of the cluster has in it: the cost read's hourly rule) grouped two ways at once, per
 * day and container, and per hour and node. Then marks the days summed.
 */
export const FILL_DAYS_SQL = `WITH cyc AS MATERIALIZED (
  SELECT r.bucket, max(r.n)::float8 AS c
  FROM metrics.node_1h r JOIN "MetricsNodeSeries" ns ON ns.id = r.series_id
  WHERE ns."clusterName" = $1 AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz
  GROUP BY 1),
g AS MATERIALIZED (
  SELECT grouping(s.id) AS per_node_hour, (r.bucket AT TIME ZONE 'UTC')::date AS day, r.bucket, s.id AS series_id,
         s."nodeName" AS node, s."cpuRequestCores" AS cpu_request, s."memoryRequestBytes" AS mem_request,
         sum(greatest(s."cpuRequestCores", r.cpu_sum / nullif(r.cpu_n, 0)) * least(1, r.n / c.c)) AS cpu,
         sum(greatest(s."memoryRequestBytes", r.mem_sum / nullif(r.mem_n, 0)) * least(1, r.n / c.c)) AS mem
  FROM metrics.pod_1h r JOIN "MetricsPodSeries" s ON s.id = r.series_id JOIN cyc c ON c.bucket = r.bucket
  WHERE s."clusterName" = $1 AND r.bucket >= $2::timestamptz AND r.bucket < $3::timestamptz
    AND (r.bucket AT TIME ZONE 'UTC')::date = ANY($4::date[])
  GROUP BY GROUPING SETS (((r.bucket AT TIME ZONE 'UTC')::date, s.id, s."nodeName", s."cpuRequestCores", s."memoryRequestBytes"),
                          (r.bucket, s."nodeName"))),
a AS (
  INSERT INTO metrics.cost_day (cluster, day, series_id, node, cpu_request, mem_request, cpu, mem)
  SELECT $1, day, series_id, node, cpu_request, mem_request, cpu, mem FROM g WHERE per_node_hour = 0),
b AS (
  INSERT INTO metrics.cost_node_hour (cluster, bucket, node, cpu, mem)
  SELECT $1, bucket, node, cpu, mem FROM g WHERE per_node_hour = 1 AND node IS NOT NULL),
m AS (
  INSERT INTO metrics.cost_day_summed (cluster, day, summed_at)
  SELECT $1, d, now() FROM unnest($4::date[]) AS d
  ON CONFLICT (cluster, day) DO UPDATE SET summed_at = excluded.summed_at)
SELECT count(*)::int AS n FROM g`;
