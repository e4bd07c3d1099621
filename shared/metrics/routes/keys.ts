import { z } from 'zod';
import { PAGED_HEADERS_NOTE, UNPAGED_NOTE } from '../../finops/routes/read/common.js';
import { idText } from '../../http/fields.js';
import { pagedHeaders, pageOf, pagingQuery } from '../../http/paging.js';
import { notFound } from '../../http/problem.js';
import { json, ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import type { IngestKeyInfo } from '../ingest-keys.js';
import { normalizeCluster } from '../records.js';

const tags = ['IngestKeys'];

const keySchema = z.object({
  id: z.number().int(),
  clusterName: z.string(),
  prefix: z.string().describe('the first characters of the key, to tell keys apart'),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});

const show = (k: IngestKeyInfo) => ({
  id: k.id,
  clusterName: k.clusterName,
  prefix: k.prefix,
  createdBy: k.createdBy,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

const createBody = z.object({
  clusterName: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(512, 'must be at most 512 characters')
    .transform(normalizeCluster)
    .describe('the cluster the key may write for (stored in lower case)'),
});

const idParams = z.object({ id: idText() });

/** Ingest keys, administrators only: made per cluster, shown once, revoked when an agent is retired. */
export const keyRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'metrics-ingest-keys-create',
    service: 'metrics',
    method: 'POST',
    path: 'IngestKeys',
    auth: 'admin',
    input: { body: createBody },
    openapi: {
      summary: "Make an ingest key for a cluster's agent (the key is in this answer only)",
      tags,
      responses: {
        201: {
          description: 'The key; store it in the agent as INGEST_KEY',
          schema: keySchema.extend({ key: z.string() }),
        },
        400: { description: 'clusterName missing' },
        401: { description: 'Not signed in' },
        403: { description: 'Not an administrator' },
      },
    },
    async handler({ services, input, caller, request }) {
      const made = await services.metrics.keys.create(input.body.clusterName, caller, request);
      return json(201, { ...show(made), key: made.key }, { 'Cache-Control': 'no-store' });
    },
  }),
  defineRoute({
    name: 'metrics-ingest-keys-list',
    service: 'metrics',
    method: 'GET',
    path: 'IngestKeys',
    auth: 'admin',
    input: { query: pagingQuery },
    openapi: {
      summary: 'The ingest keys, newest first (never the key itself)',
      description: `${UNPAGED_NOTE} ${PAGED_HEADERS_NOTE}`,
      tags,
      responses: { 200: { description: 'Keys', schema: z.array(keySchema) } },
    },
    async handler({ services, input: { query } }) {
      const p = pageOf(query);
      const { rows, total } = await services.metrics.keys.list(p.skip, p.pageSize);
      return ok(rows.map(show), pagedHeaders(total, p));
    },
  }),
  defineRoute({
    name: 'metrics-ingest-keys-revoke',
    service: 'metrics',
    method: 'DELETE',
    path: 'IngestKeys/{id}',
    auth: 'admin',
    input: { params: idParams },
    openapi: {
      summary: 'Revoke an ingest key: its agent is refused (401) from then on',
      tags,
      responses: {
        200: { description: 'The revoked key', schema: keySchema },
        404: { description: 'No such key' },
      },
    },
    async handler({ services, input, caller, request }) {
      const revoked = await services.metrics.keys.revoke(input.params.id, caller, request);
      if (!revoked) throw notFound(`Ingest key ${input.params.id} not found.`);
      return ok(show(revoked));
    },
  }),
];
