-- AlterTable
ALTER TABLE "AnalysisRuns" ADD COLUMN     "historyServiceCount" INTEGER;

-- CreateTable
CREATE TABLE "RunServiceTotals" (
    "analysisRunId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "rows" INTEGER NOT NULL,

    CONSTRAINT "RunServiceTotals_pkey" PRIMARY KEY ("analysisRunId","name")
);

-- AddForeignKey
ALTER TABLE "RunServiceTotals" ADD CONSTRAINT "RunServiceTotals_analysisRunId_fkey" FOREIGN KEY ("analysisRunId") REFERENCES "AnalysisRuns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the per-service totals of every run written with its totals, computed once here
-- instead of per request (one read of the Service rows). Runs without totals keep NULL.
UPDATE "AnalysisRuns" SET "historyServiceCount" = 0 WHERE "totalsWrittenAt" IS NOT NULL;
WITH g AS (
  SELECT h."analysisRunId" AS id, h.name, count(*)::integer AS n
  FROM "HistoricalCosts" h JOIN "AnalysisRuns" r ON r.id = h."analysisRunId"
  WHERE h."costType" = 'Service' AND r."totalsWrittenAt" IS NOT NULL
  GROUP BY 1, 2
), kept AS (
  INSERT INTO "RunServiceTotals" ("analysisRunId", "name", "rows")
  SELECT id, name, n FROM g WHERE name IS NOT NULL
)
UPDATE "AnalysisRuns" r SET "historyServiceCount" = t.n
FROM (SELECT id, sum(n)::integer AS n FROM g GROUP BY id) t
WHERE r.id = t.id;
