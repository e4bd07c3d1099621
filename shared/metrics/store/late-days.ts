/**
 * The closed days a batch writes pod or node samples into: the Kubernetes cost read keeps per-day
 * sums of closed days (in either store), and a batch that lands in one makes its sums stale. Samples
 * of today, the usual case, name no day.
 */
const DAY_MS = 86_400_000;

/** The pod and node samples' clusters and days before `now`'s UTC day, as [cluster, 'YYYY-MM-DD']. */
export function lateDays(
  records: ReadonlyArray<{ kind: string; collectedAt: Date; data: unknown }>,
  now: Date,
): Array<[string, string]> {
  const today = Math.floor(now.getTime() / DAY_MS);
  const out = new Map<string, [string, string]>();
  // A batch is cycles of one cluster in time order: most records repeat the previous one's day.
  let lastDay = Number.NaN;
  let lastCluster = '';
  for (const r of records) {
    if (r.kind !== 'pod' && r.kind !== 'node') continue;
    const day = Math.floor(r.collectedAt.getTime() / DAY_MS);
    if (day >= today) continue;
    const cluster = (r.data as { clusterName: string }).clusterName;
    if (day === lastDay && cluster === lastCluster) continue;
    lastDay = day;
    lastCluster = cluster;
    const ymd = new Date(day * DAY_MS).toISOString().slice(0, 10);
    out.set(`${cluster}|${ymd}`, [cluster, ymd]);
  }
  return [...out.values()];
}
