import type {
  EventRecord,
  MetricRecord,
  NodeRecord,
  PodLogRecord,
  PodRecord,
  PvcRecord,
} from '../../records.js';

/**
 * Records as ClickHouse rows: one JSONCompactEachRow line (an array in column order) per record,
 * the cheapest text format to produce and for the server to parse. Times are written as
 * 'YYYY-MM-DD hh:mm:ss.fff' in UTC, which the DateTime64(3, 'UTC') columns read as UTC whatever
 * the server's own time zone and date_time_input_format.
 */

export function chTime(d: Date): string {
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

const flag = (b: boolean | null) => (b === null ? null : b ? 1 : 0);
// The columns are Decimal(18, 6) cores and UInt64 bytes. Records are validated as finite and
// non-negative but not bounded, and one value a column cannot hold would fail the whole batch's
// INSERT: values are rounded as the original stored them (micro-cores, whole bytes) and held
// within what the columns take (a trillion cores, an exabyte), far past any real container.
const MAX_CORES = 999_999_999_999;
const MAX_BYTES = 1e18;
const cores = (n: number) => Math.min(Math.round(n * 1e6) / 1e6, MAX_CORES);
const optCores = (n: number | null) => (n === null ? null : cores(n));
const bytes = (n: number) => Math.min(Math.round(n), MAX_BYTES);
const optBytes = (n: number | null) => (n === null ? null : bytes(n));

export const POD_COLUMNS = [
  'cluster',
  'namespace',
  'pod',
  'container',
  'ts',
  'cpu_usage_cores',
  'cpu_limit_cores',
  'memory_usage_bytes',
  'memory_limit_bytes',
  'cpu_request_cores',
  'memory_request_bytes',
  'node_name',
  'pod_state',
  'restart_count',
  'pod_age',
  'owner_kind',
  'owner_name',
  'labels',
  'last_termination_reason',
];

function podRow(cluster: string, at: Date, d: PodRecord): unknown[] {
  return [
    cluster,
    d.namespace,
    d.pod,
    d.container,
    chTime(at),
    cores(d.cpuUsageCores),
    optCores(d.cpuLimitCores),
    bytes(d.memoryUsageBytes),
    optBytes(d.memoryLimitBytes),
    optCores(d.cpuRequestCores),
    optBytes(d.memoryRequestBytes),
    d.nodeName,
    d.podState,
    d.restartCount,
    d.podAge,
    d.ownerKind,
    d.ownerName,
    d.labels ?? {},
    d.lastTerminationReason,
  ];
}

export const NODE_COLUMNS = [
  'cluster',
  'node_name',
  'ts',
  'cluster_environment',
  'cpu_usage_cores',
  'cpu_capacity_cores',
  'memory_usage_bytes',
  'memory_capacity_bytes',
  'kubernetes_version',
  'cloud_provider',
  'is_ready',
  'has_memory_pressure',
  'has_disk_pressure',
  'has_pid_pressure',
  'architecture',
  'operating_system',
  'region',
  'instance_type',
  'provider_id',
  'node_pool',
  'cpu_allocatable_cores',
  'memory_allocatable_bytes',
];

function nodeRow(cluster: string, at: Date, d: NodeRecord): unknown[] {
  return [
    cluster,
    d.nodeName,
    chTime(at),
    // A blank environment is production, as the original stored it.
    d.clusterEnvironment ?? 'PROD',
    d.cpuUsageCores,
    d.cpuCapacityCores,
    d.memoryUsageBytes,
    d.memoryCapacityBytes,
    d.kubernetesVersion,
    d.cloudProvider,
    flag(d.isReady),
    flag(d.hasMemoryPressure),
    flag(d.hasDiskPressure),
    flag(d.hasPidPressure),
    d.architecture,
    d.operatingSystem,
    d.region,
    d.instanceType,
    d.providerId,
    d.nodePool,
    d.cpuAllocatableCores,
    d.memoryAllocatableBytes,
  ];
}

export const PVC_COLUMNS = [
  'cluster',
  'namespace',
  'pod',
  'pvc_namespace',
  'pvc_name',
  'ts',
  'volume_name',
  'used_bytes',
  'available_bytes',
  'capacity_bytes',
  'azure_disk_resource_id',
];

function pvcRow(cluster: string, at: Date, d: PvcRecord): unknown[] {
  return [
    cluster,
    d.namespace,
    d.pod,
    d.pvcNamespace,
    d.pvcName,
    chTime(at),
    d.volumeName,
    d.usedBytes,
    d.availableBytes,
    d.capacityBytes,
    d.azureDiskResourceId,
  ];
}

export const LOG_COLUMNS = ['cluster', 'namespace', 'pod', 'container', 'ts', 'log_content'];

function logRow(cluster: string, at: Date, d: PodLogRecord): unknown[] {
  return [cluster, d.namespace, d.pod, d.container, chTime(at), d.logContent];
}

export const EVENT_COLUMNS = [
  'cluster',
  'namespace',
  'event_uid',
  'involved_object_kind',
  'involved_object_name',
  'identity_name',
  'ts',
  'event_name',
  'involved_object_namespace',
  'event_type',
  'reason',
  'message',
  'source_component',
  'count',
  'first_timestamp',
  'last_timestamp',
];

function eventRow(cluster: string, at: Date, d: EventRecord): unknown[] {
  return [
    cluster,
    d.namespace,
    d.eventUid,
    d.involvedObjectKind,
    d.involvedObjectName,
    d.eventUid ? '' : d.eventName,
    chTime(at),
    d.eventName,
    d.involvedObjectNamespace,
    d.eventType,
    d.reason,
    d.message,
    d.sourceComponent,
    d.count,
    d.firstTimestamp ? chTime(d.firstTimestamp) : null,
    d.lastTimestamp ? chTime(d.lastTimestamp) : null,
  ];
}

export interface TableRows {
  table: 'pod_raw' | 'node_raw' | 'pvc_raw' | 'pod_logs' | 'events';
  columns: string[];
  rows: unknown[][];
}

/** The batch's records split by table, in the order they came. */
export function rowsByTable(cluster: string, records: MetricRecord[]): TableRows[] {
  const pods: unknown[][] = [];
  const nodes: unknown[][] = [];
  const pvcs: unknown[][] = [];
  const logs: unknown[][] = [];
  const events: unknown[][] = [];
  for (const r of records) {
    switch (r.kind) {
      case 'pod':
        pods.push(podRow(cluster, r.collectedAt, r.data));
        break;
      case 'node':
        nodes.push(nodeRow(cluster, r.collectedAt, r.data));
        break;
      case 'pvc':
        pvcs.push(pvcRow(cluster, r.collectedAt, r.data));
        break;
      case 'podLog':
        logs.push(logRow(cluster, r.collectedAt, r.data));
        break;
      case 'event':
        events.push(eventRow(cluster, r.collectedAt, r.data));
        break;
    }
  }
  const all: TableRows[] = [
    { table: 'pod_raw', columns: POD_COLUMNS, rows: pods },
    { table: 'node_raw', columns: NODE_COLUMNS, rows: nodes },
    { table: 'pvc_raw', columns: PVC_COLUMNS, rows: pvcs },
    { table: 'pod_logs', columns: LOG_COLUMNS, rows: logs },
    { table: 'events', columns: EVENT_COLUMNS, rows: events },
  ];
  return all.filter((t) => t.rows.length > 0);
}
