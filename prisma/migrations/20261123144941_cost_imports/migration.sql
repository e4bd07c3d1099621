-- CreateTable
CREATE TABLE "CostImports" (
    "id" SERIAL NOT NULL,
    "analysisRunId" INTEGER NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "location" TEXT,
    "rows" INTEGER NOT NULL,
    "skippedRows" INTEGER NOT NULL,
    "fromDate" DATE NOT NULL,
    "toDate" DATE NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT,

    CONSTRAINT "CostImports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CostImports_analysisRunId_key" ON "CostImports"("analysisRunId");

-- CreateIndex
CREATE INDEX "CostImports_subscriptionId_createdAt_idx" ON "CostImports"("subscriptionId", "createdAt" DESC);
