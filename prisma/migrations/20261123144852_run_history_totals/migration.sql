-- AlterTable
ALTER TABLE "AnalysisRuns" ADD COLUMN     "historicalCostCount" INTEGER,
ADD COLUMN     "historyFrom" TIMESTAMP(3),
ADD COLUMN     "historyTo" TIMESTAMP(3);

-- Backfill: the totals of every run already stored, computed once here instead of per request.
UPDATE "AnalysisRuns" r SET
  "historicalCostCount" = CASE WHEN t.other = 0 THEN t.n::integer END,
  "historyFrom" = t.lo, "historyTo" = t.hi
FROM (SELECT h."analysisRunId" AS id, count(*) AS n,
             count(*) FILTER (WHERE h."subscriptionId" <> r2."subscriptionId") AS other,
             min(h."costDate") AS lo, max(h."costDate") AS hi
      FROM "HistoricalCosts" h JOIN "AnalysisRuns" r2 ON r2.id = h."analysisRunId"
      GROUP BY h."analysisRunId") t
WHERE r.id = t.id;
UPDATE "AnalysisRuns" SET "historicalCostCount" = 0
WHERE "historicalCostCount" IS NULL
  AND NOT EXISTS (SELECT 1 FROM "HistoricalCosts" h WHERE h."analysisRunId" = "AnalysisRuns".id);
