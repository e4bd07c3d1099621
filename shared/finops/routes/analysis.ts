import type { RouteDefinition } from '../../http/route.js';

/** /finops/api/Analysis/*: start, start-async, jobs, settings, cleanup. */
export const analysisRoutes: RouteDefinition[] = [];
