-- CreateTable
CREATE TABLE "NotificationChannels" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "secret" TEXT,
    "minImpact" DECIMAL(18,4) NOT NULL DEFAULT 0,
    "subscriptionId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT,

    CONSTRAINT "NotificationChannels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NotificationDeliveries" (
    "id" SERIAL NOT NULL,
    "channelId" INTEGER NOT NULL,
    "eventKey" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimedUntil" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMPTZ(3),

    CONSTRAINT "NotificationDeliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "NotificationDeliveries_status_nextAttemptAt_idx" ON "NotificationDeliveries"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "NotificationDeliveries_channelId_eventKey_key" ON "NotificationDeliveries"("channelId", "eventKey");

-- AddForeignKey
ALTER TABLE "NotificationDeliveries" ADD CONSTRAINT "NotificationDeliveries_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "NotificationChannels"("id") ON DELETE CASCADE ON UPDATE CASCADE;
