import { recordAudit } from '../shared/audit/record.js';
import type { PrismaClient } from '../shared/db/client.js';

/** How often the local host applies its run retention (besides once at startup). */
export const RUN_RETENTION_EVERY_MS = 6 * 3_600_000;

/**
 * Deletes every analysis run beyond the `keep` newest of its subscription (their resources, costs
 * and history cascade), and records what it did in the audit trail. A local data folder otherwise
 * grows with every weekly or manual analysis until one unpaged history read streams 100,000 rows.
 * One run per statement, as POST /finops/api/Analysis/cleanup does (which keeps only the newest):
 * a failure part-way leaves whole runs, and the next pass finishes the job.
 */
export async function keepNewestRuns(prisma: PrismaClient, keep: number): Promise<number> {
  if (keep <= 0) return 0;
  const runs = await prisma.analysisRun.findMany({
    select: { id: true, subscriptionId: true },
    orderBy: [{ runDate: 'desc' }, { id: 'desc' }],
  });
  const seen = new Map<string, number>();
  const doomed: number[] = [];
  for (const r of runs) {
    const key = r.subscriptionId.trim().toLowerCase();
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n > keep) doomed.push(r.id);
  }
  for (const id of doomed) await prisma.analysisRun.deleteMany({ where: { id } });
  if (doomed.length) {
    await recordAudit(prisma, {
      actor: null,
      action: 'analysis.cleanup',
      details: {
        via: 'local host run retention',
        keepPerSubscription: keep,
        analysisRunsDeleted: doomed.length,
      },
    });
  }
  return doomed.length;
}
