/**
 * The totals a run keeps about its history, computed once in the transaction that writes the run
 * (a run never changes afterwards), so reads answer X-Total-Count without counting up to millions
 * of rows per request. The count is left NULL when any row names another subscription than the
 * run: the per-subscription count could then not be derived from it, and readers count instead.
 * Parameters: $1 the run id, $2 the run's subscription id.
 */
export const RUN_HISTORY_TOTALS_SQL = `UPDATE "AnalysisRuns" r SET
    "historicalCostCount" = CASE WHEN t.other = 0 THEN t.n::integer END,
    "historyFrom" = t.lo, "historyTo" = t.hi
  FROM (SELECT count(*) AS n, count(*) FILTER (WHERE h."subscriptionId" <> $2::text) AS other,
               min(h."costDate") AS lo, max(h."costDate") AS hi
        FROM "HistoricalCosts" h WHERE h."analysisRunId" = $1::integer) t
  WHERE r.id = $1::integer`;
