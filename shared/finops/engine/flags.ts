/**
 * Waste and risk flags computed from a resource snapshot (docs/waste-rules.md documents each rule).
 * Pure: a resource (as Resource Graph returns it), its cost of the period and the context in, flags
 * out. The rules themselves are in waste-rules.ts.
 */
import type { AzureResource } from '../azure/index.js';
import type { Inventory } from './inventory.js';
import { get } from './resource-fields.js';
import { type FlagCategory, type FlagCode, RULES, type Rule, type SavingModel } from './waste-rules.js';

export type { FlagCategory, FlagCode } from './waste-rules.js';
export { RULES, SNAPSHOT_MAX_AGE_DAYS } from './waste-rules.js';

/** active: counts as waste; watch: too young for an age-gated rule; dismissed/snoozed/excluded: a person decided. */
export type FlagStatus = 'active' | 'watch' | 'dismissed' | 'snoozed' | 'excluded';

export interface ResourceFlag {
  code: FlagCode;
  message: string;
  /** The resource's month-to-date cost, when it has one: what acting on the flag could save. */
  monthToDateCost: number | null;
  category?: FlagCategory;
  /** Estimated saving per month of acting on the flag, in the run's currency (0: none expected). */
  estimatedMonthlySaving?: number;
  /** When finwatch first saw this flag on this resource (ISO 8601, UTC), carried across runs. */
  firstSeenAt?: string;
  /** Whole days since firstSeenAt at the time of the run. */
  ageDays?: number;
  status?: FlagStatus;
  /** Who dismissed or snoozed the flag, why, when, and until when (snoozes). */
  suppression?: {
    kind: 'dismissed' | 'snoozed' | 'excluded';
    by: string;
    reason: string;
    at: string;
    until: string | null;
  };
}

export interface FlagContext {
  now: Date;
  inventory?: Inventory | undefined;
  /** Period cost × this = monthly run-rate (days in the month / days elapsed; 1 for a full month). */
  runRateFactor?: number;
  /** The period cost of another resource (lower-case id), for savings that follow a linked VM. */
  costOf?: (resourceId: string) => number | undefined;
}

const RULES_BY_TYPE = new Map<string, Rule[]>();
for (const rule of RULES) RULES_BY_TYPE.set(rule.type, [...(RULES_BY_TYPE.get(rule.type) ?? []), rule]);

const round2 = (n: number) => Math.round(n * 100) / 100;

export function estimateSaving(
  model: SavingModel,
  resource: AzureResource,
  cost: number | undefined,
  ctx: FlagContext,
): number {
  if (model.kind === 'none') return 0;
  const factor = ctx.runRateFactor ?? 1;
  if (model.kind === 'runRate') return round2(Math.max(0, cost ?? 0) * factor);
  let base = cost;
  if (model.of === 'linkedVm') {
    const vm = get(resource.properties, 'virtualMachineResourceId');
    base = typeof vm === 'string' ? ctx.costOf?.(vm.toLowerCase()) : undefined;
  }
  return round2(Math.max(0, base ?? 0) * factor * model.fraction);
}

/** The flags of one resource. `monthToDateCost` is attached when the resource has a cost. */
export function computeFlags(
  resource: AzureResource,
  monthToDateCost: number | undefined,
  context: Date | FlagContext,
): ResourceFlag[] {
  const rules = RULES_BY_TYPE.get(resource.type.toLowerCase());
  if (!rules) return [];
  const ctx: FlagContext = context instanceof Date ? { now: context } : context;
  const cost =
    monthToDateCost !== undefined && monthToDateCost > 0 ? Math.round(monthToDateCost * 10000) / 10000 : null;
  const out: ResourceFlag[] = [];
  for (const rule of rules) {
    if (rule.applies(resource, ctx))
      out.push({
        code: rule.code,
        message: rule.message(resource, ctx),
        monthToDateCost: cost,
        category: rule.category,
        estimatedMonthlySaving: estimateSaving(rule.saving, resource, monthToDateCost, ctx),
      });
  }
  return out;
}

/** What separates the findings in the flags text; no message contains it. */
export const FLAGS_SEPARATOR = '; ';

/**
 * The original's wire form: "<Code>: <message>" joined with "; " ("" when there is none). A rule's
 * message never contains "; " (a test reads every rule's flags back); text from elsewhere (an Azure
 * Advisor recommendation) has it replaced by ", ", so the text always splits back into its findings.
 */
export function flagsText(flags: readonly ResourceFlag[]): string {
  return flags.map((f) => `${f.code}: ${f.message.replaceAll(FLAGS_SEPARATOR, ', ')}`).join(FLAGS_SEPARATOR);
}
