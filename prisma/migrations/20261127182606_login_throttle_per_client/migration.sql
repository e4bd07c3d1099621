-- DropIndex
DROP INDEX "LoginFailures_account_createdAt_idx";

-- AlterTable
ALTER TABLE "LoginFailures" ADD COLUMN     "clientAddress" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'signIn';

-- CreateTable
CREATE TABLE "KnownSignInAddresses" (
    "account" TEXT NOT NULL,
    "clientAddress" TEXT NOT NULL,
    "lastSignInAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KnownSignInAddresses_pkey" PRIMARY KEY ("account","clientAddress")
);

-- CreateIndex
CREATE INDEX "KnownSignInAddresses_lastSignInAt_idx" ON "KnownSignInAddresses"("lastSignInAt");

-- CreateIndex
CREATE INDEX "LoginFailures_account_kind_clientAddress_createdAt_idx" ON "LoginFailures"("account", "kind", "clientAddress", "createdAt");

-- CreateIndex
CREATE INDEX "LoginFailures_account_kind_createdAt_idx" ON "LoginFailures"("account", "kind", "createdAt");

-- CreateIndex
CREATE INDEX "LoginFailures_createdAt_idx" ON "LoginFailures"("createdAt");
