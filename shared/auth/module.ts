import type { HttpRequest } from '@azure/functions';
import type { CoreServices } from '../app/services.js';
import { unauthorized } from '../http/problem.js';
import type { Caller } from './caller.js';

/** The auth service's part of the app: token validation and caller resolution for every route. */
export interface AuthModule {
  /** Resolves the caller of a request or throws 401 (no/invalid token) or 403 (blocked domain). */
  authenticate(request: HttpRequest): Promise<Caller>;
  close(): Promise<void>;
}

// Foundation placeholder: the auth service (issue #3) replaces this with token validation.
export async function createAuthModule(_core: CoreServices): Promise<AuthModule> {
  return {
    async authenticate() {
      throw unauthorized();
    },
    async close() {},
  };
}
