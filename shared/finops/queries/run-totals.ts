import type { PrismaClient } from '../../db/client.js';

/**
 * Whether a run's totals (RunResourceTotals and the history figures) were written with it. Runs
 * stored another way (imported, or by hand) have none, and their figures are read from the rows.
 */
export async function hasRunTotals(prisma: PrismaClient, runId: number): Promise<boolean> {
  // Raw: asked before every kept answer, and a model query costs several times its SQL in the client.
  const [run] = await prisma.$queryRaw<Array<{ kept: boolean }>>`
    SELECT "totalsWrittenAt" IS NOT NULL AS kept FROM "AnalysisRuns" WHERE id = ${runId}`;
  return run?.kept === true;
}
