import type { RouteDefinition } from '../http/route.js';

/** Every /metrics/api route but Version (shared/app/version-routes.ts). */
export const metricsRoutes: RouteDefinition[] = [];
