/** POST /Analysis/cleanup: keeps the newest run of each subscription, deletes the others (cascade). */
import type { PrismaClient } from '../../db/generated/client.js';

export interface CleanupResult {
  success: true;
  message: string;
  analysisRunsDeleted: number;
  analysisRunsKept: number;
  deletedRuns: string[];
}

/** `yyyy-mm-dd hh:mm:ss` of the stored wall-clock value (its UTC fields). */
const sqlTime = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

export async function cleanupRuns(prisma: PrismaClient): Promise<CleanupResult> {
  const runs = await prisma.analysisRun.findMany({
    select: { id: true, subscriptionId: true, subscriptionName: true, runDate: true },
    orderBy: [{ runDate: 'desc' }, { id: 'desc' }],
  });
  const kept = new Set<string>();
  const doomed: typeof runs = [];
  // Stored ids are lower case (written so, older rows migrated): compared as they are.
  for (const r of runs) {
    if (kept.has(r.subscriptionId)) doomed.push(r);
    else kept.add(r.subscriptionId);
  }
  // One run (and its cascade of up to hundreds of thousands of rows) per statement: many runs in one
  // DELETE could outlast the statement timeout and then never succeed. A failure part-way leaves
  // only whole runs deleted, and the next cleanup finishes the job.
  for (const r of doomed) await prisma.analysisRun.deleteMany({ where: { id: r.id } });
  return {
    success: true,
    message: doomed.length
      ? `Deleted ${doomed.length} old analysis run(s); kept the latest run of ${kept.size} subscription(s).`
      : 'Nothing to clean up: only the latest run of each subscription is stored.',
    analysisRunsDeleted: doomed.length,
    analysisRunsKept: kept.size,
    deletedRuns: doomed.map(
      (r) =>
        `Run #${r.id} - Subscription: ${r.subscriptionName} (${r.subscriptionId}) - Date: ${sqlTime(r.runDate)}`,
    ),
  };
}
