import type { RouteDefinition } from '../http/route.js';
import { analysisRoutes } from './routes/analysis.js';
import { importRoutes } from './routes/imports.js';
import { intelRoutes } from './routes/intel.js';
import { notificationRoutes } from './routes/notifications.js';
import { readRoutes } from './routes/read.js';

/** Every /finops/api route: the analysis side (issue #4) and the read/admin API (issue #5), cost intelligence (issue #13). */
export const finopsRoutes: RouteDefinition[] = [
  ...analysisRoutes,
  ...readRoutes,
  ...intelRoutes,
  ...importRoutes,
];
