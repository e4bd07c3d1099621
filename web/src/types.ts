/** The API's answers as the console reads them (the fields it uses). */

export interface SubscriptionRef {
  subscriptionId: string;
  subscriptionName: string;
}

export interface RunSummary {
  id: number;
  subscriptionId: string;
  subscriptionName: string;
  budget: number | null;
  runDate: string;
  totalMonthlyCost: number;
  totalResourcesAnalyzed: number;
  currency: string;
}

export type BudgetStatus = 'noBudget' | 'onTrack' | 'atRisk' | 'overBudget';

export interface Forecast {
  subscriptionId: string;
  currency: string;
  monthStart: string;
  monthEnd: string;
  actualToDate: number;
  forecastMonthEnd: number;
  low: number;
  high: number;
  budget: number | null;
  budgetStatus: BudgetStatus;
  method: 'seasonal-baseline' | 'run-rate';
  asOf: string;
  analysisRunId: number;
}

export interface Anomaly {
  id: number;
  subscriptionId: string;
  scope: { kind: 'subscription' | 'resourceGroup' | 'service'; name: string };
  kind: 'spike' | 'drop' | 'newCost' | 'removedCost' | 'steadyGrowth';
  date: string;
  expectedCost: number;
  actualCost: number;
  impact: number;
  currency: string;
  severity: 'low' | 'medium' | 'high';
  firstDetectedAt: string;
  status: 'open' | 'acknowledged';
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  note: string | null;
  analysisRunId: number | null;
}

export interface Job {
  jobId: string;
  subscriptionId: string;
  status: 'pending' | 'running' | 'completed' | 'failed' | string;
  phase?: string | null;
  progress?: number;
  success?: boolean | null;
  message?: string | null;
  errorDetails?: string | null;
  analysisRunId?: number | null;
}

export interface WasteTotals {
  findings: number;
  resources: number;
  monthToDateCost: number;
  estimatedMonthlySaving: number;
}

export interface WasteSummary {
  analysisRunId: number;
  subscriptionId: string;
  currency: string;
  totals: WasteTotals;
  byRule: Array<{ code: string; category: string } & WasteTotals>;
  byResourceGroup: Array<{ resourceGroup: string } & WasteTotals>;
}

export interface Suppression {
  id: number;
  kind: 'dismissed' | 'snoozed';
  reason: string;
  expiresAt: string | null;
  createdBy: string | null;
  createdAt: string;
}

export interface WasteFinding {
  resourceId: string;
  resourceName: string;
  resourceType: string;
  resourceGroup: string;
  code: string;
  message: string;
  category: string;
  monthToDateCost: number | null;
  estimatedMonthlySaving: number;
  firstSeenAt: string;
  ageDays: number;
  status: 'active' | 'watch' | 'dismissed' | 'snoozed' | 'excluded';
  suppression: Suppression | null;
}

export interface WasteChanges {
  subscriptionId: string;
  analysisRunId: number;
  runDate: string;
  previousAnalysisRunId: number | null;
  previousRunDate: string | null;
  new: WasteFinding[];
  resolved: WasteFinding[];
}

export interface DayCost {
  date: string;
  cost: number;
  currency: string;
}
