-- AlterTable
ALTER TABLE "AuditRecords" ALTER COLUMN "actorId" SET DATA TYPE TEXT;
