-- CreateTable
CREATE TABLE "MetricsNodeStates" (
    "clusterName" TEXT NOT NULL,
    "nodeName" TEXT NOT NULL,
    "isReady" BOOLEAN,
    "hasMemoryPressure" BOOLEAN,
    "hasDiskPressure" BOOLEAN,
    "hasPidPressure" BOOLEAN,
    "conditionsAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "silentSince" TIMESTAMPTZ(3),
    "priceKey" TEXT,
    "retailPrice" DOUBLE PRECISION,

    CONSTRAINT "MetricsNodeStates_pkey" PRIMARY KEY ("clusterName","nodeName")
);

-- CreateTable
CREATE TABLE "MetricsClusterStates" (
    "clusterName" TEXT NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "silentSince" TIMESTAMPTZ(3),

    CONSTRAINT "MetricsClusterStates_pkey" PRIMARY KEY ("clusterName")
);

-- CreateTable
CREATE TABLE "MetricsAlerts" (
    "id" SERIAL NOT NULL,
    "nodeName" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "timeStamp" TIMESTAMP(3) NOT NULL,
    "status" BOOLEAN NOT NULL,
    "message" TEXT,
    "kind" TEXT NOT NULL DEFAULT 'node',

    CONSTRAINT "MetricsAlerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MetricsNotifications" (
    "clusterName" TEXT NOT NULL,
    "notificationId" INTEGER NOT NULL,

    CONSTRAINT "MetricsNotifications_pkey" PRIMARY KEY ("clusterName","notificationId")
);

-- CreateTable
CREATE TABLE "MetricsClusterPrices" (
    "id" SERIAL NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "clusterName" TEXT NOT NULL,
    "nodeName" TEXT NOT NULL,
    "region" TEXT,
    "instanceType" TEXT,
    "operatingSystem" TEXT,
    "cloudProvider" TEXT,
    "currencyCode" TEXT NOT NULL,
    "unitPrice" DOUBLE PRECISION NOT NULL,
    "retailPrice" DOUBLE PRECISION NOT NULL,
    "meterName" TEXT NOT NULL,
    "productName" TEXT NOT NULL,
    "skuName" TEXT NOT NULL,
    "serviceName" TEXT NOT NULL,
    "armRegionName" TEXT NOT NULL,
    "effectiveStartDate" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MetricsClusterPrices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AzurePriceCache" (
    "key" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "fetchedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "AzurePriceCache_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "MetricsNodeStates_lastSeenAt_idx" ON "MetricsNodeStates"("lastSeenAt");

-- CreateIndex
CREATE INDEX "MetricsAlerts_clusterName_timeStamp_idx" ON "MetricsAlerts"("clusterName", "timeStamp" DESC);

-- CreateIndex
CREATE INDEX "MetricsAlerts_clusterName_nodeName_timeStamp_idx" ON "MetricsAlerts"("clusterName", "nodeName", "timeStamp" DESC);

-- CreateIndex
CREATE INDEX "MetricsAlerts_timeStamp_idx" ON "MetricsAlerts"("timeStamp" DESC);

-- CreateIndex
CREATE INDEX "MetricsNotifications_notificationId_idx" ON "MetricsNotifications"("notificationId");

-- CreateIndex
CREATE INDEX "MetricsClusterPrices_clusterName_timestamp_idx" ON "MetricsClusterPrices"("clusterName", "timestamp" DESC);

-- CreateIndex
CREATE INDEX "MetricsClusterPrices_timestamp_idx" ON "MetricsClusterPrices"("timestamp" DESC);

-- CreateIndex
CREATE INDEX "AzurePriceCache_fetchedAt_idx" ON "AzurePriceCache"("fetchedAt");

-- AddForeignKey
ALTER TABLE "MetricsNotifications" ADD CONSTRAINT "MetricsNotifications_notificationId_fkey" FOREIGN KEY ("notificationId") REFERENCES "NotificationChannels"("id") ON DELETE CASCADE ON UPDATE CASCADE;
