-- AlterTable
ALTER TABLE "AnalysisJobs" ADD COLUMN     "result" JSONB;

-- CreateTable
CREATE TABLE "CostExportRuns" (
    "id" SERIAL NOT NULL,
    "manifest" TEXT NOT NULL,
    "exportName" TEXT NOT NULL,
    "periodStart" TEXT NOT NULL,
    "submittedTime" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "jobId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CostExportRuns_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CostExportRuns_manifest_key" ON "CostExportRuns"("manifest");
