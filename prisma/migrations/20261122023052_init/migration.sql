-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Users" (
    "id" UUID NOT NULL,
    "username" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT,
    "isAdmin" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "lastLogon" TIMESTAMPTZ(3),
    "credentialsChangedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UserDeviceTokens" (
    "id" SERIAL NOT NULL,
    "userId" UUID NOT NULL,
    "deviceToken" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserDeviceTokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UserClusters" (
    "userId" UUID NOT NULL,
    "clusterName" TEXT NOT NULL,

    CONSTRAINT "UserClusters_pkey" PRIMARY KEY ("userId","clusterName")
);

-- CreateTable
CREATE TABLE "UserSubscriptions" (
    "userId" UUID NOT NULL,
    "subscriptionId" UUID NOT NULL,

    CONSTRAINT "UserSubscriptions_pkey" PRIMARY KEY ("userId","subscriptionId")
);

-- CreateTable
CREATE TABLE "UsersMonitorGroup" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "groupMonitorId" INTEGER NOT NULL,

    CONSTRAINT "UsersMonitorGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UserActions" (
    "id" SERIAL NOT NULL,
    "userId" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "timeStamp" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "UserActions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PasswordResetCodes" (
    "id" SERIAL NOT NULL,
    "userId" UUID NOT NULL,
    "codeHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PasswordResetCodes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LoginFailures" (
    "id" SERIAL NOT NULL,
    "account" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LoginFailures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Subscriptions" (
    "id" SERIAL NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "budget" DECIMAL(18,2),
    "infraSupportCost" DECIMAL(18,2) NOT NULL DEFAULT 400,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AnalysisRuns" (
    "id" SERIAL NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "subscriptionName" TEXT NOT NULL,
    "runDate" TIMESTAMP(3) NOT NULL,
    "totalMonthlyCost" DECIMAL(18,4) NOT NULL,
    "totalResourcesAnalyzed" INTEGER NOT NULL,
    "aiModel" TEXT NOT NULL DEFAULT 'N/A',
    "conversationId" TEXT NOT NULL DEFAULT 'N/A',
    "reportFilePath" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "costQueryType" TEXT NOT NULL DEFAULT 'ActualCost',
    "monthSelection" TEXT NOT NULL DEFAULT 'current',
    "periodFrom" DATE NOT NULL,
    "periodTo" DATE NOT NULL,
    "recommendationSource" TEXT NOT NULL DEFAULT 'none',
    "recommendationError" TEXT,

    CONSTRAINT "AnalysisRuns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AnalysisJobs" (
    "id" UUID NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "monthSelection" TEXT NOT NULL DEFAULT 'current',
    "source" TEXT NOT NULL DEFAULT 'async',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "phase" TEXT,
    "progress" INTEGER NOT NULL DEFAULT 0,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMPTZ(3),
    "heartbeatAt" TIMESTAMPTZ(3),
    "completedAt" TIMESTAMPTZ(3),
    "success" BOOLEAN,
    "subscriptionName" TEXT,
    "analysisRunId" INTEGER,
    "totalMonthlyCost" DECIMAL(18,4),
    "resourcesAnalyzed" INTEGER,
    "message" TEXT,
    "errorDetails" TEXT,

    CONSTRAINT "AnalysisJobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ResourceAnalyses" (
    "id" SERIAL NOT NULL,
    "analysisRunId" INTEGER NOT NULL,
    "resourceId" TEXT NOT NULL DEFAULT '',
    "resourceType" TEXT NOT NULL,
    "resourceName" TEXT NOT NULL,
    "resourceGroup" TEXT NOT NULL,
    "location" TEXT NOT NULL DEFAULT '',
    "propertiesJson" TEXT,
    "tagsJson" TEXT,
    "metricsJson" TEXT,
    "flags" TEXT,
    "flagDetails" JSONB,
    "monthToDateCost" DECIMAL(18,4),
    "recordedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ResourceAnalyses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CostDetails" (
    "id" SERIAL NOT NULL,
    "analysisRunId" INTEGER NOT NULL,
    "costType" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "resourceGroup" TEXT,
    "cost" DECIMAL(18,4) NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "recordedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CostDetails_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HistoricalCosts" (
    "id" SERIAL NOT NULL,
    "analysisRunId" INTEGER NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "costDate" TIMESTAMP(3) NOT NULL,
    "costType" TEXT NOT NULL,
    "resourceGroup" TEXT,
    "name" TEXT,
    "cost" DECIMAL(18,4) NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "recordedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "HistoricalCosts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AiRecommendations" (
    "id" SERIAL NOT NULL,
    "analysisRunId" INTEGER NOT NULL,
    "recommendationText" TEXT NOT NULL,
    "summary" VARCHAR(1000),
    "messageId" TEXT NOT NULL DEFAULT '',
    "conversationId" TEXT NOT NULL DEFAULT '',
    "model" TEXT NOT NULL DEFAULT '',
    "timestamp" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "source" TEXT NOT NULL DEFAULT 'ai',
    "recordedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AiRecommendations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Users_username_key" ON "Users"("username");

-- CreateIndex
CREATE UNIQUE INDEX "Users_email_key" ON "Users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "UserDeviceTokens_userId_deviceToken_key" ON "UserDeviceTokens"("userId", "deviceToken");

-- CreateIndex
CREATE INDEX "UsersMonitorGroup_groupMonitorId_idx" ON "UsersMonitorGroup"("groupMonitorId");

-- CreateIndex
CREATE UNIQUE INDEX "UsersMonitorGroup_userId_groupMonitorId_key" ON "UsersMonitorGroup"("userId", "groupMonitorId");

-- CreateIndex
CREATE INDEX "UserActions_userId_timeStamp_idx" ON "UserActions"("userId", "timeStamp");

-- CreateIndex
CREATE INDEX "PasswordResetCodes_userId_expiresAt_idx" ON "PasswordResetCodes"("userId", "expiresAt");

-- CreateIndex
CREATE INDEX "LoginFailures_account_createdAt_idx" ON "LoginFailures"("account", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Subscriptions_subscriptionId_key" ON "Subscriptions"("subscriptionId");

-- CreateIndex
CREATE INDEX "AnalysisRuns_subscriptionId_runDate_idx" ON "AnalysisRuns"("subscriptionId", "runDate" DESC);

-- CreateIndex
CREATE INDEX "AnalysisRuns_runDate_idx" ON "AnalysisRuns"("runDate" DESC);

-- CreateIndex
CREATE INDEX "AnalysisJobs_status_createdAt_idx" ON "AnalysisJobs"("status", "createdAt");

-- CreateIndex
CREATE INDEX "AnalysisJobs_createdAt_idx" ON "AnalysisJobs"("createdAt");

-- CreateIndex
CREATE INDEX "ResourceAnalyses_analysisRunId_resourceType_resourceName_idx" ON "ResourceAnalyses"("analysisRunId", "resourceType", "resourceName");

-- CreateIndex
CREATE INDEX "ResourceAnalyses_analysisRunId_resourceGroup_idx" ON "ResourceAnalyses"("analysisRunId", "resourceGroup");

-- CreateIndex
CREATE INDEX "CostDetails_analysisRunId_costType_cost_idx" ON "CostDetails"("analysisRunId", "costType", "cost" DESC);

-- CreateIndex
CREATE INDEX "HistoricalCosts_analysisRunId_costType_costDate_idx" ON "HistoricalCosts"("analysisRunId", "costType", "costDate");

-- CreateIndex
CREATE INDEX "HistoricalCosts_subscriptionId_costDate_idx" ON "HistoricalCosts"("subscriptionId", "costDate");

-- CreateIndex
CREATE INDEX "AiRecommendations_analysisRunId_recordedAt_idx" ON "AiRecommendations"("analysisRunId", "recordedAt" DESC);

-- AddForeignKey
ALTER TABLE "UserDeviceTokens" ADD CONSTRAINT "UserDeviceTokens_userId_fkey" FOREIGN KEY ("userId") REFERENCES "Users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserClusters" ADD CONSTRAINT "UserClusters_userId_fkey" FOREIGN KEY ("userId") REFERENCES "Users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserSubscriptions" ADD CONSTRAINT "UserSubscriptions_userId_fkey" FOREIGN KEY ("userId") REFERENCES "Users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsersMonitorGroup" ADD CONSTRAINT "UsersMonitorGroup_userId_fkey" FOREIGN KEY ("userId") REFERENCES "Users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserActions" ADD CONSTRAINT "UserActions_userId_fkey" FOREIGN KEY ("userId") REFERENCES "Users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PasswordResetCodes" ADD CONSTRAINT "PasswordResetCodes_userId_fkey" FOREIGN KEY ("userId") REFERENCES "Users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceAnalyses" ADD CONSTRAINT "ResourceAnalyses_analysisRunId_fkey" FOREIGN KEY ("analysisRunId") REFERENCES "AnalysisRuns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CostDetails" ADD CONSTRAINT "CostDetails_analysisRunId_fkey" FOREIGN KEY ("analysisRunId") REFERENCES "AnalysisRuns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HistoricalCosts" ADD CONSTRAINT "HistoricalCosts_analysisRunId_fkey" FOREIGN KEY ("analysisRunId") REFERENCES "AnalysisRuns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AiRecommendations" ADD CONSTRAINT "AiRecommendations_analysisRunId_fkey" FOREIGN KEY ("analysisRunId") REFERENCES "AnalysisRuns"("id") ON DELETE CASCADE ON UPDATE CASCADE;
