import type { RouteDefinition } from '../http/route.js';
import { analysisRoutes } from './routes/analysis.js';
import { importHistoryRoutes } from './routes/import-history.js';
import { importRoutes } from './routes/imports.js';
import { intelRoutes } from './routes/intel.js';
import { kubernetesRoutes } from './routes/kubernetes.js';
import { notificationRoutes } from './routes/notifications.js';
import { readRoutes } from './routes/read.js';
import { wasteRoutes } from './routes/waste.js';

/**
 * Every /finops/api route: the analysis side, the read/admin API, waste rules
 * and cost intelligence (anomalies, forecast, imports, notification channels).
 */
export const finopsRoutes: RouteDefinition[] = [
  ...analysisRoutes,
  ...readRoutes,
  ...wasteRoutes,
  ...intelRoutes,
  ...importRoutes,
  ...importHistoryRoutes,
  ...notificationRoutes,
  ...kubernetesRoutes,
];
