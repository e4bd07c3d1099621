/**
 * The audit trail: `audit.record(tx, { actor, action, target, details, request })` inside the
 * transaction of the action it describes; `GET /auth/api/Audit` reads it.
 */
import { recordAudit } from './record.js';
import { listAudit, pruneAudit } from './trail.js';

export { AUDIT_ACTIONS, type AuditAction, type AuditActor, type AuditEntry, recordAudit } from './record.js';
export { type AuditFilter, listAudit, pruneAudit } from './trail.js';

export const audit = { record: recordAudit, list: listAudit, prune: pruneAudit };
