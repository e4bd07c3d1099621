import { isAscii } from 'node:buffer';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { HttpRequest } from '@azure/functions';
import { type ZodType, z } from 'zod';
import type { AppServices } from '../../app/services.js';
import { normalizeKeys, parseJsonText } from '../../http/body.js';
import { fieldPath, plainIssue } from '../../http/plain-issues.js';
import { badRequest, HttpError, type ValidationErrors } from '../../http/problem.js';
import { json } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { clusterFor, ingestSender } from '../ingest-auth.js';
import {
  batchEnvelopeSchema,
  MAX_LOG_CHARS,
  type MetricRecord,
  normalizeCluster,
  RECORD_SCHEMAS,
  type RecordKind,
} from '../records.js';

const gunzipAsync = promisify(gunzip);

/**
 * The output piece zlib inflates into, sized from the compressed body (an agent's JSON inflates
 * about 20 times): each piece is a round trip to the thread pool and a callback, and zlib's 16 KB
 * default made a 5,000-record batch (1.6 MB of JSON) about a hundred of them, 1 µs of CPU a record
 * where pieces of half a megabyte or more take 0.25 (docs/benchmarks.md). Bounded both ways: a
 * small body does not allocate a large piece, a large one not one the size of the batch bound.
 */
function inflateChunkBytes(compressed: number): number {
  return Math.min(1024 * 1024, Math.max(16 * 1024, compressed * 8));
}

/** A one-object post: a log snapshot of MAX_LOG_CHARS characters, JSON-escaped, fits. */
const SINGLE_MAX_BODY_BYTES = 4 * MAX_LOG_CHARS;
/** The batched route's compressed body is bounded by Metrics__MaxBatchBytes, whose largest value is this. */
const BATCH_ROUTE_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Record errors listed in one 422 at most (the first ones); `detail` names the first. */
const MAX_LISTED_ERRORS = 50;
/** Collected in the future by more than this (a skewed agent clock) is refused. */
const MAX_CLOCK_SKEW_MS = 10 * 60_000;

const successSchema = z.object({ success: z.literal(true) });

function mediaType(request: Pick<HttpRequest, 'headers'>): string {
  return (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

function isJsonMedia(media: string): boolean {
  return media === 'application/json' || media === 'text/json' || /^application\/[^/]+\+json$/.test(media);
}

/** Both routes bound their bodies before reading them (the route's size, the batch bound). */
const parseJson = (text: string) => parseJsonText(text, null);

const compiled = new Map<ZodType, ZodType>();

/**
 * The schema as zod compiles it ahead of time (z.compile), made on first use: a valid value is
 * checked by generated code instead of zod's walk of the schema, about 15 times cheaper for a pod
 * record, which made the record checks the largest cost of a batch (docs/benchmarks.md). A value
 * the generated code refuses is parsed again by the schema as written, so every message is the
 * same. Compiling costs tens of milliseconds a schema, hence not at startup.
 */
function compiledOf<T>(schema: ZodType<T>): ZodType<T> {
  let c = compiled.get(schema);
  if (!c) {
    c = z.compile(schema);
    compiled.set(schema, c);
  }
  return c as ZodType<T>;
}

/** One object for every parse (a batch makes thousands), not one a record. */
const PARSE_PARAMS = { error: plainIssue };

/** One value parsed by a schema (its keys spelled as the schema's first). */
function parsedBy<T>(schema: ZodType<T>, value: unknown) {
  return compiledOf(schema).safeParse(normalizeKeys(value, schema), PARSE_PARAMS);
}

/** A failed parse's problems, keyed by `prefix` + the field path (`records[3].data.pod`). */
function problemsIn(error: z.ZodError, prefix: string): ValidationErrors {
  const errors: ValidationErrors = {};
  for (const issue of error.issues) {
    const field = fieldPath(issue.path, prefix) || 'request body';
    errors[field] = [...(errors[field] ?? []), issue.message];
  }
  return errors;
}

/** Problems of one value against a schema, keyed by `prefix` + the field path. */
function problemsOf<T>(
  schema: ZodType<T>,
  value: unknown,
  prefix: string,
): { data: T; errors?: undefined } | { data?: undefined; errors: ValidationErrors } {
  const r = parsedBy(schema, value);
  return r.success ? { data: r.data } : { errors: problemsIn(r.error, prefix) };
}

function firstOf(errors: ValidationErrors): string {
  const [field, [message] = ['is invalid']] = Object.entries(errors)[0] ?? ['request', []];
  return `${field} ${message}`;
}

/** Whether a collection time can be stored: within raw retention, not from the future. */
function collectedAtProblem(services: AppServices, at: Date, now: number): string | undefined {
  const days = services.config.metrics.Metrics__RetentionRawDays;
  if (at.getTime() < now - days * 86_400_000) return `is older than the ${days} days raw samples are kept`;
  if (at.getTime() > now + MAX_CLOCK_SKEW_MS) return 'is in the future (check the agent clock)';
  return undefined;
}

const ONE_OBJECT_ROUTES: Array<{ kind: RecordKind; path: string; name: string; summary: string }> = [
  { kind: 'pod', path: 'metrics/pod', name: 'metrics-ingest-pod', summary: 'Store one container sample' },
  { kind: 'node', path: 'metrics/node', name: 'metrics-ingest-node', summary: 'Store one node sample' },
  {
    kind: 'podLog',
    path: 'metrics/pod/log',
    name: 'metrics-ingest-pod-log',
    summary: "Replace a container's log snapshot",
  },
  { kind: 'pvc', path: 'metrics/pvc', name: 'metrics-ingest-pvc', summary: 'Store one PVC sample' },
  {
    kind: 'event',
    path: 'events',
    name: 'metrics-ingest-event',
    summary: 'Store or update one Kubernetes event',
  },
];

const INGEST_RESPONSES = {
  200: { description: 'Stored', schema: successSchema },
  400: { description: 'Malformed JSON or a field of the wrong type (problem+json)' },
  401: { description: 'No ingest key (unless anonymous ingest is on), or an unknown or revoked one' },
  403: { description: 'The ingest key is for another cluster' },
  413: { description: 'The body is too large' },
  415: { description: 'Not JSON' },
};

/** The original agent's one-object posts, with its binding rules, answered {"success":true}. */
function oneObjectRoute(def: (typeof ONE_OBJECT_ROUTES)[number]): RouteDefinition {
  const schema = RECORD_SCHEMAS[def.kind] as ZodType<MetricRecord['data']>;
  return defineRoute({
    name: def.name,
    service: 'metrics',
    method: 'POST',
    path: def.path,
    auth: 'none',
    maxBodyBytes: SINGLE_MAX_BODY_BYTES,
    openapi: {
      summary: def.summary,
      description:
        "Authorization: Bearer <ingest key> (not needed when Metrics__AllowAnonymousIngest=true). A blank clusterName takes the key's cluster.",
      tags: ['Ingest'],
      body: schema,
      responses: INGEST_RESPONSES,
    },
    async handler({ services, request }) {
      const metrics = services.metrics;
      const sender = await ingestSender(
        request,
        metrics.keys,
        services.config.metrics.Metrics__AllowAnonymousIngest,
      );
      const media = mediaType(request);
      if (media && !isJsonMedia(media)) {
        throw new HttpError(415, `The content type ${media} is not supported; send application/json.`);
      }
      const value = parseJson(await request.text());
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw badRequest('The request body must be one JSON object.');
      }
      const parsed = problemsOf(schema, value, '');
      if (parsed.errors) throw badRequest(firstOf(parsed.errors), parsed.errors);
      const data = parsed.data as { clusterName: string };
      const cluster = clusterFor(sender, data.clusterName);
      if (!cluster) {
        throw badRequest('clusterName is required (or send an ingest key, whose cluster is then used).', {
          clusterName: ['is required'],
        });
      }
      data.clusterName = cluster;
      await metrics.ingest({
        clusterName: cluster,
        records: [{ kind: def.kind, collectedAt: new Date(), data } as MetricRecord],
      });
      return json(200, { success: true });
    },
  });
}

const batchAnswer = z.object({
  success: z.literal(true),
  batchId: z.string(),
  records: z.number().int(),
  duplicate: z.boolean(),
});

/** Reads the batched body: JSON, optionally gzip, bounded before and after decompression. */
async function readBatchBody(request: HttpRequest, maxBytes: number): Promise<unknown> {
  const media = mediaType(request);
  if (!isJsonMedia(media)) {
    throw new HttpError(
      415,
      `The content type ${media || '(none)'} is not supported; send application/json.`,
    );
  }
  const encoding = (request.headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity' && encoding !== 'gzip') {
    throw new HttpError(415, `The content encoding ${encoding} is not supported; send gzip or none.`);
  }
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = Buffer.from(await request.arrayBuffer());
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  let body = bytes;
  if (encoding === 'gzip') {
    try {
      // maxOutputLength stops a gzip bomb at the bound instead of inflating it whole.
      body = await gunzipAsync(bytes, {
        maxOutputLength: maxBytes,
        chunkSize: inflateChunkBytes(bytes.length),
      });
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError)
        throw tooLarge(maxBytes);
      throw badRequest('The request body is not valid gzip.');
    }
  }
  // ASCII (an agent's JSON escapes the rest, or has none) decodes as Latin-1 byte for byte, which
  // is a copy where UTF-8 decoding checks every byte: half the cost of a batch's text.
  return parseJson(body.toString(isAscii(body) ? 'latin1' : 'utf8'));
}

const tooLarge = (max: number) =>
  new HttpError(413, `The batch is larger than ${max} bytes of JSON (Metrics__MaxBatchBytes); split it.`);

/**
 * POST ingest/batch: a cycle's records with their collection times, all or nothing, stored once
 * per batch id. Every record is checked before anything is written; a 422 names the records.
 */
const batchRoute = defineRoute({
  name: 'metrics-ingest-batch',
  service: 'metrics',
  method: 'POST',
  path: 'ingest/batch',
  auth: 'none',
  maxBodyBytes: BATCH_ROUTE_MAX_BODY_BYTES,
  openapi: {
    summary: "Store a batch of an agent's records (all or nothing, once per batchId)",
    description:
      "Content-Type: application/json, optionally Content-Encoding: gzip. Authorization: Bearer <ingest key> for the envelope's clusterName. A retried batchId answers duplicate:true and stores nothing again.",
    tags: ['Ingest'],
    body: batchEnvelopeSchema,
    responses: {
      200: { description: 'Stored, or already stored (duplicate)', schema: batchAnswer },
      400: { description: 'Malformed JSON, gzip or envelope' },
      401: INGEST_RESPONSES[401],
      403: INGEST_RESPONSES[403],
      413: { description: 'Larger than Metrics__MaxBatchBytes (decompressed)' },
      415: { description: 'Not JSON, or an encoding other than gzip' },
      422: { description: 'Records that cannot be stored, named (records[12].data.cpuUsageCores)' },
    },
  },
  async handler({ services, request }) {
    const metrics = services.metrics;
    const settings = services.config.metrics;
    const sender = await ingestSender(request, metrics.keys, settings.Metrics__AllowAnonymousIngest);
    const batch = checkedBatch(
      services,
      sender,
      await readBatchBody(request, settings.Metrics__MaxBatchBytes),
    );
    const result = await metrics.ingest({
      clusterName: batch.cluster,
      batchId: batch.batchId,
      records: batch.records,
    });
    return json(200, {
      success: true,
      batchId: batch.batchId,
      records: batch.count,
      duplicate: result.duplicate,
    });
  },
});

/**
 * The batch's envelope and every record checked (a 400 or a 422 naming the records), as the
 * store's records. Its own function: the parsed JSON (thousands of objects) is unreachable once
 * it returns, not held while the store writes (what the garbage collector must copy grows with
 * what is live across those waits).
 */
function checkedBatch(
  services: AppServices,
  sender: Awaited<ReturnType<typeof ingestSender>>,
  value: unknown,
): { batchId: string; cluster: string; records: MetricRecord[]; count: number } {
  const envelope = problemsOf(batchEnvelopeSchema, value, '');
  if (envelope.errors) throw badRequest(firstOf(envelope.errors), envelope.errors);
  const { batchId, records: raw } = envelope.data;
  const cluster = clusterFor(sender, envelope.data.clusterName)!;
  const errors: ValidationErrors = {};
  let listed = 0;
  const add = (key: string, messages: string[]) => {
    if (listed >= MAX_LISTED_ERRORS) return;
    errors[key] = [...(errors[key] ?? []), ...messages];
    listed++;
  };
  const now = Date.now();
  const records: MetricRecord[] = [];
  // A cycle's records share one collection time and name one cluster: each is worked out once a
  // run of records, not once a record (one Date for them all).
  let lastText: string | undefined;
  let lastAt = new Date(0);
  let late: string | undefined;
  let lastNamed: string | undefined;
  let namedElsewhere = false;
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i]!;
    const schema = RECORD_SCHEMAS[r.kind] as ZodType<{ clusterName: string }>;
    const parsed = parsedBy(schema, r.data);
    if (!parsed.success) {
      for (const [k, m] of Object.entries(problemsIn(parsed.error, `records[${i}].data`))) add(k, m);
      continue;
    }
    const data = parsed.data;
    if (data.clusterName !== lastNamed) {
      lastNamed = data.clusterName;
      const named = normalizeCluster(lastNamed);
      namedElsewhere = named !== '' && named !== cluster;
    }
    if (namedElsewhere) {
      add(`records[${i}].data.clusterName`, [`must be the batch's clusterName (${cluster})`]);
      continue;
    }
    if (r.collectedAt !== lastText) {
      lastText = r.collectedAt;
      lastAt = new Date(r.collectedAt);
      late = collectedAtProblem(services, lastAt, now);
    }
    if (late) {
      add(`records[${i}].collectedAt`, [late]);
      continue;
    }
    data.clusterName = cluster;
    records.push({ kind: r.kind, collectedAt: lastAt, data } as MetricRecord);
  }
  if (listed > 0) {
    throw new HttpError(422, `Nothing was stored: ${firstOf(errors)}.`, {
      errors,
      title: 'One or more records cannot be stored.',
    });
  }
  return { batchId, cluster, records, count: raw.length };
}

export const ingestRoutes: RouteDefinition[] = [...ONE_OBJECT_ROUTES.map(oneObjectRoute), batchRoute];
