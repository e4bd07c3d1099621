import type { MetricRecord } from '../records.js';
import type { StoredLevel } from './read-plan.js';

/**
 * The store contract every metrics engine implements (PostgreSQL by default, ClickHouse for large
 * fleets). Routes talk only to this interface, so an engine is chosen by configuration and the
 * same test suite (test/metrics/store-suite.ts) runs against each.
 *
 * Conventions every engine keeps:
 *  - cluster names arrive and are compared in lower case (normalizeCluster);
 *  - times are Dates (UTC instants); `from`/`to` bound a window as from <= t < to; a sample's
 *    time may be kept to the whole second only (the PostgreSQL store drops milliseconds);
 *  - `clusters` on a query is the caller's visible set: undefined = every cluster (administrators),
 *    an array = only those (a user's assignments; [] sees nothing);
 *  - every list is bounded by its `limit`; an engine returns at most `limit` rows and says whether
 *    more matched (`truncated`).
 */

/** A batch of records for one cluster, written all or nothing. */
export interface WriteBatch {
  /** Lower-case cluster the batch is for; every record's clusterName equals it. */
  clusterName: string;
  /**
   * The agent's batch id: a batch with an id already stored for this cluster is not written again
   * (the answer says duplicate). Undefined for the one-object posts, which have no id.
   */
  batchId?: string;
  records: MetricRecord[];
}

export interface WriteResult {
  /** True when the batch id was already stored: nothing was written. */
  duplicate: boolean;
  /** Records written (0 for a duplicate). */
  records: number;
}

/**
 * What a sample read was answered from (the X-Resolution header): `raw` samples, or averages over
 * a step (`5m`, `10m`, `1h`, `2h`, `1d`…); see read-plan.ts.
 */
export type Resolution = string;

export interface WindowQuery {
  from: Date;
  to: Date;
  /** Visible clusters: undefined = all, else only these (lower case). */
  clusters?: string[] | undefined;
  /** Filter on one cluster (lower case). */
  clusterName?: string | undefined;
  limit: number;
  /** Points per series at most (Metrics__MaxPointsPerSeries; default DEFAULT_MAX_POINTS). */
  maxPoints?: number | undefined;
  /** The stored level to read; undefined: picked from the window (planRead). */
  resolution?: StoredLevel | undefined;
}

export interface PodQuery extends WindowQuery {
  namespace?: string | undefined;
}
export interface NodeQuery extends WindowQuery {
  nodeName?: string | undefined;
}
export interface PvcQuery extends WindowQuery {
  namespace?: string | undefined;
}

export interface LogQuery {
  from: Date;
  clusters?: string[] | undefined;
  clusterName?: string | undefined;
  namespace?: string | undefined;
  pod?: string | undefined;
  container?: string | undefined;
  limit: number;
}

export interface EventQuery {
  from: Date;
  clusters?: string[] | undefined;
  clusterName?: string | undefined;
  namespace?: string | undefined;
  involvedObjectKind?: string | undefined;
  involvedObjectName?: string | undefined;
  eventType?: string | undefined;
  limit: number;
}

/** One row of the pod list (the original's PodMetricDto). */
export interface PodSample {
  timestamp: Date;
  clusterName: string;
  namespace: string;
  pod: string;
  container: string;
  cpuUsageCores: number;
  cpuLimitCores: number | null;
  memoryUsageBytes: number;
  memoryLimitBytes: number | null;
  nodeName: string | null;
  podState: string | null;
  restartCount: number;
  podAge: number | null;
}

/** One row of the node list (the original's NodeMetricDto). */
export interface NodeSample {
  timestamp: Date;
  clusterName: string;
  clusterEnvironment: string | null;
  nodeName: string;
  cpuUsageCores: number;
  cpuCapacityCores: number;
  memoryUsageBytes: number;
  memoryCapacityBytes: number;
  kubernetesVersion: string | null;
  cloudProvider: string | null;
  isReady: boolean | null;
  hasMemoryPressure: boolean | null;
  hasDiskPressure: boolean | null;
  hasPidPressure: boolean | null;
  architecture: string | null;
  operatingSystem: string | null;
  region: string | null;
  instanceType: string | null;
}

/** One row of the PVC list (the original's PvcMetricDto). */
export interface PvcSample {
  timestamp: Date;
  clusterName: string;
  namespace: string;
  pod: string;
  pvcNamespace: string;
  pvcName: string;
  volumeName: string | null;
  usedBytes: number;
  availableBytes: number;
  capacityBytes: number;
}

/** The latest log snapshot of one container (the original's PodLogDto). */
export interface PodLog {
  timestamp: Date;
  clusterName: string;
  namespace: string;
  pod: string;
  container: string;
  logContent: string;
}

/** One Kubernetes event, as last posted (the original's KubernetesEventDto). */
export interface KubernetesEvent {
  timestamp: Date;
  clusterName: string;
  namespace: string;
  eventName: string;
  eventUid: string;
  involvedObjectKind: string;
  involvedObjectName: string;
  involvedObjectNamespace: string;
  eventType: string;
  reason: string;
  message: string;
  sourceComponent: string;
  count: number;
  firstTimestamp: Date | null;
  lastTimestamp: Date | null;
}

export interface TableSize {
  database: string;
  table: string;
  totalSize: string;
  totalSizeBytes: number;
}

export interface Rows<T> {
  rows: T[];
  /** More rows matched than `limit`: the answer was cut. */
  truncated: boolean;
  /** The resolution the rows come from (sample reads only). */
  resolution?: Resolution;
}

export interface CleanupResult {
  /** What was removed, in words: "all metrics" or "metrics older than N days". */
  scope: string;
}

export interface HousekeepingResult {
  /** Partitions (or engine parts) created ahead. */
  created: string[];
  /** Partitions dropped past their retention. */
  dropped: string[];
  /** Closed partitions whose indexes were rebuilt packed (PostgreSQL; absent when none were). */
  packed?: string[];
}

export interface MetricsStore {
  readonly engine: 'postgres' | 'clickhouse';
  /** Writes a batch all or nothing; a batch id already stored for the cluster writes nothing. */
  write(batch: WriteBatch): Promise<WriteResult>;
  pods(query: PodQuery): Promise<Rows<PodSample>>;
  nodes(query: NodeQuery): Promise<Rows<NodeSample>>;
  pvcs(query: PvcQuery): Promise<Rows<PvcSample>>;
  /** The latest log per container, newest first. */
  logs(query: LogQuery): Promise<Rows<PodLog>>;
  /** One row per event (cluster, namespace, uid, kind, name), as last posted, newest first. */
  events(query: EventQuery): Promise<Rows<KubernetesEvent>>;
  /** Clusters seen since `since`, sorted; limited to `clusters` when given. */
  clusters(since: Date, clusters?: string[]): Promise<string[]>;
  /** Namespaces with pods seen since `since`, sorted. */
  namespaces(since: Date, clusters: string[] | undefined, clusterName?: string): Promise<string[]>;
  /** days = 0: removes every metric; n > 0: removes data older than n days (whole days where the engine partitions). */
  cleanup(days: number, now?: Date): Promise<CleanupResult>;
  /** Creates partitions ahead of `now` and drops those past each resolution's retention. */
  housekeeping(now?: Date): Promise<HousekeepingResult>;
  tableSizes(): Promise<TableSize[]>;
  close(): Promise<void>;
}
