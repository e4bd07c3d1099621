-- AlterTable
ALTER TABLE "AnalysisRuns" ADD COLUMN     "totalsWrittenAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "RunResourceTotals" (
    "analysisRunId" INTEGER NOT NULL,
    "resourceGroup" TEXT NOT NULL,
    "resourceType" TEXT NOT NULL,
    "resources" INTEGER NOT NULL,
    "flagged" INTEGER NOT NULL,

    CONSTRAINT "RunResourceTotals_pkey" PRIMARY KEY ("analysisRunId","resourceGroup","resourceType")
);

-- AddForeignKey
ALTER TABLE "RunResourceTotals" ADD CONSTRAINT "RunResourceTotals_analysisRunId_fkey" FOREIGN KEY ("analysisRunId") REFERENCES "AnalysisRuns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the totals of every run already stored, computed once here instead of per request.
INSERT INTO "RunResourceTotals" ("analysisRunId", "resourceGroup", "resourceType", "resources", "flagged")
SELECT "analysisRunId", upper("resourceGroup"), "resourceType", count(*),
       count(*) FILTER (WHERE flags IS NOT NULL AND flags <> '')
FROM "ResourceAnalyses" GROUP BY 1, 2, 3;
UPDATE "AnalysisRuns" SET "totalsWrittenAt" = now()::timestamp(3);
