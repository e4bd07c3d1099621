import type { RouteDefinition } from '../http/route.js';

/** Every /finops/api route (issues #4 and #5 fill this table). */
export const finopsRoutes: RouteDefinition[] = [];
