import { authRoutes } from '../auth/routes.js';
import { finopsRoutes } from '../finops/routes.js';
import type { RouteDefinition } from '../http/route.js';
import { metricsRoutes } from '../metrics/routes.js';
import { documentationRoutes } from './docs-routes.js';
import { versionRoutes } from './version-routes.js';

/** The one route table: registered with app.http in Azure and served by the local host. */
export const routes: RouteDefinition[] = [
  ...versionRoutes,
  ...authRoutes,
  ...finopsRoutes,
  ...metricsRoutes,
  ...documentationRoutes(() => routes),
];
