/** Past cost imports of a subscription and the import jobs that failed, newest first. */
import type { PrismaClient } from '../../db/generated/client.js';
import { IMPORT_SOURCE } from './import-jobs.js';

/** How many of each the history answers: enough for a page, never the whole table. */
export const IMPORT_HISTORY_LIMIT = 50;

const day = (d: Date) => d.toISOString().slice(0, 10);

export async function importHistory(prisma: PrismaClient, subscriptionId: string) {
  const [imports, failed] = await Promise.all([
    prisma.costImport.findMany({
      where: { subscriptionId },
      orderBy: { createdAt: 'desc' },
      take: IMPORT_HISTORY_LIMIT,
    }),
    prisma.analysisJob.findMany({
      where: {
        subscriptionId,
        source: IMPORT_SOURCE,
        status: 'failed',
      },
      orderBy: { createdAt: 'desc' },
      take: IMPORT_HISTORY_LIMIT,
      select: { id: true, createdAt: true, completedAt: true, message: true, errorDetails: true },
    }),
  ]);
  return {
    imports: imports.map((i) => ({
      importId: i.id,
      analysisRunId: i.analysisRunId,
      subscriptionId: i.subscriptionId,
      source: i.source,
      format: i.format,
      location: i.location,
      rows: i.rows,
      skippedRows: i.skippedRows,
      from: day(i.fromDate),
      to: day(i.toDate),
      createdAt: i.createdAt.toISOString(),
      createdBy: i.createdBy,
    })),
    failed: failed.map((j) => ({
      jobId: j.id,
      createdAt: j.createdAt.toISOString(),
      completedAt: j.completedAt?.toISOString() ?? null,
      message: j.message,
      errorDetails: j.errorDetails,
    })),
  };
}
