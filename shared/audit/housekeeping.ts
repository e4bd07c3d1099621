import type { AppServices } from '../app/services.js';
import { pruneResetRequests } from '../auth/password-reset.js';
import { pruneAudit, pruneDue } from './trail.js';

/**
 * Prunes the audit trail to Audit__RetentionDays (and reset requests that no longer count) after
 * the answer, at most once an hour per process. Called from busy routes (sign-in, the audit list).
 */
export function pruneInBackground(services: Pick<AppServices, 'prisma' | 'config' | 'auth' | 'log'>): void {
  if (!pruneDue(services.prisma)) return;
  services.auth.background('audit prune', async () => {
    const removed = await pruneAudit(services.prisma, services.config.auth.Audit__RetentionDays);
    await pruneResetRequests(services.prisma);
    if (removed) services.log.info({ removed }, 'audit records past retention deleted');
  });
}
