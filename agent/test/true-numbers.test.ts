import { afterEach, describe, expect, it } from 'vitest';
import { podState, podStatus } from '../src/collectors/pods.js';
import type { Pod } from '../src/kube-types.js';
import { ago, node, sampleCluster } from './fixtures.js';
import { bodies, type Harness, harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const row = (h: Harness, pod: string, container: string): Record<string, unknown> | undefined =>
  bodies(h.ingest, '/api/metrics/pod').find((r) => r['pod'] === pod && r['container'] === container);

function newPod(name: string, nodeName: string): Pod {
  return {
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, creationTimestamp: ago(3) },
    spec: {
      nodeName,
      containers: [{ name: 'app', resources: { requests: { cpu: '200m', memory: '128Mi' } } }],
    },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'app', restartCount: 0, state: { running: { startedAt: ago(2) } } }],
    },
  };
}

describe('usage figures are measurements or plain zeros while metrics.k8s.io works', () => {
  it('posts a new pod that metrics-server has not scraped yet with 0, not its requests', async () => {
    const cluster = sampleCluster();
    cluster.pods.push(newPod('fresh-1', 'node-a'));
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    expect(row(h, 'fresh-1', 'app')).toMatchObject({
      cpuUsageCores: 0,
      memoryUsageBytes: 0,
      usageSource: 'no-sample',
      cpuRequestCores: 0.2,
      podState: 'Running',
    });
  });

  it('does not list the cluster-wide pods for a node share while metrics.k8s.io answers', async () => {
    h = await harness(sampleCluster());
    await h.agent.runOnce();
    expect(h.kube.requests.some((r) => r.path === '/api/v1/pods')).toBe(false);
    const sources = bodies(h.ingest, '/api/metrics/pod').map((r) => r['usageSource']);
    expect(sources.filter((s) => String(s).startsWith('estimate'))).toEqual([]);
  });

  it('estimates only in the namespace whose metrics.k8s.io list failed', async () => {
    const cluster = sampleCluster();
    cluster.failing.add('/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods');
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(row(h, 'web-1', 'app')).toMatchObject({ usageSource: 'estimate-requests', cpuUsageCores: 0.25 });
    expect(row(h, 'db-0', 'postgres')).toMatchObject({ usageSource: 'metrics', cpuUsageCores: 1.5 });
  });
});

describe('virtual-kubelet nodes', () => {
  it('skips a node labelled type=virtual-kubelet and one tainted virtual-kubelet.io/provider', async () => {
    const cluster = sampleCluster();
    const aci = node('virtual-node-aci-linux');
    aci.metadata = { name: 'virtual-node-aci-linux', uid: 'uid-aci', labels: { type: 'virtual-kubelet' } };
    aci.status = { ...aci.status, capacity: { cpu: '10k', memory: '4Ti' } };
    const tainted = node('vk-other');
    tainted.spec = { taints: [{ key: 'virtual-kubelet.io/provider', value: 'azure', effect: 'NoSchedule' }] };
    cluster.nodes.push(aci, tainted);
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(bodies(h.ingest, '/api/metrics/node').map((n) => n['nodeName'])).toEqual([
      'node-a',
      'node-b',
      'node-c',
    ]);
  });

  it('gives a pod on a virtual node no share of its placeholder capacity when estimating', async () => {
    const cluster = sampleCluster();
    cluster.podMetrics = 'absent';
    const aci = node('virtual-node-aci-linux');
    aci.metadata = { name: 'virtual-node-aci-linux', uid: 'uid-aci', labels: { type: 'virtual-kubelet' } };
    aci.status = { ...aci.status, allocatable: { cpu: '10k', memory: '4Ti' } };
    cluster.nodes.push(aci);
    const onAci = newPod('burst-1', 'virtual-node-aci-linux');
    onAci.spec = { nodeName: 'virtual-node-aci-linux', containers: [{ name: 'app' }] };
    cluster.pods.push(onAci);
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(row(h, 'burst-1', 'app')).toMatchObject({ usageSource: 'unavailable', cpuUsageCores: 0 });
  });
});

describe('podState keeps the original values', () => {
  const pod = (status: Pod['status'], deleting = false): Pod => ({
    metadata: { name: 'p', ...(deleting ? { deletionTimestamp: ago(1) } : {}) },
    status,
  });

  it('sends Failed for an evicted pod and puts Evicted in podStatus', () => {
    const evicted = pod({ phase: 'Failed', reason: 'Evicted' });
    expect([podState(evicted), podStatus(evicted)]).toEqual(['Failed', 'Evicted']);
  });

  it('sends the phase for a terminating pod and Terminating in podStatus', () => {
    const terminating = pod({ phase: 'Running' }, true);
    expect([podState(terminating), podStatus(terminating)]).toEqual(['Running', 'Terminating']);
  });

  it('sends Pending while init containers run or wait, with the init reason in podStatus', () => {
    const init = pod({
      phase: 'Pending',
      initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'ImagePullBackOff' } } }],
      containerStatuses: [{ name: 'c', state: { waiting: { reason: 'PodInitializing' } } }],
    });
    expect([podState(init), podStatus(init)]).toEqual(['Pending', 'Init:ImagePullBackOff']);
  });

  it('sends CrashLoopBackOff while a container crash-loops, as the web client colours it', () => {
    const crash = pod({
      phase: 'Running',
      containerStatuses: [{ name: 'c', state: { waiting: { reason: 'CrashLoopBackOff' } } }],
    });
    expect(podState(crash)).toBe('CrashLoopBackOff');
  });

  it('sends Unknown for a missing or unrecognised phase', () => {
    expect([podState(pod({})), podState(pod({ phase: 'Weird' }))]).toEqual(['Unknown', 'Unknown']);
  });

  it('sends Running, not ImagePullBackOff, for a running pod whose restarted container cannot pull', () => {
    const pulling = pod({
      phase: 'Running',
      containerStatuses: [{ name: 'c', state: { waiting: { reason: 'ImagePullBackOff' } } }],
    });
    expect([podState(pulling), podStatus(pulling)]).toEqual(['Running', 'ImagePullBackOff']);
  });
});

describe('lists from the API server cache', () => {
  it('asks for resourceVersion=0 on node, pod and event lists, never beside a continue token', async () => {
    const cluster = sampleCluster();
    cluster.maxPage = 1;
    h = await harness(cluster);
    const summary = await h.agent.runOnce();
    expect(summary.kubeErrors).toBe(0);
    const first = (path: string) => h?.kube.requests.find((r) => r.path === path && !r.query.has('continue'));
    for (const path of ['/api/v1/nodes', '/api/v1/namespaces/shop/pods', '/api/v1/namespaces/shop/events']) {
      expect(first(path)?.query.get('resourceVersion')).toBe('0');
    }
    const continued = h.kube.requests.filter((r) => r.query.has('continue'));
    expect(continued.length).toBeGreaterThan(3);
    expect(continued.filter((r) => r.query.has('resourceVersion'))).toEqual([]);
    // metrics.k8s.io has no watch cache.
    const metrics = h.kube.requests.filter((r) => r.path.startsWith('/apis/metrics.k8s.io'));
    expect(metrics.filter((r) => r.query.has('resourceVersion'))).toEqual([]);
    expect(bodies(h.ingest, '/api/metrics/pod')).toHaveLength(6);
  });

  it('handles a cached answer that ignores the limit and comes in one page', async () => {
    const cluster = sampleCluster();
    cluster.maxPage = 1;
    cluster.cacheIgnoresLimit = true;
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(h.kube.requests.filter((r) => r.path === '/api/v1/namespaces/shop/pods')).toHaveLength(1);
    expect(bodies(h.ingest, '/api/metrics/pod')).toHaveLength(6);
    expect(bodies(h.ingest, '/api/metrics/node')).toHaveLength(3);
  });
});
