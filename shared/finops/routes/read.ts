import type { RouteDefinition } from '../../http/route.js';
import { analysisRunsRoutes } from './read/analysis-runs.js';
import { costDetailsRoutes } from './read/cost-details.js';
import { dashboardRoutes } from './read/dashboard.js';
import { historicalCostsRoutes } from './read/historical-costs.js';
import { recommendationsRoutes } from './read/recommendations.js';
import { resourcesRoutes } from './read/resources.js';
import { subscriptionSummaryRoutes } from './read/subscription-summaries.js';
import { subscriptionsRoutes } from './read/subscriptions.js';

/**
 * Stored-data routes: Subscriptions, Subscription, AnalysisRuns, Resources,
 * CostDetails, HistoricalCosts, Recommendations, Dashboard. Every one needs a user token;
 * deleting a run or a Subscriptions row needs an administrator (W16).
 */
export const readRoutes: RouteDefinition[] = [
  ...subscriptionsRoutes,
  ...subscriptionSummaryRoutes,
  ...analysisRunsRoutes,
  ...resourcesRoutes,
  ...costDetailsRoutes,
  ...historicalCostsRoutes,
  ...recommendationsRoutes,
  ...dashboardRoutes,
];
