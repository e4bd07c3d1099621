-- DropIndex
DROP INDEX "HistoricalCosts_analysisRunId_costDate_idx";

-- DropIndex
DROP INDEX "HistoricalCosts_subscriptionId_costDate_idx";

-- CreateIndex
CREATE INDEX "HistoricalCosts_analysisRunId_costDate_id_idx" ON "HistoricalCosts"("analysisRunId", "costDate", "id");

-- CreateIndex
CREATE INDEX "HistoricalCosts_subscriptionId_costDate_id_idx" ON "HistoricalCosts"("subscriptionId", "costDate", "id");
