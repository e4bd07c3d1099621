import { z } from 'zod';

/**
 * The original ingest API's request DTOs, as strict as the ASP.NET binder: non-nullable strings
 * must not be null, int/long fields must be whole numbers, counts stored as UInt32 must be >= 0.
 * Extra fields are allowed (the API ignores unknown properties); a JSON array body is rejected.
 */
const str = z.string();
const nullableStr = z.string().nullable();
const double = z.number().finite();
const int = z.number().int();
const isoUtc = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
  .nullable();

export const PodMetricRequest = z.object({
  clusterName: str.min(1),
  namespace: str,
  pod: str,
  container: str,
  cpuUsageCores: double.nonnegative(),
  cpuLimitCores: double.nullable(),
  memoryUsageBytes: double.nonnegative(),
  memoryLimitBytes: double.nullable(),
  nodeName: nullableStr,
  // What the original sent and the web client colours, plus CrashLoopBackOff.
  podState: z.enum(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown', 'CrashLoopBackOff']).nullable(),
  restartCount: int.nonnegative(),
  podAge: int.nullable(),
});

export const NodeMetricRequest = z.object({
  clusterName: str.min(1),
  nodeName: str,
  clusterEnvironment: nullableStr,
  cpuUsageCores: double,
  cpuCapacityCores: double,
  memoryUsageBytes: double,
  memoryCapacityBytes: double,
  kubernetesVersion: nullableStr,
  cloudProvider: nullableStr,
  isReady: z.boolean().nullable(),
  hasMemoryPressure: z.boolean().nullable(),
  hasDiskPressure: z.boolean().nullable(),
  hasPidPressure: z.boolean().nullable(),
  architecture: nullableStr,
  operatingSystem: nullableStr,
  region: nullableStr,
  instanceType: nullableStr,
});

export const PodLogRequest = z.object({
  clusterName: str.min(1),
  namespace: str,
  pod: str,
  container: str,
  logContent: str,
});

export const KubernetesEventRequest = z.object({
  clusterName: str.min(1),
  namespace: str,
  eventName: str,
  eventUid: str,
  involvedObjectKind: str,
  involvedObjectName: str,
  involvedObjectNamespace: str,
  eventType: str,
  reason: str,
  message: str,
  sourceComponent: str,
  count: int.nonnegative(),
  firstTimestamp: isoUtc,
  lastTimestamp: isoUtc,
});

/** ulong byte counts: whole and never negative. */
const ulong = z.number().int().nonnegative();

export const PvcMetricRequest = z.object({
  clusterName: str.min(1),
  namespace: str,
  pod: str,
  pvcNamespace: str,
  pvcName: str,
  volumeName: nullableStr,
  usedBytes: ulong,
  availableBytes: ulong,
  capacityBytes: ulong,
});

export const CONTRACT = {
  '/api/metrics/pod': PodMetricRequest,
  '/api/metrics/node': NodeMetricRequest,
  '/api/metrics/pod/log': PodLogRequest,
  '/api/metrics/pvc': PvcMetricRequest,
  '/api/events': KubernetesEventRequest,
} as const;

export type IngestPath = keyof typeof CONTRACT;

export const RECORD_PATHS = {
  pod: '/api/metrics/pod',
  node: '/api/metrics/node',
  podLog: '/api/metrics/pod/log',
  pvc: '/api/metrics/pvc',
  event: '/api/events',
} as const satisfies Record<string, IngestPath>;

const utc = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);

/** The batch route's extra fields inside `data`: all may be null. */
const PodBatchFields = z.object({
  cpuRequestCores: double.nullable(),
  memoryRequestBytes: double.nullable(),
  ownerKind: nullableStr,
  ownerName: nullableStr,
  labels: z.record(z.string(), z.string()).nullable(),
  lastTerminationReason: nullableStr,
});
const NodeBatchFields = z.object({
  providerId: nullableStr,
  nodePool: nullableStr,
  cpuAllocatableCores: double.nullable(),
  memoryAllocatableBytes: double.nullable(),
});
const PvcBatchFields = z.object({ azureDiskResourceId: nullableStr });

const record = <K extends string, T extends z.ZodObject>(kind: K, data: T) =>
  z.object({ kind: z.literal(kind), collectedAt: utc, data });

/**
 * POST /metrics/api/ingest/batch: the envelope, each record's data (the one-object body plus the extra
 * fields), at most 5,000 records, and every record's clusterName equal to the envelope's (case-insensitive).
 */
export const BatchEnvelope = z
  .object({
    batchId: z.uuid(),
    clusterName: str.min(1),
    records: z
      .array(
        z.discriminatedUnion('kind', [
          record('pod', PodMetricRequest.extend(PodBatchFields.shape)),
          record('node', NodeMetricRequest.extend(NodeBatchFields.shape)),
          record('podLog', PodLogRequest),
          record('pvc', PvcMetricRequest.extend(PvcBatchFields.shape)),
          record('event', KubernetesEventRequest),
        ]),
      )
      .max(5_000),
  })
  .superRefine((envelope, ctx) => {
    envelope.records.forEach((r, i) => {
      if (r.data.clusterName.toLowerCase() !== envelope.clusterName.toLowerCase()) {
        ctx.addIssue({
          code: 'custom',
          path: ['records', i, 'data', 'clusterName'],
          message: 'must equal the envelope clusterName',
        });
      }
    });
  });
