import type { PrismaClient } from '../../db/client.js';

/**
 * Whether a run's totals (RunResourceTotals and the history figures) were written with it. Runs
 * stored another way (imported, or by hand) have none, and their figures are read from the rows.
 */
export async function hasRunTotals(prisma: PrismaClient, runId: number): Promise<boolean> {
  const run = await prisma.analysisRun.findUnique({
    where: { id: runId },
    select: { totalsWrittenAt: true },
  });
  return !!run?.totalsWrittenAt;
}
