-- CreateTable
CREATE TABLE "WasteSuppressions" (
    "id" SERIAL NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "resourceId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3),
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedBy" TEXT,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "WasteSuppressions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WasteExclusions" (
    "id" SERIAL NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tagName" TEXT,
    "tagValue" TEXT,
    "resourceGroup" TEXT,
    "reason" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedBy" TEXT,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "WasteExclusions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WasteSuppressions_subscriptionId_resourceId_idx" ON "WasteSuppressions"("subscriptionId", "resourceId");

-- CreateIndex
CREATE INDEX "WasteExclusions_subscriptionId_idx" ON "WasteExclusions"("subscriptionId");
