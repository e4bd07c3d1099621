/**
 * The findings of a run, one row per resource and finding, with the status in force now (a flag's
 * stored status, overridden by a dismissal, snooze or exclusion), and their totals per rule and per
 * resource group. Only `active` findings count in the totals.
 */
import { LRUCache } from 'lru-cache';
import { perHost } from '../../app/per-host.js';
import type { PrismaClient } from '../../db/generated/client.js';
import type { FlagStatus, ResourceFlag } from '../engine/flags.js';
import { type Decisions, decisionFor, loadDecisions, type Suppression } from './decisions.js';

export interface WasteItem {
  resourceId: string;
  resourceName: string;
  resourceType: string;
  resourceGroup: string;
  code: string;
  message: string;
  category: string;
  monthToDateCost: number | null;
  estimatedMonthlySaving: number;
  firstSeenAt: string | null;
  ageDays: number | null;
  status: FlagStatus;
  suppression: Suppression | null;
}

export interface RunRef {
  id: number;
  subscriptionId: string;
  runDate: Date;
  currency: string;
}

function parseTags(json: string | null): Record<string, string> {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** A flagged resource of a run as the findings are made from it (what the run stored). */
interface FlaggedResource {
  resourceId: string;
  resourceName: string;
  resourceType: string;
  resourceGroup: string;
  tags: Record<string, string>;
  flags: ResourceFlag[];
}

async function readFlagged(prisma: PrismaClient, runId: number): Promise<FlaggedResource[]> {
  const rows = await prisma.resourceAnalysis.findMany({
    where: { analysisRunId: runId, NOT: { flags: '' } },
    select: {
      resourceId: true,
      resourceName: true,
      resourceType: true,
      resourceGroup: true,
      tagsJson: true,
      flagDetails: true,
    },
    orderBy: { id: 'asc' },
  });
  const out: FlaggedResource[] = [];
  for (const r of rows) {
    if (!Array.isArray(r.flagDetails)) continue;
    out.push({
      resourceId: r.resourceId,
      resourceName: r.resourceName,
      resourceType: r.resourceType,
      resourceGroup: r.resourceGroup,
      tags: parseTags(r.tagsJson),
      flags: r.flagDetails as unknown as ResourceFlag[],
    });
  }
  return out;
}

function itemsOf(flagged: readonly FlaggedResource[], d: Decisions): WasteItem[] {
  const items: WasteItem[] = [];
  for (const r of flagged) {
    for (const f of r.flags) {
      const suppression = decisionFor(r, f.code, d) ?? null;
      items.push({
        resourceId: r.resourceId,
        resourceName: r.resourceName,
        resourceType: r.resourceType,
        resourceGroup: r.resourceGroup,
        code: f.code,
        message: f.message,
        category: f.category ?? 'waste',
        monthToDateCost: f.monthToDateCost,
        estimatedMonthlySaving: f.estimatedMonthlySaving ?? 0,
        firstSeenAt: f.firstSeenAt ?? null,
        ageDays: f.ageDays ?? null,
        status: suppression ? suppression.kind : (f.status ?? 'active'),
        suppression,
      });
    }
  }
  return items;
}

/** Every finding of a run, with the decisions in force at `now` applied. */
export async function runItems(prisma: PrismaClient, run: RunRef, now: Date, decisions?: Decisions) {
  const d = decisions ?? (await loadDecisions(prisma, run.subscriptionId, now));
  return itemsOf(await readFlagged(prisma, run.id), d);
}

export interface Totals {
  findings: number;
  resources: number;
  /** Month-to-date cost of the resources with a waste finding, each counted once. */
  monthToDateCost: number;
  /** Per resource the largest saving of its findings (acting on one, such as deleting, covers the others). */
  estimatedMonthlySaving: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function totalsOf(items: readonly WasteItem[]): Totals {
  const perResource = new Map<string, { cost: number; saving: number }>();
  for (const i of items) {
    const e = perResource.get(i.resourceId.toLowerCase()) ?? { cost: 0, saving: 0 };
    // A security or retirement finding does not put the resource's cost at stake.
    if (i.category === 'waste') e.cost = i.monthToDateCost ?? 0;
    e.saving = Math.max(e.saving, i.estimatedMonthlySaving);
    perResource.set(i.resourceId.toLowerCase(), e);
  }
  let cost = 0;
  let saving = 0;
  for (const e of perResource.values()) {
    cost += e.cost;
    saving += e.saving;
  }
  return {
    findings: items.length,
    resources: perResource.size,
    monthToDateCost: round2(cost),
    estimatedMonthlySaving: round2(saving),
  };
}

function grouped(items: readonly WasteItem[], key: (i: WasteItem) => string) {
  const groups = new Map<string, WasteItem[]>();
  for (const i of items) groups.set(key(i), [...(groups.get(key(i)) ?? []), i]);
  return [...groups.entries()]
    .map(([k, list]) => ({ key: k, ...totalsOf(list) }))
    .sort(
      (a, b) =>
        b.estimatedMonthlySaving - a.estimatedMonthlySaving ||
        b.findings - a.findings ||
        (a.key < b.key ? -1 : 1),
    );
}

/** Totals of the active findings, per rule and per resource group, plus what is left out and why. */
export function summarize(run: RunRef, items: readonly WasteItem[]) {
  const active = items.filter((i) => i.status === 'active');
  const count = (s: FlagStatus) => totalsOf(items.filter((i) => i.status === s));
  return {
    analysisRunId: run.id,
    subscriptionId: run.subscriptionId,
    currency: run.currency,
    totals: totalsOf(active),
    byRule: grouped(active, (i) => i.code).map(({ key, ...t }) => ({
      code: key,
      category: active.find((i) => i.code === key)?.category ?? 'waste',
      ...t,
    })),
    byResourceGroup: grouped(active, (i) => i.resourceGroup).map(({ key, ...t }) => ({
      resourceGroup: key,
      ...t,
    })),
    leftOut: {
      watch: count('watch'),
      dismissed: count('dismissed'),
      snoozed: count('snoozed'),
      excluded: count('excluded'),
    },
  };
}

/**
 * Per host: the flagged resources of runs written with their totals (the engine writes a run's
 * resources once, in one transaction, and never changes them), and summaries by run and the
 * decisions they were made with. A decision row only ever leaves force (revoked, or a snooze
 * that expires) and new ones take new ids, so the ids in force name the decisions exactly, and a
 * set of ids that has changed never comes back. Every answer reads those ids from the database
 * first, so a dismissal made through any host shows in the next answer of every host.
 */
const FLAGGED_RUNS = 8;
const SUMMARIES = 64;
type Summary = ReturnType<typeof summarize>;
const flaggedCacheOf = perHost(() => new LRUCache<number, FlaggedResource[]>({ max: FLAGGED_RUNS }));
const summaryCacheOf = perHost(() => new LRUCache<string, Summary>({ max: SUMMARIES }));

/** A timestamp(3) literal of a Date's UTC fields: the columns hold UTC wall-clock values. */
const wallClock = (d: Date) => d.toISOString().slice(0, 23);

/** The run, whether its totals were written with it, and the ids of the decisions in force at `now`. */
async function runAndDecisionIds(prisma: PrismaClient, runId: number, now: Date) {
  const [row] = await prisma.$queryRaw<
    Array<RunRef & { kept: boolean; suppressions: string | null; exclusions: string | null }>
  >`SELECT r.id, r."subscriptionId", r."runDate", r.currency, r."totalsWrittenAt" IS NOT NULL AS kept,
      (SELECT string_agg(s.id::text, ',' ORDER BY s.id) FROM "WasteSuppressions" s
       WHERE s."subscriptionId" = r."subscriptionId" AND s."revokedAt" IS NULL
         AND (s."expiresAt" IS NULL OR s."expiresAt" > ${wallClock(now)}::timestamp(3))) AS suppressions,
      (SELECT string_agg(e.id::text, ',' ORDER BY e.id) FROM "WasteExclusions" e
       WHERE e."subscriptionId" = r."subscriptionId" AND e."revokedAt" IS NULL) AS exclusions
    FROM "AnalysisRuns" r WHERE r.id = ${runId}`;
  return row;
}

const idList = (text: string | null) => (text ? text.split(',').map(Number) : []);

/**
 * The summary of a run by id (undefined when it does not exist), with the decisions in force now.
 * For a run written with its totals, kept per host by run and decision ids (see above): reading
 * every flagged resource of the run and applying the decisions to each cost more than anything
 * else the dashboard's opportunities answer did.
 */
export async function runSummary(prisma: PrismaClient, runId: number) {
  const row = await runAndDecisionIds(prisma, runId, new Date());
  if (!row) return undefined;
  const run: RunRef = {
    id: row.id,
    subscriptionId: row.subscriptionId,
    runDate: row.runDate,
    currency: row.currency,
  };
  const key = `${row.id}|${row.suppressions ?? ''}|${row.exclusions ?? ''}`;
  const summaries = summaryCacheOf(prisma);
  const hit = row.kept ? summaries.get(key) : undefined;
  if (hit) return hit;
  // The decisions of exactly those ids: the summary is then the one its key names.
  const [suppressions, exclusions] = await Promise.all([
    prisma.wasteSuppression.findMany({
      where: { id: { in: idList(row.suppressions) } },
      orderBy: { id: 'asc' },
    }),
    prisma.wasteExclusion.findMany({ where: { id: { in: idList(row.exclusions) } }, orderBy: { id: 'asc' } }),
  ]);
  let flagged = row.kept ? flaggedCacheOf(prisma).get(row.id) : undefined;
  if (!flagged) {
    flagged = await readFlagged(prisma, row.id);
    if (row.kept) flaggedCacheOf(prisma).set(row.id, flagged);
  }
  const summary = summarize(run, itemsOf(flagged, { suppressions, exclusions }));
  if (row.kept) summaries.set(key, summary);
  return summary;
}
