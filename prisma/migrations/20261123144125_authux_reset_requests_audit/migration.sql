-- CreateTable
CREATE TABLE "PasswordResetRequests" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "clientAddress" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PasswordResetRequests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditRecords" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorId" UUID,
    "actorEmail" TEXT,
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "details" JSONB,
    "clientAddress" TEXT,
    "userAgent" TEXT,

    CONSTRAINT "AuditRecords_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PasswordResetRequests_email_createdAt_idx" ON "PasswordResetRequests"("email", "createdAt");

-- CreateIndex
CREATE INDEX "PasswordResetRequests_clientAddress_createdAt_idx" ON "PasswordResetRequests"("clientAddress", "createdAt");

-- CreateIndex
CREATE INDEX "AuditRecords_at_idx" ON "AuditRecords"("at");

-- CreateIndex
CREATE INDEX "AuditRecords_actorId_at_idx" ON "AuditRecords"("actorId", "at");

-- CreateIndex
CREATE INDEX "AuditRecords_action_at_idx" ON "AuditRecords"("action", "at");
