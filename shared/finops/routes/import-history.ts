import { z } from 'zod';
import { subscriptionId } from '../../http/fields.js';
import { ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { IMPORT_HISTORY_LIMIT, importHistory } from '../imports/history.js';
import { assertSubscriptionAccess } from '../waste/access.js';

const ImportHistory = z.object({
  imports: z.array(
    z.object({
      importId: z.number().int(),
      analysisRunId: z.number().int(),
      subscriptionId: z.string(),
      source: z.enum(['http', 'blob']),
      format: z.enum(['focus', 'costDetails']),
      location: z.string().nullable().describe('the blob URL without its query; null for an upload'),
      rows: z.number().int(),
      skippedRows: z.number().int(),
      from: z.string(),
      to: z.string(),
      createdAt: z.string(),
      createdBy: z.string().nullable(),
    }),
  ),
  failed: z.array(
    z.object({
      jobId: z.string(),
      createdAt: z.string(),
      completedAt: z.string().nullable(),
      message: z.string().nullable(),
      errorDetails: z
        .string()
        .nullable()
        .describe('why it failed, with the line number when one row is at fault'),
    }),
  ),
});

export const importHistoryRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-cost-import-history',
    service: 'finops',
    method: 'GET',
    path: 'CostImports/history',
    auth: 'user',
    openapi: {
      summary: `The subscription's last ${IMPORT_HISTORY_LIMIT} imports and its last ${IMPORT_HISTORY_LIMIT} failed import jobs, newest first; administrators and users the subscription is assigned to`,
      tags: ['CostImports'],
      responses: { 200: { description: 'import history', schema: ImportHistory } },
    },
    input: { query: z.object({ subscriptionId: subscriptionId() }) },
    async handler({ services, caller, input: { query } }) {
      await assertSubscriptionAccess(services.prisma, caller, query.subscriptionId);
      return ok(await importHistory(services.prisma, query.subscriptionId));
    },
  }),
];
