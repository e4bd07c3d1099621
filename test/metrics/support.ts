import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Settings } from '../../shared/config/index.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { createUser, type TestUser } from '../support/users.js';

export interface MetricsHost {
  host: TestHost;
  api: ReturnType<typeof apiClient>;
  admin: TestUser;
  /** A user with no cluster assigned. */
  user: TestUser;
  close(): Promise<void>;
}

/** A test host with an administrator and a plain user; timers off. */
export async function startMetricsHost(settings: Settings = {}): Promise<MetricsHost> {
  const host = await startTestHost({ settings, queueWorker: false, notifier: false, metricsTimer: false });
  const admin = await createUser(host.services.prisma, true);
  const user = await createUser(host.services.prisma, false);
  return { host, api: apiClient(host.url), admin, user, close: () => host.close() };
}

/** Makes an ingest key through the route, as an administrator would. */
export async function makeKey(m: MetricsHost, clusterName: string): Promise<{ id: number; key: string }> {
  const res = await m.api.post('/metrics/api/IngestKeys', { token: m.admin.token, json: { clusterName } });
  if (res.status !== 201) throw new Error(`key creation answered ${res.status}: ${res.text}`);
  return res.body;
}

export function podData(cluster: string, i = 0, extra: Record<string, unknown> = {}) {
  return {
    ClusterName: cluster,
    Namespace: 'web',
    Pod: `api-${i}`,
    Container: 'api',
    CpuUsageCores: 0.25,
    CpuLimitCores: 0.5,
    MemoryUsageBytes: 157286400,
    MemoryLimitBytes: 536870912,
    NodeName: 'node-a',
    PodState: 'Running',
    RestartCount: 1,
    PodAge: 86400,
    ...extra,
  };
}

export function nodeData(cluster: string, node = 'node-a', extra: Record<string, unknown> = {}) {
  return {
    clusterName: cluster,
    clusterEnvironment: 'PROD',
    nodeName: node,
    cpuUsageCores: 0.4,
    cpuCapacityCores: 4,
    memoryUsageBytes: 6123456789,
    memoryCapacityBytes: 16777216000,
    kubernetesVersion: 'v1.30.5',
    cloudProvider: 'AKS',
    isReady: true,
    hasMemoryPressure: false,
    hasDiskPressure: false,
    hasPidPressure: null,
    architecture: 'amd64',
    operatingSystem: 'linux',
    region: 'eastus',
    instanceType: 'Standard_D4s_v5',
    ...extra,
  };
}

export function pvcData(cluster: string, extra: Record<string, unknown> = {}) {
  return {
    clusterName: cluster,
    namespace: 'web',
    pod: 'db-0',
    pvcNamespace: 'web',
    pvcName: 'data-db-0',
    volumeName: 'pvc-123',
    usedBytes: 1000,
    availableBytes: 9000,
    capacityBytes: 10000,
    ...extra,
  };
}

export function eventData(cluster: string, extra: Record<string, unknown> = {}) {
  return {
    clusterName: cluster,
    namespace: 'web',
    eventName: 'api-0.17a',
    eventUid: 'uid-1',
    involvedObjectKind: 'Pod',
    involvedObjectName: 'api-0',
    involvedObjectNamespace: 'web',
    eventType: 'Warning',
    reason: 'BackOff',
    message: 'Back-off restarting failed container',
    sourceComponent: 'kubelet',
    count: 3,
    firstTimestamp: '2026-01-13T10:00:00Z',
    lastTimestamp: new Date().toISOString(),
    ...extra,
  };
}

export function logData(cluster: string, extra: Record<string, unknown> = {}) {
  return {
    clusterName: cluster,
    namespace: 'web',
    pod: 'api-0',
    container: 'api',
    logContent: 'line 1\nline 2',
    ...extra,
  };
}

export interface BatchRecord {
  kind: string;
  collectedAt?: string;
  data: Record<string, unknown>;
}

export function batch(cluster: string, records: BatchRecord[], batchId = randomUUID()) {
  return {
    batchId,
    clusterName: cluster,
    records: records.map((r) => ({ collectedAt: new Date().toISOString(), ...r })),
  };
}

/** POSTs a batch gzip-compressed with raw fetch (the test client sends strings only). */
export async function postGzip(
  url: string,
  body: unknown,
  key?: string,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/metrics/api/ingest/batch`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: gzipSync(Buffer.from(JSON.stringify(body))),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
