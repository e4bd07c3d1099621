import { z } from 'zod';
import type { AppServices } from '../../app/services.js';
import { badRequest, HttpError } from '../../http/problem.js';
import { ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { blobFiles, withoutQuery } from '../imports/blob.js';
import { ImportError } from '../imports/columns.js';
import { ExportAccumulator, finishExport, parseCostExport, readExport } from '../imports/parse.js';
import { type ImportSummary, storeImport } from '../imports/store.js';
import { assertSubscriptionAccess } from '../waste/access.js';

/** Azure Functions' own request size limit (100 MB): the 1 MiB of JSON routes does not apply here. */
export const IMPORT_MAX_BODY_BYTES = 100 * 1024 * 1024;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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
  subscriptionId: z.string(),
  url: z.string().min(1).max(4000).describe('blob URL, or container URL with prefix; may carry a SAS'),
  prefix: z
    .string()
    .max(1000)
    .optional()
    .describe('import every .csv/.csv.gz blob under this prefix of the container'),
});

export function subscriptionQuery(query: URLSearchParams): string {
  const sub = query.get('subscriptionId')?.trim() ?? '';
  if (!GUID.test(sub)) {
    throw badRequest("The query parameter 'subscriptionId' must be a subscription GUID.", {
      subscriptionId: [sub ? `The value '${sub}' is not a GUID.` : 'A value is required.'],
    });
  }
  return sub;
}

/** An import failure as problem+json, with the line number when one row is at fault. */
export function importProblem(e: unknown): unknown {
  if (e instanceof ImportError) {
    return new HttpError(e.status, e.message, e.line !== undefined ? { extensions: { line: e.line } } : {});
  }
  return e;
}

export function importDeps(services: AppServices) {
  const f = services.config.finops;
  return {
    prisma: services.prisma,
    log: services.log,
    postgresUrl:
      services.db.kind === 'postgres'
        ? services.config.platform.ConnectionStrings__SqlConnectionString
        : undefined,
    intel: { sensitivity: f.Anomalies__Sensitivity, minImpact: f.Anomalies__MinImpact },
  };
}

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
        'subscriptions are skipped. Stored as an analysis run marked as imported; anomaly detection runs on it and ' +
        'GET Forecast reads it. FOCUS cost column: BilledCost, or EffectiveCost when Cloud__CostQueryType is ' +
        'AmortizedCost. A malformed CSV is a 400 and a bad row a 422, both with the line number; nothing is stored then.',
      tags: ['CostImports'],
      query: z.object({ subscriptionId: z.string() }),
      responses: {
        200: { description: 'import summary', schema: ImportSummarySchema },
        403: { description: 'the subscription is not assigned to the caller' },
        413: { description: 'body over 100 MB' },
        415: { description: 'not text/csv' },
        422: { description: 'a row or the header cannot be read (line in the problem)' },
      },
    },
    async handler({ services, query, request, caller }): Promise<ReturnType<typeof ok>> {
      const subscriptionId = subscriptionQuery(query);
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
        'Blobs are streamed (bounded memory whatever their size). Only https URLs outside Development. Same formats, rules and answer as POST CostImports.',
      tags: ['CostImports'],
      body: BlobImportBody,
      responses: {
        200: { description: 'import summary', schema: ImportSummarySchema },
        422: {
          description:
            'unreadable blob, no CSV under the prefix, or a bad row (file and line in the problem)',
        },
      },
    },
    async handler({ services, body, caller }) {
      const b = await body(BlobImportBody);
      const subscriptionId = subscriptionQuery(new URLSearchParams({ subscriptionId: b.subscriptionId }));
      let url: URL;
      try {
        url = new URL(b.url);
      } catch {
        throw badRequest('The url is not a URL.', { url: ['Not a URL.'] });
      }
      if (!(url.protocol === 'https:' || (services.config.isDevelopment && url.protocol === 'http:'))) {
        throw badRequest('The url must be an https URL of a blob or a container.', {
          url: ['Not an https URL.'],
        });
      }
      const metric = services.config.finops.Cloud__CostQueryType;
      try {
        const files = await blobFiles(b.url, b.prefix);
        const acc = new ExportAccumulator(subscriptionId, metric);
        for (const f of files) await readExport(acc, (await f.open()) as AsyncIterable<Buffer>, f.name);
        const summary = await storeImport(importDeps(services), subscriptionId, finishExport(acc), {
          source: 'blob',
          location: `${withoutQuery(b.url)}${b.prefix !== undefined ? `/${b.prefix}` : ''}`,
          createdBy: caller.email || caller.userId,
          metric,
        });
        return ok({ ...summary, files: files.length });
      } catch (e) {
        throw importProblem(e);
      }
    },
  }),
];
