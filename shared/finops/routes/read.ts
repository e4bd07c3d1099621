import type { RouteDefinition } from '../../http/route.js';
import { analysisRunsRoutes } from './read/analysis-runs.js';
import { subscriptionSummaryRoutes } from './read/subscription-summaries.js';
import { subscriptionsRoutes } from './read/subscriptions.js';

/** Stored-data routes: AnalysisRuns, Subscription(s), Resources, CostDetails, HistoricalCosts, Recommendations, Dashboard. */
export const readRoutes: RouteDefinition[] = [
  ...subscriptionsRoutes,
  ...subscriptionSummaryRoutes,
  ...analysisRunsRoutes,
];
