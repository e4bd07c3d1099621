import type { RouteDefinition } from '../http/route.js';
import { metricsAlertRoutes } from './routes/alerts.js';
import { ingestRoutes } from './routes/ingest.js';
import { keyRoutes } from './routes/keys.js';
import { metricsPriceRoutes } from './routes/prices.js';
import { readRoutes } from './routes/read.js';

/** Every /metrics/api route but Version (shared/app/version-routes.ts). */
export const metricsRoutes: RouteDefinition[] = [
  ...ingestRoutes,
  ...keyRoutes,
  ...readRoutes,
  ...metricsAlertRoutes,
  ...metricsPriceRoutes,
];
