import type { RouteDefinition } from '../http/route.js';
import { ingestRoutes } from './routes/ingest.js';
import { keyRoutes } from './routes/keys.js';
import { readRoutes } from './routes/read.js';

/** Every /metrics/api route but Version (shared/app/version-routes.ts). */
export const metricsRoutes: RouteDefinition[] = [...ingestRoutes, ...keyRoutes, ...readRoutes];
