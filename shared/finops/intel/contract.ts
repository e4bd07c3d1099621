/** Wire shapes of the cost intelligence routes (anomalies, forecast). */
import { z } from 'zod';

export const AnomalyScope = z.object({
  kind: z
    .enum(['subscription', 'resourceGroup', 'service', 'namespace'])
    .describe('namespace: a Kubernetes namespace, named <cluster>/<namespace>'),
  name: z.string(),
});

export const Anomaly = z.object({
  id: z.number().int(),
  subscriptionId: z.string(),
  scope: AnomalyScope,
  kind: z.enum(['spike', 'drop', 'newCost', 'removedCost', 'steadyGrowth']),
  date: z.string().describe('yyyy-MM-dd (UTC day of the cost)'),
  expectedCost: z.number(),
  actualCost: z.number(),
  impact: z.number().describe('actualCost − expectedCost, per day, in currency'),
  currency: z.string(),
  severity: z.enum(['low', 'medium', 'high']),
  firstDetectedAt: z.string(),
  status: z.enum(['open', 'acknowledged']),
  acknowledgedAt: z.string().nullable(),
  acknowledgedBy: z.string().nullable(),
  note: z.string().nullable(),
  analysisRunId: z.number().int().nullable(),
});

export const AcknowledgeBody = z.object({ note: z.string().max(2000).optional() });

export const BudgetStatusName = z.enum(['noBudget', 'onTrack', 'atRisk', 'overBudget']);

export const Forecast = z.object({
  subscriptionId: z.string(),
  currency: z.string(),
  monthStart: z.string(),
  monthEnd: z.string(),
  actualToDate: z.number(),
  forecastMonthEnd: z.number(),
  low: z.number(),
  high: z.number(),
  budget: z.number().nullable(),
  budgetStatus: BudgetStatusName,
  method: z.enum(['seasonal-baseline', 'run-rate']),
  asOf: z.string().describe('added: the last day of stored cost the forecast uses (yyyy-MM-dd)'),
  analysisRunId: z.number().int().describe('added: the run whose history was used'),
});
export type ForecastDto = z.infer<typeof Forecast>;
