import { z } from 'zod';
import { pruneInBackground } from '../../audit/housekeeping.js';
import { listAudit } from '../../audit/trail.js';
import { GUID } from '../../config/fields.js';
import { listHeaders, paging } from '../../finops/routes/read/common.js';
import { parseDateValue } from '../../http/fields.js';
import { badRequest } from '../../http/problem.js';
import { ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { responses } from './common.js';

const DEFAULT_PAGE_SIZE = 100;

const auditQuery = z.object({
  userId: z.string().optional().describe('Records where this user acted or was acted upon'),
  action: z.string().optional().describe('An action, or several separated by commas (e.g. signIn.failed)'),
  from: z.string().optional().describe('ISO 8601 date-time: records at or after it'),
  to: z.string().optional().describe('ISO 8601 date-time: records before it'),
  page: z.string().optional().describe('1-based page number (default 1)'),
  pageSize: z.string().optional().describe(`rows per page (default ${DEFAULT_PAGE_SIZE})`),
});

const recordSchema = z.object({
  id: z.number().int(),
  at: z.string(),
  actorId: z.string().nullable(),
  actorEmail: z.string().nullable(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  details: z.unknown(),
  clientAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
});

function dateParam(query: URLSearchParams, name: string): Date | undefined {
  const raw = query.get(name)?.trim();
  if (!raw) return undefined;
  // The one date rule of every query value (fields.ts), not Date.parse, which reads "March 7"
  // and takes a value without a zone as this machine's local time.
  const d = parseDateValue(raw);
  if (!d) {
    throw badRequest(`${name} must be an ISO 8601 date and time`, {
      [name]: ['must be an ISO 8601 date and time'],
    });
  }
  return d;
}

export const auditRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'auth-audit-list',
    service: 'auth',
    method: 'GET',
    path: 'Audit',
    auth: 'admin',
    openapi: {
      summary: 'The audit trail, newest first (administrators only)',
      description:
        'Paged: X-Total-Count, X-Page and X-Page-Size headers. Filters: userId, action (comma-separated), from, to.',
      tags: ['Audit'],
      query: auditQuery,
      responses: responses(
        { 200: { description: 'Audit records', schema: z.array(recordSchema) } },
        400,
        401,
        403,
      ),
    },
    async handler({ services, query }) {
      const p = paging(query, DEFAULT_PAGE_SIZE);
      const userId = query.get('userId')?.trim();
      if (userId && !GUID.test(userId))
        throw badRequest('userId must be a GUID', { userId: ['must be a GUID'] });
      const actions = (query.get('action') ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean);
      const filter = {
        ...(userId ? { userId: userId.toLowerCase() } : {}),
        ...(actions.length ? { actions } : {}),
        from: dateParam(query, 'from'),
        to: dateParam(query, 'to'),
      };
      const { rows, total } = await listAudit(services.prisma, filter, p.skip, p.pageSize);
      pruneInBackground(services);
      return ok(rows, listHeaders(total, p));
    },
  }),
];
