import type { HttpRequest } from '@azure/functions';
import type { AppServices } from '../app/services.js';
import { type AuditActor, withAudit } from '../audit/record.js';

export { USER_CACHE_SECONDS } from './users.js';

/**
 * Ends every session of a user: tokens issued before this moment are refused from now on (on
 * other instances within USER_CACHE_SECONDS). Own tokens carry `iat_ms`, so the cut is exact: a
 * sign-in a moment later works.
 */
export async function revokeSessions(
  services: AppServices,
  userId: string,
  audit: { actor: AuditActor; request: HttpRequest; scope: 'admin' | 'self' },
): Promise<void> {
  const cut = new Date();
  const user = await withAudit(
    services.prisma,
    (tx) => tx.user.update({ where: { id: userId }, data: { credentialsChangedAt: cut } }),
    () => ({
      actor: audit.actor,
      action: 'user.sessionsRevoked',
      target: { type: 'user', id: userId },
      details: { scope: audit.scope, tokensIssuedBefore: cut.toISOString() },
      request: audit.request,
    }),
  );
  services.auth.users.forget(userId, user.email);
}
