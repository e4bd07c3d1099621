import type { RouteDefinition } from '../http/route.js';
import { analysisRoutes } from './routes/analysis.js';
import { readRoutes } from './routes/read.js';
import { wasteRoutes } from './routes/waste.js';

/** Every /finops/api route: the analysis side (issue #4) and the read/admin API (issue #5). */
export const finopsRoutes: RouteDefinition[] = [...analysisRoutes, ...readRoutes, ...wasteRoutes];
