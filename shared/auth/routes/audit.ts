import { z } from 'zod';
import { pruneInBackground } from '../../audit/housekeeping.js';
import { listAudit } from '../../audit/trail.js';
import { dateText, guid } from '../../http/fields.js';
import { pagedHeaders, pageOf, pagingQuery } from '../../http/paging.js';
import { ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { responses } from './common.js';

const DEFAULT_PAGE_SIZE = 100;

const auditQuery = pagingQuery.extend({
  userId: guid().optional().describe('Records where this user acted or was acted upon'),
  action: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    )
    .describe('An action, or several separated by commas (e.g. signIn.failed)'),
  from: dateText().optional().describe('ISO 8601 date-time: records at or after it'),
  to: dateText().optional().describe('ISO 8601 date-time: records before it'),
  pageSize: pagingQuery.shape.pageSize.describe(`rows per page (default ${DEFAULT_PAGE_SIZE})`),
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
      responses: responses(
        { 200: { description: 'Audit records', schema: z.array(recordSchema) } },
        400,
        401,
        403,
      ),
    },
    input: { query: auditQuery },
    async handler({ services, input: { query } }) {
      const p = pageOf(query, DEFAULT_PAGE_SIZE);
      const filter = {
        ...(query.userId ? { userId: query.userId } : {}),
        ...(query.action.length ? { actions: query.action } : {}),
        from: query.from,
        to: query.to,
      };
      const { rows, total } = await listAudit(services.prisma, filter, p.skip, p.pageSize);
      pruneInBackground(services);
      return ok(rows, pagedHeaders(total, p));
    },
  }),
];
