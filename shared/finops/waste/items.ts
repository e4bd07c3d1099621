/**
 * The findings of a run, one row per resource and finding, with the status in force now (a flag's
 * stored status, overridden by a dismissal, snooze or exclusion), and their totals per rule and per
 * resource group. Only `active` findings count in the totals.
 */
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

/** Every finding of a run, with the decisions in force at `now` applied. */
export async function runItems(prisma: PrismaClient, run: RunRef, now: Date, decisions?: Decisions) {
  const d = decisions ?? (await loadDecisions(prisma, run.subscriptionId, now));
  const rows = await prisma.resourceAnalysis.findMany({
    where: { analysisRunId: run.id, NOT: { flags: '' } },
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
  const items: WasteItem[] = [];
  for (const r of rows) {
    if (!Array.isArray(r.flagDetails)) continue;
    const ref = { resourceId: r.resourceId, resourceGroup: r.resourceGroup, tags: parseTags(r.tagsJson) };
    for (const f of r.flagDetails as unknown as ResourceFlag[]) {
      const suppression = decisionFor(ref, f.code, d) ?? null;
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

/** The summary of a run by id (null when it does not exist), with the decisions in force now. */
export async function runSummary(prisma: PrismaClient, runId: number) {
  const run = await prisma.analysisRun.findUnique({
    where: { id: runId },
    select: { id: true, subscriptionId: true, runDate: true, currency: true },
  });
  if (!run) return undefined;
  return summarize(run, await runItems(prisma, run, new Date()));
}
