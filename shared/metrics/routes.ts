import type { RouteDefinition } from '../http/route.js';
import { metricsAlertRoutes } from './routes/alerts.js';
import { metricsPriceRoutes } from './routes/prices.js';

/** Every /metrics/api route but Version (shared/app/version-routes.ts). */
export const metricsRoutes: RouteDefinition[] = [...metricsAlertRoutes, ...metricsPriceRoutes];
