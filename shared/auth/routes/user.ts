import type { RouteDefinition } from '../../http/route.js';
import { userAccountRoutes } from './user-account.js';
import { userDevicesRoutes } from './user-devices.js';
import { userLookupRoutes } from './user-lookup.js';
import { userPasswordRoutes } from './user-password.js';
import { userSessionsRoutes } from './user-sessions.js';

export { password } from './user-common.js';

/** Every /auth/api/User/... route, by concern; the lookups last (User/{email} after the literals). */
export const userRoutes: RouteDefinition[] = [
  ...userAccountRoutes,
  ...userPasswordRoutes,
  ...userDevicesRoutes,
  ...userSessionsRoutes,
  ...userLookupRoutes,
];
