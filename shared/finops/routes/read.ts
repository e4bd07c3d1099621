import type { RouteDefinition } from '../../http/route.js';

/** Stored-data routes: AnalysisRuns, Subscription(s), Resources, CostDetails, HistoricalCosts, Recommendations, Dashboard. */
export const readRoutes: RouteDefinition[] = [];
