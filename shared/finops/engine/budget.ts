/**
 * The original's budget rule: utilization = month-to-date cost / monthly budget; 'over budget' at 100 %
 * or more, 'near budget' at 80 % or more, otherwise the remaining headroom. No budget (null or not
 * positive) → no budget status, and the AI prompt stays as it would be without one.
 */

export type BudgetState = 'over' | 'near' | 'headroom';

export interface BudgetStatus {
  monthlyBudget: number;
  monthToDateCost: number;
  /** MTD / budget, e.g. 0.8 for 80 %. */
  utilization: number;
  /** Utilization in percent, rounded to 2 decimals. */
  utilizationPercent: number;
  state: BudgetState;
  /** Budget − MTD (negative when over). */
  headroom: number;
  /** One line for the prompt and the rule-based recommendations. */
  text: string;
}

export const NEAR_BUDGET = 0.8;
export const OVER_BUDGET = 1;

const money = (n: number) => n.toFixed(2);

export function budgetStatus(
  monthToDateCost: number,
  monthlyBudget: number | null | undefined,
): BudgetStatus | null {
  if (monthlyBudget === null || monthlyBudget === undefined || !(monthlyBudget > 0)) return null;
  const utilization = monthToDateCost / monthlyBudget;
  // Compare on a value rounded to 1e-9 so that e.g. 80 / 100 is exactly "near" despite binary floats.
  const u = Math.round(utilization * 1e9) / 1e9;
  const state: BudgetState = u >= OVER_BUDGET ? 'over' : u >= NEAR_BUDGET ? 'near' : 'headroom';
  const utilizationPercent = Math.round(utilization * 10000) / 100;
  const headroom = monthlyBudget - monthToDateCost;
  const text =
    state === 'over'
      ? `Over budget: ${money(monthToDateCost)} spent of a ${money(monthlyBudget)} monthly budget (${utilizationPercent}%), ${money(-headroom)} over.`
      : state === 'near'
        ? `Near budget: ${money(monthToDateCost)} spent of a ${money(monthlyBudget)} monthly budget (${utilizationPercent}%), ${money(headroom)} left.`
        : `Within budget: ${money(monthToDateCost)} spent of a ${money(monthlyBudget)} monthly budget (${utilizationPercent}%), ${money(headroom)} of headroom left.`;
  return { monthlyBudget, monthToDateCost, utilization, utilizationPercent, state, headroom, text };
}
