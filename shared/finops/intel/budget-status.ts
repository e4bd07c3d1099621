/** The forecast's budget status: overBudget when forecast or actual reach the budget, atRisk at 80 % of it. */
export type ForecastBudgetStatus = 'noBudget' | 'onTrack' | 'atRisk' | 'overBudget';

export const AT_RISK_SHARE = 0.8;

export function forecastBudgetStatus(
  actual: number,
  forecast: number,
  budget: number | null,
): ForecastBudgetStatus {
  if (budget === null || !(budget > 0)) return 'noBudget';
  if (actual >= budget || forecast >= budget) return 'overBudget';
  if (forecast >= AT_RISK_SHARE * budget) return 'atRisk';
  return 'onTrack';
}
