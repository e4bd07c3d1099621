-- AlterTable
ALTER TABLE "AnalysisJobs" ADD COLUMN     "messageSends" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "messageSentAt" TIMESTAMPTZ(3);

-- Jobs queued before the outbox existed had their message sent when they were created.
UPDATE "AnalysisJobs" SET "messageSentAt" = "createdAt", "messageSends" = 1 WHERE "source" <> 'sync';
