import { afterEach, describe, expect, it } from 'vitest';
import { PAGE_SIZE } from '../src/kube.js';
import { sampleCluster } from './fixtures.js';
import { bodies, type Harness, harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const GiB = 2 ** 30;
const MiB = 2 ** 20;

function podRow(
  rows: Array<Record<string, unknown>>,
  pod: string,
  container: string,
): Record<string, unknown> {
  const row = rows.find((r) => r['pod'] === pod && r['container'] === container);
  if (!row) throw new Error(`no payload for ${pod}/${container}`);
  return row;
}

describe('pod metrics', () => {
  it('posts one contract-valid payload per container, including a running container metrics.k8s.io omits', async () => {
    h = await harness(sampleCluster());
    const summary = await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    const rows = bodies(h.ingest, '/api/metrics/pod');
    expect(rows.map((r) => `${r['namespace']}/${r['pod']}/${r['container']}`).sort()).toEqual([
      'data/db-0/postgres',
      'data/db-0/proxy',
      'shop/crash-1/worker',
      'shop/pending-1/job',
      'shop/web-1/app',
      'shop/web-1/sidecar',
    ]);
    const app = podRow(rows, 'web-1', 'app');
    expect(app).toMatchObject({
      clusterName: 'test-cluster',
      cpuUsageCores: 0.123456789,
      memoryUsageBytes: 100 * MiB,
      cpuLimitCores: 0.5,
      memoryLimitBytes: 512 * MiB,
      cpuRequestCores: 0.25,
      memoryRequestBytes: 256 * MiB,
      nodeName: 'node-a',
      podState: 'Running',
      restartCount: 3,
      usageSource: 'metrics',
    });
    expect(Number.isInteger(app['podAge'])).toBe(true);
    expect(app['podAge']).toBeGreaterThanOrEqual(7265);
    expect(app['podAge']).toBeLessThan(7300);
    // Running but without a sample in a working metrics.k8s.io answer: 0, as the original sent, never an estimate.
    expect(podRow(rows, 'web-1', 'sidecar')).toMatchObject({
      usageSource: 'no-sample',
      cpuUsageCores: 0,
      memoryUsageBytes: 0,
      cpuLimitCores: null,
      memoryLimitBytes: null,
    });
    expect(podRow(rows, 'db-0', 'proxy')).toMatchObject({ usageSource: 'metrics', cpuUsageCores: 0.005 });
    expect(podRow(rows, 'pending-1', 'job')).toMatchObject({
      nodeName: null,
      podState: 'Pending',
      usageSource: 'not-running',
      cpuUsageCores: 0,
      cpuLimitCores: null,
    });
    expect(summary.posted.pod).toBe(6);
    expect(summary.failed).toEqual({ pod: 0, log: 0, node: 0, pvc: 0, event: 0 });
  });

  it('reports a crash-looping container with its waiting reason as podState and a labelled zero', async () => {
    h = await harness(sampleCluster());
    await h.agent.runOnce();
    expect(podRow(bodies(h.ingest, '/api/metrics/pod'), 'crash-1', 'worker')).toMatchObject({
      podState: 'CrashLoopBackOff',
      podStatus: 'CrashLoopBackOff',
      containerState: 'waiting:CrashLoopBackOff',
      restartCount: 7,
      cpuUsageCores: 0,
      memoryUsageBytes: 0,
      usageSource: 'not-running',
      cpuLimitCores: 1,
      memoryLimitBytes: 1e9,
    });
  });

  it('reads metrics.k8s.io only for the watched namespaces', async () => {
    h = await harness(sampleCluster());
    await h.agent.runOnce();
    const metricsPaths = h.kube.requests
      .map((r) => r.path)
      .filter((p) => p.startsWith('/apis/metrics.k8s.io'));
    expect(new Set(metricsPaths)).toEqual(
      new Set([
        '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods',
        '/apis/metrics.k8s.io/v1beta1/namespaces/data/pods',
        '/apis/metrics.k8s.io/v1beta1/nodes',
      ]),
    );
  });

  it('estimates from requests, else a node share, when metrics.k8s.io is not installed', async () => {
    const cluster = sampleCluster();
    cluster.podMetrics = 'absent';
    cluster.nodeMetrics = 'absent';
    h = await harness(cluster);
    const summary = await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    const rows = bodies(h.ingest, '/api/metrics/pod');
    expect(podRow(rows, 'web-1', 'app')).toMatchObject({
      usageSource: 'estimate-requests',
      cpuUsageCores: 0.25,
      memoryUsageBytes: 256 * MiB,
    });
    expect(podRow(rows, 'db-0', 'postgres')).toMatchObject({
      usageSource: 'estimate-requests',
      cpuUsageCores: 2,
      memoryUsageBytes: 4 * GiB,
    });
    // No request: an even share of node-a's allocatable among its 4 running containers (web-1 x2, crash-1,
    // coredns in an unwatched namespace).
    expect(podRow(rows, 'web-1', 'sidecar')).toMatchObject({
      usageSource: 'estimate-node-share',
      cpuUsageCores: 3.92 / 4,
      memoryUsageBytes: (14 * GiB) / 4,
    });
    // A native sidecar (init container) without a request never gets a node share.
    expect(podRow(rows, 'db-0', 'proxy')).toMatchObject({
      usageSource: 'unavailable',
      cpuUsageCores: 0,
      memoryUsageBytes: 0,
    });
    expect(podRow(rows, 'crash-1', 'worker')).toMatchObject({ usageSource: 'not-running', cpuUsageCores: 0 });
    expect(rows.every((r) => r['usageSource'] !== 'metrics')).toBe(true);
    expect(h.logs.some((l) => l.level === 'warn' && l.msg.includes('metrics.k8s.io is not installed'))).toBe(
      true,
    );
    // An absent optional API is a known state, not a failure to count.
    expect(summary.kubeErrors).toBe(0);
    expect(bodies(h.ingest, '/api/metrics/node')).toHaveLength(3);
  });

  it('estimates and counts the failure when metrics.k8s.io answers 503', async () => {
    const cluster = sampleCluster();
    cluster.podMetrics = 'error';
    h = await harness(cluster);
    const summary = await h.agent.runOnce();
    expect(podRow(bodies(h.ingest, '/api/metrics/pod'), 'web-1', 'app')['usageSource']).toBe(
      'estimate-requests',
    );
    expect(summary.kubeErrors).toBe(2);
    expect(summary.posted.pod).toBe(6);
  });
});

describe('node metrics', () => {
  it('reports every node, a NotReady one without metrics included, with boolean conditions', async () => {
    h = await harness(sampleCluster());
    await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    const nodes = bodies(h.ingest, '/api/metrics/node');
    expect(nodes.map((n) => n['nodeName'])).toEqual(['node-a', 'node-b', 'node-c']);
    const [a, b, c] = nodes;
    expect(a).toMatchObject({
      clusterName: 'test-cluster',
      clusterEnvironment: 'DEV',
      cpuUsageCores: 1.25,
      memoryUsageBytes: 6 * GiB,
      cpuCapacityCores: 4,
      memoryCapacityBytes: 16 * GiB,
      kubernetesVersion: 'v1.30.4',
      cloudProvider: 'AKS',
      region: 'westeurope',
      zone: 'westeurope-1',
      instanceType: 'Standard_D4s_v5',
      isReady: true,
      hasMemoryPressure: false,
      hasDiskPressure: false,
      hasPidPressure: false,
      architecture: 'amd64',
      operatingSystem: 'linux',
      usageSource: 'metrics',
    });
    expect(b).toMatchObject({
      cloudProvider: 'EKS',
      region: 'us-east-1',
      zone: 'us-east-1a',
      instanceType: 'm5.large',
      isReady: false,
      hasMemoryPressure: false,
      hasDiskPressure: false,
      hasPidPressure: false,
      cpuUsageCores: 0,
      memoryUsageBytes: 0,
      cpuCapacityCores: 2,
      architecture: 'arm64',
      usageSource: 'unavailable',
    });
    expect(c).toMatchObject({
      cloudProvider: 'GKE',
      region: null,
      instanceType: null,
      hasPidPressure: false,
    });
    for (const n of nodes) {
      for (const field of ['isReady', 'hasMemoryPressure', 'hasDiskPressure', 'hasPidPressure']) {
        expect(typeof n[field]).toBe('boolean');
      }
    }
  });

  it('still reports every node when metrics.k8s.io fails', async () => {
    const cluster = sampleCluster();
    cluster.nodeMetrics = 'error';
    h = await harness(cluster);
    await h.agent.runOnce();
    const nodes = bodies(h.ingest, '/api/metrics/node');
    expect(nodes).toHaveLength(3);
    expect(nodes.every((n) => n['usageSource'] === 'unavailable')).toBe(true);
  });

  it('lists nodes once per cycle even when the pod estimate needs them', async () => {
    const cluster = sampleCluster();
    cluster.podMetrics = 'absent';
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(h.kube.requests.filter((r) => r.path === '/api/v1/nodes')).toHaveLength(1);
  });
});

describe('cycle', () => {
  it('posts pods and their logs, then nodes, then events', async () => {
    h = await harness(sampleCluster(), { COLLECT_LOGS: 'true' });
    await h.agent.runOnce();
    const order = h.ingest.accepted.map((r) =>
      r.path === '/api/metrics/pod/log' ? '/api/metrics/pod' : r.path,
    );
    const phases = order.filter((p, i) => p !== order[i - 1]);
    expect(phases).toEqual(['/api/metrics/pod', '/api/metrics/node', '/api/events']);
  });

  it('pages every list with limit 500 and continue', async () => {
    const cluster = sampleCluster();
    cluster.maxPage = 1;
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    const podLists = h.kube.requests.filter((r) => r.path === '/api/v1/namespaces/shop/pods');
    expect(podLists).toHaveLength(3);
    expect(podLists.every((r) => r.query.get('limit') === String(PAGE_SIZE))).toBe(true);
    expect(podLists.map((r) => r.query.has('continue'))).toEqual([false, true, true]);
    expect(bodies(h.ingest, '/api/metrics/pod')).toHaveLength(6);
    expect(bodies(h.ingest, '/api/metrics/node')).toHaveLength(3);
  });

  it('restarts a list when the continue token has expired (410) without posting twice', async () => {
    const cluster = sampleCluster();
    cluster.maxPage = 1;
    cluster.expireContinue.add('/api/v1/namespaces/shop/pods');
    h = await harness(cluster);
    const summary = await h.agent.runOnce();
    const podLists = h.kube.requests.filter((r) => r.path === '/api/v1/namespaces/shop/pods');
    expect(podLists.map((r) => r.query.has('continue'))).toEqual([false, true, false, true, true]);
    const shop = bodies(h.ingest, '/api/metrics/pod').filter((r) => r['namespace'] === 'shop');
    expect(shop.map((r) => `${r['pod']}/${r['container']}`).sort()).toEqual([
      'crash-1/worker',
      'pending-1/job',
      'web-1/app',
      'web-1/sidecar',
    ]);
    expect(summary.kubeErrors).toBe(0);
  });

  it('restarts a metrics.k8s.io list on 410 and keeps every measured container', async () => {
    const cluster = sampleCluster();
    cluster.maxPage = 1;
    cluster.expireContinue.add('/apis/metrics.k8s.io/v1beta1/namespaces/data/pods');
    // db-0 sits on the second page, so it is only read after the restart.
    if (Array.isArray(cluster.podMetrics)) {
      cluster.podMetrics.unshift({ metadata: { name: 'gone-0', namespace: 'data' }, containers: [] });
    }
    h = await harness(cluster);
    await h.agent.runOnce();
    const rows = bodies(h.ingest, '/api/metrics/pod');
    expect(podRow(rows, 'db-0', 'postgres')).toMatchObject({ usageSource: 'metrics', cpuUsageCores: 1.5 });
  });

  it('logs and counts a 500 from the API server and carries on with the rest of the cycle', async () => {
    const cluster = sampleCluster();
    cluster.failing.add('/api/v1/namespaces/shop/pods');
    cluster.failing.add('/api/v1/namespaces/data/events');
    h = await harness(cluster);
    const summary = await h.agent.runOnce();
    expect(summary.kubeErrors).toBe(2);
    expect(summary.degraded).toBe(false);
    expect(bodies(h.ingest, '/api/metrics/pod').map((r) => r['namespace'])).toEqual(['data', 'data']);
    expect(bodies(h.ingest, '/api/metrics/node')).toHaveLength(3);
    expect(bodies(h.ingest, '/api/events').map((r) => r['eventUid'])).toEqual(['ev-1', 'ev-2']);
    expect(h.logs.some((l) => l.level === 'warn' && l.msg === 'listing pods in shop failed')).toBe(true);
  });

  it('writes one summary line per cycle with posted and failed counts per kind', async () => {
    h = await harness(sampleCluster(), {}, { failing: new Set(['/api/metrics/node']) });
    await h.agent.runOnce();
    const summaries = h.logs.filter((l) => l.msg === 'cycle finished');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({
      level: 'info',
      posted: { pod: 6, log: 0, node: 0, event: 3 },
      failed: { pod: 0, log: 0, node: 3, event: 0 },
    });
    expect(typeof summaries[0]?.['durationMs']).toBe('number');
  });
});

describe('events', () => {
  it('sends events with only eventTime, carrying eventUid and UTC timestamps', async () => {
    h = await harness(sampleCluster());
    await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    const events = bodies(h.ingest, '/api/events');
    expect(events.map((e) => e['eventUid'])).toEqual(['ev-1', 'ev-2', 'ev-3']);
    expect(events[1]).toEqual({
      clusterName: 'test-cluster',
      namespace: 'shop',
      eventName: 'crash-1.17b',
      eventUid: 'ev-2',
      involvedObjectKind: 'Pod',
      involvedObjectName: 'crash-1',
      involvedObjectNamespace: 'shop',
      eventType: 'Warning',
      reason: 'Unhealthy',
      message: 'message of crash-1.17b',
      sourceComponent: 'kubelet',
      count: 5,
      firstTimestamp: '2026-01-05T10:00:00.123Z',
      lastTimestamp: '2026-01-05T10:04:00.654Z',
    });
    expect(events[0]).toMatchObject({ count: 3, eventType: 'Warning', reason: 'BackOff' });
  });

  it('sends an event again only when its resourceVersion changes, whatever the clocks say', async () => {
    const cluster = sampleCluster();
    h = await harness(cluster);
    await h.agent.runOnce();
    await h.agent.runOnce();
    expect(bodies(h.ingest, '/api/events')).toHaveLength(3);

    const ev1 = cluster.events[0];
    if (!ev1?.metadata) throw new Error('fixture');
    // Updated in the same second as before: a timestamp watermark would miss this; resourceVersion does not.
    ev1.metadata.resourceVersion = '200';
    ev1.count = 4;
    cluster.events.push({
      ...structuredClone(ev1),
      metadata: { ...ev1.metadata, uid: 'ev-5', name: 'new.1' },
    });
    await h.agent.runOnce();
    const third = bodies(h.ingest, '/api/events').slice(3);
    expect(third.map((e) => [e['eventUid'], e['count']])).toEqual([
      ['ev-1', 4],
      ['ev-5', 4],
    ]);
  });

  it('resends an event whose post failed on the next cycle', async () => {
    const failing = new Set<'/api/events'>(['/api/events']);
    h = await harness(sampleCluster(), {}, { failing });
    const first = await h.agent.runOnce();
    expect(first.failed.event).toBe(3);
    expect(bodies(h.ingest, '/api/events')).toHaveLength(0);
    failing.clear();
    const second = await h.agent.runOnce();
    expect(second.posted.event).toBe(3);
    await h.agent.runOnce();
    expect(bodies(h.ingest, '/api/events')).toHaveLength(3);
  });

  it('forgets events the API server no longer lists, so memory stays bounded', async () => {
    const cluster = sampleCluster();
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(h.agent.sentEvents.size).toBe(3);
    cluster.events = cluster.events.filter((e) => e.metadata?.uid !== 'ev-1');
    await h.agent.runOnce();
    expect(h.agent.sentEvents.size).toBe(2);
  });
});
