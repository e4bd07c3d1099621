/**
 * The totals a run keeps about itself, computed once in the transaction that writes the run (a
 * run never changes afterwards), so reads answer X-Total-Count, summaries, the dashboard and the
 * optimization opportunities without reading up to millions of rows per request.
 *
 * History: the row count is left NULL when any row names another subscription than the run (the
 * per-subscription count could then not be derived from it; readers count instead).
 * Parameters: $1 the run id, $2 the run's subscription id.
 */
export const RUN_HISTORY_TOTALS_SQL = `UPDATE "AnalysisRuns" r SET
    "historicalCostCount" = CASE WHEN t.other = 0 THEN t.n::integer END,
    "historyFrom" = t.lo, "historyTo" = t.hi, "totalsWrittenAt" = now()::timestamp(3)
  FROM (SELECT count(*) AS n, count(*) FILTER (WHERE h."subscriptionId" <> $2::text) AS other,
               min(h."costDate") AS lo, max(h."costDate") AS hi
        FROM "HistoricalCosts" h WHERE h."analysisRunId" = $1::integer) t
  WHERE r.id = $1::integer`;

/** Resource counts per (upper-case) group and type, flagged ones apart. Parameter: $1 the run id. */
export const RUN_RESOURCE_TOTALS_SQL = `INSERT INTO "RunResourceTotals"
    ("analysisRunId", "resourceGroup", "resourceType", "resources", "flagged")
  SELECT $1::integer, upper("resourceGroup"), "resourceType", count(*),
         count(*) FILTER (WHERE flags IS NOT NULL AND flags <> '')
  FROM "ResourceAnalyses" WHERE "analysisRunId" = $1::integer GROUP BY 2, 3`;

/**
 * The run's Service history rows per service name (RunServiceTotals) and in all
 * (historyServiceCount): a by-service page reads its X-Total-Count here. One read of the run's
 * Service rows, just written (44k for the read bench's run: tens of ms once), against counting a
 * service's rows on every paged request (7,320 rows, 10-20 ms of the database each). Rows without
 * a name count in the whole only (no filter can name them). Parameter: $1 the run id.
 */
export const RUN_SERVICE_TOTALS_SQL = `WITH g AS (
    SELECT name, count(*)::integer AS n FROM "HistoricalCosts"
    WHERE "analysisRunId" = $1::integer AND "costType" = 'Service' GROUP BY name
  ), kept AS (
    INSERT INTO "RunServiceTotals" ("analysisRunId", "name", "rows")
    SELECT $1::integer, name, n FROM g WHERE name IS NOT NULL
  )
  UPDATE "AnalysisRuns" SET "historyServiceCount" = (SELECT coalesce(sum(n), 0)::integer FROM g)
  WHERE id = $1::integer`;

/** Writes them all inside the run's write transaction (`exec` runs one statement in it). */
export async function writeRunTotals(
  exec: (sql: string, params: unknown[]) => Promise<number>,
  runId: number,
  subscriptionId: string,
): Promise<void> {
  await exec(RUN_RESOURCE_TOTALS_SQL, [runId]);
  await exec(RUN_HISTORY_TOTALS_SQL, [runId, subscriptionId]);
  await exec(RUN_SERVICE_TOTALS_SQL, [runId]);
}
