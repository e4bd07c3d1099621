import { z } from 'zod';
import { subscriptionId as subscriptionIdField, text } from '../../http/fields.js';
import { badRequest, HttpError } from '../../http/problem.js';
import { ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { blobFiles } from '../imports/blob.js';
import { ImportError } from '../imports/columns.js';
import { SpoolUnavailable } from '../imports/import-jobs.js';
import { parseCostExport } from '../imports/parse.js';
import { type ImportSummary, importDeps, storeImport } from '../imports/store.js';
import { assertSubscriptionAccess } from '../waste/access.js';
import { accepted } from './analysis.js';

/** Azure Functions' own request size limit (100 MB): the 1 MiB of JSON routes does not apply here. */
export const IMPORT_MAX_BODY_BYTES = 100 * 1024 * 1024;

/**
 * A body whose Content-Length is at most this is imported while the caller waits (200 with the
 * summary): a few seconds at most. A larger one, or one of unknown length, is spooled and imported
 * as a job (202), so no import depends on a response outliving Azure's 230 s.
 */
export const SYNC_IMPORT_MAX_BYTES = 1024 * 1024;

const CSV_TYPES = new Set(['text/csv', 'application/csv', 'application/gzip', 'application/x-gzip']);

export const ImportSummarySchema = z.object({
  analysisRunId: z.number().int(),
  importId: z.number().int(),
  subscriptionId: z.string(),
  format: z.enum(['focus', 'costDetails']),
  costType: z.enum(['ActualCost', 'AmortizedCost']),
  currency: z.string(),
  rows: z.number().int(),
  skippedRows: z.number().int().describe('rows of other subscriptions'),
  from: z.string(),
  to: z.string(),
  rowsWritten: z.number().int().describe('rows of the run written (history and cost lines)'),
  newAnomalies: z.number().int(),
});

const BlobImportBody = z.object({
  subscriptionId: subscriptionIdField(),
  url: text(4000)
    .refine((v) => URL.canParse(v), 'must be a URL')
    .describe('blob URL, or container URL with prefix; may carry a SAS'),
  prefix: z
    .string()
    .max(1000)
    .optional()
    .describe('import every .csv/.csv.gz blob under this prefix of the container'),
});

/** An import failure as problem+json, with the line number when one row is at fault. */
export function importProblem(e: unknown): unknown {
  if (e instanceof ImportError) {
    return new HttpError(e.status, e.message, e.line !== undefined ? { extensions: { line: e.line } } : {});
  }
  return e;
}

/** A spool that cannot be written (no blob service, storage down) is the service's trouble: 503. */
function spoolProblem(e: unknown): unknown {
  if (e instanceof SpoolUnavailable) return new HttpError(503, e.message);
  if (e instanceof HttpError || e instanceof ImportError) return importProblem(e);
  return new HttpError(503, 'The import could not be stored for processing; try again.', {
    headers: { 'Retry-After': '10' },
  });
}

const jobAccepted = {
  description:
    'imported as a job: { jobId, subscriptionId, status } and a Location header; GET Analysis/jobs/{jobId} shows its progress, then `import` (the summary) or the failure with its line',
};

export const importRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-cost-import',
    service: 'finops',
    method: 'POST',
    path: 'CostImports',
    auth: 'user',
    maxBodyBytes: IMPORT_MAX_BODY_BYTES,
    openapi: {
      summary:
        "Imports a cost export (CSV: FOCUS 1.0 as Cost Management's FocusCost export writes it, or Azure's actual/amortized cost details) as the subscription's daily history; administrators and users the subscription is assigned to",
      description:
        'Body: text/csv (gzip accepted: Content-Encoding: gzip or a gzip body), up to 100 MB. Rows of other ' +
        'subscriptions are skipped. A body with a Content-Length of at most 1 MiB is imported at once (200 with the summary); ' +
        "a larger one, or one sent without a length, is stored in the app's storage and imported as a job (202 with its id, " +
        'same job route as analyses). Stored as an analysis run marked as imported; anomaly detection runs on it and ' +
        'GET Forecast reads it. FOCUS cost column: BilledCost, or EffectiveCost when Cloud__CostQueryType is ' +
        'AmortizedCost. A malformed CSV is a 400 and a bad row a 422, both with the line number (in a job: its failure reason); nothing is stored then.',
      tags: ['CostImports'],
      responses: {
        200: { description: 'import summary', schema: ImportSummarySchema },
        202: jobAccepted,
        403: { description: 'the subscription is not assigned to the caller' },
        413: { description: 'body over 100 MB' },
        415: { description: 'not text/csv' },
        422: { description: 'a row or the header cannot be read (line in the problem)' },
        503: {
          description: 'a large import could not be stored for its job (no blob storage, storage down)',
        },
      },
    },
    input: { query: z.object({ subscriptionId: subscriptionIdField() }) },
    async handler(ctx) {
      const { services, request, caller } = ctx;
      const { subscriptionId } = ctx.input.query;
      // Replacing a subscription's history is for its users and administrators.
      await assertSubscriptionAccess(services.prisma, caller, subscriptionId);
      const type = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
      if (!CSV_TYPES.has(type)) {
        throw new HttpError(415, `Send the export as text/csv (got '${type || 'no content type'}').`);
      }
      const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity' && encoding !== 'gzip') {
        throw new HttpError(415, `Content-Encoding '${encoding}' is not supported; use gzip or none.`);
      }
      if (!request.body)
        throw new HttpError(422, 'The export is empty: no header line.', { extensions: { line: 1 } });
      const metric = services.config.finops.Cloud__CostQueryType;
      const declared = Number(request.headers.get('content-length') ?? Number.NaN);
      if (!(Number.isFinite(declared) && declared <= SYNC_IMPORT_MAX_BYTES)) {
        let job: Awaited<ReturnType<typeof services.finops.imports.acceptBody>>;
        try {
          job = await services.finops.imports.acceptBody(
            subscriptionId,
            request.body as unknown as Parameters<typeof services.finops.imports.acceptBody>[1],
            { metric, createdBy: caller.email || caller.userId || null },
          );
        } catch (e) {
          throw spoolProblem(e);
        }
        return accepted(ctx, job.id, subscriptionId, job.status);
      }
      let summary: ImportSummary;
      try {
        const parsed = await parseCostExport(
          request.body as unknown as AsyncIterable<Uint8Array>,
          subscriptionId,
          metric,
        );
        summary = await storeImport(importDeps(services), subscriptionId, parsed, {
          source: 'http',
          createdBy: caller.email || caller.userId,
          metric,
        });
      } catch (e) {
        throw importProblem(e);
      }
      return ok(summary);
    },
  }),
  defineRoute({
    name: 'finops-cost-import-blob',
    service: 'finops',
    method: 'POST',
    path: 'CostImports/blob',
    auth: 'admin',
    openapi: {
      summary:
        'Imports a cost export from Azure Blob Storage (administrators): one blob by URL, or every .csv/.csv.gz blob under a prefix of a container (one export run)',
      description:
        'A URL with a SAS is used as given; without one the app reads with its managed identity (Storage Blob Data Reader). ' +
        'The blob (or the prefix) is checked now; it is then read as a job (202, same job route as analyses), streamed with bounded memory ' +
        'whatever its size. Only https URLs outside Development. Same formats and rules as POST CostImports.',
      tags: ['CostImports'],
      responses: {
        202: jobAccepted,
        422: {
          description:
            'unreadable blob or container, or no CSV under the prefix (a bad row fails the job, with file and line)',
        },
        503: { description: 'the job could not be stored (no blob storage, storage down)' },
      },
    },
    input: { body: BlobImportBody },
    async handler(ctx) {
      const { services, caller } = ctx;
      const b = ctx.input.body;
      const { subscriptionId } = b;
      const url = new URL(b.url);
      if (!(url.protocol === 'https:' || (services.config.isDevelopment && url.protocol === 'http:'))) {
        throw badRequest('The url must be an https URL of a blob or a container.', {
          url: ['Not an https URL.'],
        });
      }
      // Checked now, so a wrong URL, a missing grant or an empty prefix is a 422 and not a failed job.
      try {
        await blobFiles(b.url, b.prefix);
      } catch (e) {
        throw importProblem(e);
      }
      let job: Awaited<ReturnType<typeof services.finops.imports.acceptBlob>>;
      try {
        job = await services.finops.imports.acceptBlob({
          kind: 'blob',
          subscriptionId,
          metric: services.config.finops.Cloud__CostQueryType,
          createdBy: caller.email || caller.userId || null,
          url: b.url,
          ...(b.prefix !== undefined ? { prefix: b.prefix } : {}),
        });
      } catch (e) {
        throw spoolProblem(e);
      }
      return accepted(ctx, job.id, subscriptionId, job.status);
    },
  }),
];
