-- CreateTable
CREATE TABLE "KubernetesManagedClusters" (
    "id" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "resourceGroup" TEXT NOT NULL,
    "nodeResourceGroup" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "tier" TEXT,
    "pools" JSONB NOT NULL,
    "disks" JSONB NOT NULL,
    "collectedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "KubernetesManagedClusters_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KubernetesBilledCosts" (
    "clusterId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "resourceId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "actualCost" DECIMAL(18,6) NOT NULL,
    "amortizedCost" DECIMAL(18,6) NOT NULL,
    "quantity" DECIMAL(18,4),
    "currency" TEXT NOT NULL,
    "collectedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "KubernetesBilledCosts_pkey" PRIMARY KEY ("clusterId","day","resourceId")
);

-- CreateIndex
CREATE INDEX "KubernetesManagedClusters_subscriptionId_idx" ON "KubernetesManagedClusters"("subscriptionId");
