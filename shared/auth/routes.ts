import type { RouteDefinition } from '../http/route.js';

/** Every /auth/api route (issue #3 fills this table). */
export const authRoutes: RouteDefinition[] = [];
