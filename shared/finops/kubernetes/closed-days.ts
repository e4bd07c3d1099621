/**
 * When a day's cost is read from stored per-day sums instead of the hourly rollup, and which days
 * the hourly housekeeping sums ahead of a read: one rule for both metrics stores' usage sources.
 */
const DAY_MS = 86_400_000;

/**
 * A day is read from its stored sums once it ended this long ago: the agent's batches of its last
 * hour have arrived by then, so a day is rarely summed twice. A later batch marks it to be summed again.
 */
export const CLOSED_AFTER_MS = 3_600_000;

/**
 * The closed days the hourly housekeeping sums ahead of a read, per cluster still reporting in them:
 * a month, the period a cost read asks most. The first run after an upgrade sums the month once;
 * each later run finds at most yesterday to sum.
 */
export const PREPARED_DAYS = 31;

/** The start of the first day not yet closed at `now` (ms): days before it are read from their sums. */
export function closedUntil(now: Date): number {
  return Math.floor((now.getTime() - CLOSED_AFTER_MS) / DAY_MS) * DAY_MS;
}

/**
 * Days read in one statement: the PostgreSQL read's hash tables grow with the days (a month of 200
 * nodes: ~30 MB), and a month is the period a cost read asks most.
 */
export const CHUNK_DAYS = 31;

/** A part of a read's period: whole days, closed (from stored sums) or open (from the hourly rollup). */
export interface PeriodChunk {
  start: Date;
  end: Date;
  closed: boolean;
}

/**
 * The days from..to ('YYYY-MM-DD', both included) as the parts a read goes through: the closed
 * days first, then the open ones, each part at most CHUNK_DAYS.
 */
export function periodChunks(from: string, to: string, now: Date): PeriodChunk[] {
  const first = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + DAY_MS;
  const open = Math.max(first, Math.min(end, closedUntil(now)));
  const chunks: PeriodChunk[] = [];
  for (const [a, b, closed] of [
    [first, open, true],
    [open, end, false],
  ] as const) {
    for (let t = a; t < b; t += CHUNK_DAYS * DAY_MS) {
      chunks.push({ start: new Date(t), end: new Date(Math.min(t + CHUNK_DAYS * DAY_MS, b)), closed });
    }
  }
  return chunks;
}

/** What a usage source with stored per-day sums offers the housekeeping. */
export interface ClosedDaySummer {
  clusters(): Promise<Array<{ clusterName: string; lastSeen: Date }>>;
  /** Sums the closed days of start..end that need it; answers them as 'YYYY-MM-DD'. */
  sumClosedDays(cluster: string, start: Date, end: Date): Promise<string[]>;
}

/** Sums the last PREPARED_DAYS closed days of every cluster still reporting in them. */
export async function prepareRecentClosedDays(
  source: ClosedDaySummer,
  now: Date,
): Promise<Array<{ clusterName: string; days: string[] }>> {
  const end = closedUntil(now);
  const start = end - PREPARED_DAYS * DAY_MS;
  const prepared: Array<{ clusterName: string; days: string[] }> = [];
  for (const c of await source.clusters()) {
    // A cluster that stopped reporting before the period has no day to sum in it.
    if (c.lastSeen.getTime() < start) continue;
    // Days without data are marked summed too (nothing to store): a batch that lands in one
    // later marks it to be summed again.
    const days = await source.sumClosedDays(c.clusterName.toLowerCase(), new Date(start), new Date(end));
    if (days.length) prepared.push({ clusterName: c.clusterName, days });
  }
  return prepared;
}
