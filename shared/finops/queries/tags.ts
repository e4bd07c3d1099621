import { perHost } from '../../app/per-host.js';
import type { PrismaClient } from '../../db/client.js';

export type Tags = Record<string, string>;

/** The value a merged tag takes when the resources of a group disagree (as the original). */
export const VARIES = '<varies>';

export const tagKey = (runId: number, group: string) => `${runId}|${group.toUpperCase()}`;

function parseTags(text: string): Tags | null {
  try {
    const v: unknown = JSON.parse(text);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
    const out: Tags = {};
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
      if (val === null || val === undefined) continue;
      out[k] = typeof val === 'string' ? val : JSON.stringify(val);
    }
    return out;
  } catch {
    return null; // a malformed tagsJson contributes nothing rather than failing the read
  }
}

/**
 * Merged tags per run are cached: a run's resources are written once, with the run, in one
 * transaction (the engine's all-or-nothing persistence) and never change afterwards, so the
 * merge, which reads every resource of the run, runs once per run instead of once per request.
 * The cache hangs off the host's PrismaClient (one per host, so hosts sharing a process never
 * share it), holds at most CACHE_RUNS runs and forgets an entry after CACHE_TTL_MS anyway.
 */
const CACHE_RUNS = 64;
const CACHE_TTL_MS = 10 * 60_000;
type RunTags = Map<string, Tags>; // GROUP (upper-case) → merged tags
const cacheOf = perHost(() => new Map<number, { at: number; groups: RunTags }>());

async function computeRunTags(prisma: PrismaClient, runIds: number[]): Promise<Map<number, RunTags>> {
  // Distinct (group, tagsJson) pairs: resources of a group mostly share their tags, so this ships
  // far fewer rows than the resources themselves; the merge itself is done here.
  const [rows, existing] = await Promise.all([
    prisma.$queryRaw<Array<{ runId: number; grp: string; tagsJson: string }>>`
      SELECT "analysisRunId" AS "runId", upper("resourceGroup") AS grp, "tagsJson"
      FROM "ResourceAnalyses"
      WHERE "analysisRunId" = ANY(${runIds}::int[]) AND "tagsJson" IS NOT NULL AND "tagsJson" NOT IN ('', '{}', 'null')
      GROUP BY 1, 2, 3`,
    prisma.analysisRun.findMany({ where: { id: { in: runIds } }, select: { id: true } }),
  ]);
  const out = new Map<number, RunTags>(existing.map((r) => [r.id, new Map()]));
  for (const row of rows) {
    const tags = parseTags(row.tagsJson);
    const run = out.get(row.runId);
    if (!tags || !run) continue;
    const merged = run.get(row.grp);
    if (!merged) {
      run.set(row.grp, { ...tags });
      continue;
    }
    for (const [k, v] of Object.entries(tags)) {
      const have = merged[k];
      if (have === undefined) merged[k] = v;
      else if (have !== v) merged[k] = VARIES;
    }
  }
  return out;
}

/**
 * The tags of every resource of a run's resource group merged into one map, keyed by
 * `tagKey(run, GROUP)`: a key whose values differ across the group becomes "<varies>". Groups are
 * compared case-insensitively. Only the groups asked for are returned when `groups` is given.
 */
export async function mergedGroupTags(
  prisma: PrismaClient,
  runIds: number[],
  groups?: Iterable<string | null>,
): Promise<Map<string, Tags>> {
  const out = new Map<string, Tags>();
  if (runIds.length === 0) return out;
  const cache = cacheOf(prisma);
  const now = Date.now();
  const byRun = new Map<number, RunTags>();
  const missing: number[] = [];
  for (const id of new Set(runIds)) {
    const hit = cache.get(id);
    if (hit && now - hit.at < CACHE_TTL_MS) byRun.set(id, hit.groups);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const computed = await computeRunTags(prisma, missing);
    for (const [id, groupsOfRun] of computed) {
      byRun.set(id, groupsOfRun);
      // Only runs that exist are cached: a later run can never take a cached id's place.
      cache.delete(id);
      cache.set(id, { at: now, groups: groupsOfRun });
    }
    while (cache.size > CACHE_RUNS) cache.delete(cache.keys().next().value as number);
  }
  const wanted = groups
    ? new Set([...groups].filter((g): g is string => !!g).map((g) => g.toUpperCase()))
    : undefined;
  for (const [id, groupsOfRun] of byRun) {
    for (const [grp, tags] of groupsOfRun) {
      if (!wanted || wanted.has(grp)) out.set(tagKey(id, grp), tags);
    }
  }
  return out;
}
