import type { PrismaClient } from '../../db/client.js';
import { Prisma } from '../../db/generated/client.js';

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
 * The tags of every resource of a run's resource group merged into one map, keyed by
 * `tagKey(run, GROUP)`: a key whose values differ across the group becomes "<varies>". Groups are
 * compared case-insensitively. Only the groups asked for are read when `groups` is given.
 */
export async function mergedGroupTags(
  prisma: PrismaClient,
  runIds: number[],
  groups?: Iterable<string | null>,
): Promise<Map<string, Tags>> {
  const out = new Map<string, Tags>();
  if (runIds.length === 0) return out;
  let groupFilter = Prisma.empty;
  if (groups) {
    const list = [...new Set([...groups].filter((g): g is string => !!g).map((g) => g.toUpperCase()))];
    if (list.length === 0) return out;
    groupFilter = Prisma.sql`AND upper("resourceGroup") = ANY(${list}::text[])`;
  }
  const rows = await prisma.$queryRaw<Array<{ runId: number; grp: string; tagsJson: string }>>`
    SELECT "analysisRunId" AS "runId", upper("resourceGroup") AS grp, "tagsJson"
    FROM "ResourceAnalyses"
    WHERE "analysisRunId" = ANY(${runIds}::int[]) AND "tagsJson" IS NOT NULL AND "tagsJson" NOT IN ('', '{}', 'null')
    ${groupFilter}`;
  for (const row of rows) {
    const tags = parseTags(row.tagsJson);
    if (!tags) continue;
    const key = tagKey(row.runId, row.grp);
    const merged = out.get(key);
    if (!merged) {
      out.set(key, { ...tags });
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
