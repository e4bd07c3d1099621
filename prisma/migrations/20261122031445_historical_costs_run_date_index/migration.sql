-- CreateIndex
CREATE INDEX "HistoricalCosts_analysisRunId_costDate_idx" ON "HistoricalCosts"("analysisRunId", "costDate");
