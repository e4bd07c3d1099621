import type { RouteDefinition } from '../http/route.js';
import { userClustersRoutes, userSubscriptionsRoutes } from './routes/access-lists.js';
import { userActionRoutes, usersMonitorGroupRoutes } from './routes/assignments.js';
import { auditRoutes } from './routes/audit.js';
import { authApiRoutes } from './routes/auth.js';
import { resetPageRoutes } from './routes/reset-page.js';
import { userRoutes } from './routes/user.js';

/** Every /auth/api route (the Version route is shared: shared/app/version-routes.ts). */
export const authRoutes: RouteDefinition[] = [
  ...authApiRoutes,
  ...userRoutes,
  ...userActionRoutes,
  ...userClustersRoutes,
  ...userSubscriptionsRoutes,
  ...usersMonitorGroupRoutes,
  ...resetPageRoutes,
  ...auditRoutes,
];
