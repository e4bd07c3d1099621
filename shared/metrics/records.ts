import { z } from 'zod';

/**
 * The five record kinds the agent sends, as the one-object ingest posts carry them and as the
 * `data` of a batched record. Binding follows the original's ASP.NET Core rules, so its agent and
 * ours are accepted alike:
 *  - property names match case-insensitively (the dispatcher's normalizeKeys; the agent sends PascalCase);
 *  - a non-nullable string may be omitted (it is then "") but not null;
 *  - numbers may be sent as numeric strings; a non-nullable number may be omitted (0) but not null;
 *  - integer fields take whole numbers only; unknown properties are ignored.
 * Beyond the original: counts and sizes cannot be negative, texts are bounded and cannot hold NUL
 * (PostgreSQL text cannot), and finwatch's agent adds the extra fields below (all nullable).
 */

const NUL = '\u0000';
/** Kubernetes names are at most 253 characters; room for longer cluster names and reasons. */
const MAX_NAME = 512;
/** An event message or a termination reason. */
const MAX_TEXT = 8192;
/** One container's log snapshot (the last lines the agent read). */
export const MAX_LOG_CHARS = 1024 * 1024;

const noNul = (s: string) => !s.includes(NUL);

/** A required-by-type string: omitted → "", null refused. */
const str = (max = MAX_NAME) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .refine(noNul, 'must not contain a NUL character')
    .default('');

/** A nullable string: omitted → null; blank → null (as the original stores blanks). */
const optStr = (max = MAX_NAME) =>
  z
    .string({ error: 'must be a string or null' })
    .max(max, `must be at most ${max} characters`)
    .refine(noNul, 'must not contain a NUL character')
    .transform((v) => (v.trim() === '' ? null : v))
    .nullable()
    .default(null);

const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A JSON number or a numeric string (System.Text.Json's web default AllowReadingFromString). */
const numberLike = () =>
  z.union(
    [
      z.number(),
      z
        .string()
        .regex(NUMERIC)
        .transform((s) => Number(s)),
    ],
    { error: 'must be a number' },
  );

/** A non-negative number: omitted → 0, null refused. */
const quantity = () =>
  numberLike().pipe(z.number().finite('must be a finite number').min(0, 'must not be negative')).default(0);
/** A non-negative number or null (omitted → null). */
const optQuantity = () =>
  numberLike()
    .pipe(z.number().finite('must be a finite number').min(0, 'must not be negative'))
    .nullable()
    .default(null);

const whole = (min: number, max: number) =>
  numberLike().pipe(
    z
      .number()
      .int('must be a whole number')
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );

const INT32_MAX = 2_147_483_647;
/** Bytes as the original's ulong, bounded to what a JSON number holds exactly. */
const bytes = () => whole(0, Number.MAX_SAFE_INTEGER).default(0);
const optBool = () => z.boolean({ error: 'must be true, false or null' }).nullable().default(null);

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
/** An ISO 8601 instant or null; one without an offset is read as UTC (the original's DateTime). */
const optInstant = () =>
  z
    .string({ error: 'must be an ISO 8601 date and time or null' })
    .trim()
    .regex(ISO_INSTANT, 'must be an ISO 8601 date and time')
    .transform((s, ctx) => {
      const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(s) ? s : `${s}Z`;
      const d = new Date(withZone);
      if (Number.isNaN(d.getTime())) {
        ctx.addIssue({ code: 'custom', message: 'is not a valid date and time' });
        return z.NEVER;
      }
      return d;
    })
    .nullable()
    .default(null);

/** Allow-listed pod labels: a small string map. */
const labels = () =>
  z
    .record(z.string().max(317).refine(noNul), z.string().max(MAX_NAME).refine(noNul))
    .refine((m) => Object.keys(m).length <= 64, 'must have at most 64 labels')
    .nullable()
    .default(null);

export const podRecordSchema = z.object({
  clusterName: str(),
  namespace: str(),
  pod: str(),
  container: str(),
  cpuUsageCores: quantity(),
  cpuLimitCores: optQuantity(),
  memoryUsageBytes: quantity(),
  memoryLimitBytes: optQuantity(),
  nodeName: optStr(),
  podState: optStr(),
  restartCount: whole(0, INT32_MAX).default(0),
  podAge: whole(-1e12, 1e12).nullable().default(null),
  // finwatch agent's extra fields
  cpuRequestCores: optQuantity(),
  memoryRequestBytes: optQuantity(),
  ownerKind: optStr(),
  ownerName: optStr(),
  labels: labels(),
  lastTerminationReason: optStr(MAX_TEXT),
});

export const nodeRecordSchema = z.object({
  clusterName: str(),
  clusterEnvironment: optStr(),
  nodeName: str(),
  cpuUsageCores: quantity(),
  cpuCapacityCores: quantity(),
  memoryUsageBytes: quantity(),
  memoryCapacityBytes: quantity(),
  kubernetesVersion: optStr(),
  cloudProvider: optStr(),
  isReady: optBool(),
  hasMemoryPressure: optBool(),
  hasDiskPressure: optBool(),
  hasPidPressure: optBool(),
  architecture: optStr(),
  operatingSystem: optStr(),
  region: optStr(),
  instanceType: optStr(),
  // finwatch agent's extra fields
  providerId: optStr(2048),
  nodePool: optStr(),
  cpuAllocatableCores: optQuantity(),
  memoryAllocatableBytes: optQuantity(),
});

export const podLogRecordSchema = z.object({
  clusterName: str(),
  namespace: str(),
  pod: str(),
  container: str(),
  // A log may hold any byte the container wrote; NUL (which PostgreSQL text cannot store) is
  // replaced rather than refused, so one odd line does not lose the snapshot.
  logContent: z
    .string({ error: 'must be a string' })
    .max(MAX_LOG_CHARS, `must be at most ${MAX_LOG_CHARS} characters`)
    .default('')
    .transform((s) => (s.includes(NUL) ? s.replaceAll(NUL, '\uFFFD') : s)),
});

export const eventRecordSchema = z.object({
  clusterName: str(),
  namespace: str(),
  eventName: str(),
  eventUid: str(),
  involvedObjectKind: str(),
  involvedObjectName: str(),
  involvedObjectNamespace: str(),
  eventType: str(),
  reason: str(),
  message: str(MAX_TEXT),
  sourceComponent: str(),
  count: whole(0, INT32_MAX).default(0),
  firstTimestamp: optInstant(),
  lastTimestamp: optInstant(),
});

export const pvcRecordSchema = z.object({
  clusterName: str(),
  namespace: str(),
  pod: str(),
  pvcNamespace: str(),
  pvcName: str(),
  volumeName: optStr(),
  usedBytes: bytes(),
  availableBytes: bytes(),
  capacityBytes: bytes(),
  // finwatch agent's extra field
  azureDiskResourceId: optStr(2048),
});

export type PodRecord = z.infer<typeof podRecordSchema>;
export type NodeRecord = z.infer<typeof nodeRecordSchema>;
export type PodLogRecord = z.infer<typeof podLogRecordSchema>;
export type EventRecord = z.infer<typeof eventRecordSchema>;
export type PvcRecord = z.infer<typeof pvcRecordSchema>;

export const RECORD_SCHEMAS = {
  pod: podRecordSchema,
  node: nodeRecordSchema,
  podLog: podLogRecordSchema,
  pvc: pvcRecordSchema,
  event: eventRecordSchema,
} as const;

export type RecordKind = keyof typeof RECORD_SCHEMAS;
export const RECORD_KINDS = Object.keys(RECORD_SCHEMAS) as RecordKind[];

interface DataOf {
  pod: PodRecord;
  node: NodeRecord;
  podLog: PodLogRecord;
  pvc: PvcRecord;
  event: EventRecord;
}

/** One validated record: its kind, when the agent collected it, and its data. */
export type MetricRecord = {
  [K in RecordKind]: { kind: K; collectedAt: Date; data: DataOf[K] };
}[RecordKind];

/** The batched route's envelope, before each record's data is validated by its kind. */
export const batchEnvelopeSchema = z.object({
  batchId: z.uuid({ error: 'must be a UUID' }),
  clusterName: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_NAME, `must be at most ${MAX_NAME} characters`)
    .refine(noNul, 'must not contain a NUL character'),
  records: z.array(
    z.object({
      kind: z.enum(RECORD_KINDS as [RecordKind, ...RecordKind[]], {
        error: `must be one of ${RECORD_KINDS.join(', ')}`,
      }),
      collectedAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 UTC date and time' }),
      // Any object: its fields are checked by the record's kind. A check, not an object schema:
      // even a loose one copies every key of thousands of records (2 µs of a record's 3).
      data: z
        .unknown()
        .refine((v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'must be an object')
        .meta({ type: 'object' }),
    }),
    { error: 'must be an array' },
  ),
});

/** Cluster names are stored and compared in lower case (the original lower-cased them too). */
export function normalizeCluster(name: string): string {
  return name.trim().toLowerCase();
}
