-- CreateTable
CREATE TABLE "CostAnomalies" (
    "id" SERIAL NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "scopeKind" TEXT NOT NULL,
    "scopeName" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "expectedCost" DECIMAL(18,4) NOT NULL,
    "actualCost" DECIMAL(18,4) NOT NULL,
    "impact" DECIMAL(18,4) NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "severity" TEXT NOT NULL,
    "firstDetectedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "analysisRunId" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'open',
    "acknowledgedAt" TIMESTAMPTZ(3),
    "acknowledgedBy" TEXT,
    "note" VARCHAR(2000),

    CONSTRAINT "CostAnomalies_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CostAnomalies_date_id_idx" ON "CostAnomalies"("date" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "CostAnomalies_subscriptionId_scopeKind_scopeName_kind_date_key" ON "CostAnomalies"("subscriptionId", "scopeKind", "scopeName", "kind", "date");
