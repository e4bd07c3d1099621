import { afterEach, describe, expect, it } from 'vitest';
import type { StatsSummary } from '../src/collectors/pvc.js';
import type { Pod, Volume } from '../src/kube-types.js';
import { node, sampleCluster } from './fixtures.js';
import { bodies, type Harness, harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const pvc = (name: string, claimName: string): Volume => ({ name, persistentVolumeClaim: { claimName } });
const projected: Volume = { name: 'kube-api-access-abcde' };

function declare(pod: Pod | undefined, ...volumes: Volume[]): void {
  if (!pod?.spec) throw new Error('fixture pod missing');
  pod.spec.volumes = volumes;
}

const podNamed = (pods: Pod[], name: string): Pod | undefined => pods.find((p) => p.metadata?.name === name);

function runningPod(name: string, namespace: string, nodeName: string, volumes: Volume[]): Pod {
  return {
    metadata: { name, namespace, uid: `pod-${name}`, creationTimestamp: new Date().toISOString() },
    spec: { nodeName, containers: [{ name: 'app' }], volumes },
    status: { phase: 'Running', containerStatuses: [{ name: 'app', state: { running: {} } }] },
  };
}

const proxiedPaths = (harnessed: Harness): string[] =>
  harnessed.kube.requests
    .filter((r) => r.path.includes('/proxy/'))
    .map((r) => r.path)
    .sort();

/**
 * Shaped like a kubelet's /stats/summary: PVC-backed, projected and emptyDir volumes side by side. The pods
 * that mount a PVC declare it in their spec, as a real pod does.
 */
function clusterWithVolumes() {
  const cluster = sampleCluster();
  declare(podNamed(cluster.pods, 'web-1'), pvc('uploads', 'uploads'), projected);
  declare(podNamed(cluster.pods, 'db-0'), pvc('pgdata', 'pgdata-db-0'), projected, { name: 'scratch' });
  const dbOnC: StatsSummary = {
    pods: [
      {
        podRef: { name: 'db-0', namespace: 'data' },
        volume: [
          {
            name: 'pgdata',
            pvcRef: { name: 'pgdata-db-0', namespace: 'data' },
            usedBytes: 5_368_709_120,
            availableBytes: 48_318_382_080,
            capacityBytes: 53_687_091_200,
          },
          { name: 'kube-api-access-abcde', usedBytes: 12_288, availableBytes: 8e9, capacityBytes: 8e9 },
          { name: 'scratch', usedBytes: 4096 },
        ],
      },
      {
        podRef: { name: 'prometheus-0', namespace: 'monitoring' },
        volume: [{ name: 'tsdb', pvcRef: { name: 'tsdb', namespace: 'monitoring' }, usedBytes: 1 }],
      },
    ],
  };
  const webOnA: StatsSummary = {
    pods: [
      {
        podRef: { name: 'web-1', namespace: 'shop' },
        // A volume still being measured: the kubelet leaves the figures out.
        volume: [{ name: 'uploads', pvcRef: { name: 'uploads', namespace: 'shop' } }],
      },
    ],
  };
  cluster.volumeStats = { 'node-c': dbOnC, 'node-a': webOnA };
  return cluster;
}

describe('PVC metrics', () => {
  it('posts one PvcMetricRequest per PVC-backed volume of a watched namespace, in bytes', async () => {
    h = await harness(clusterWithVolumes());
    const summary = await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    const rows = bodies(h.ingest, '/api/metrics/pvc');
    expect(rows).toEqual([
      {
        clusterName: 'test-cluster',
        namespace: 'shop',
        pod: 'web-1',
        pvcNamespace: 'shop',
        pvcName: 'uploads',
        volumeName: 'uploads',
        usedBytes: 0,
        availableBytes: 0,
        capacityBytes: 0,
      },
      {
        clusterName: 'test-cluster',
        namespace: 'data',
        pod: 'db-0',
        pvcNamespace: 'data',
        pvcName: 'pgdata-db-0',
        volumeName: 'pgdata',
        usedBytes: 5_368_709_120,
        availableBytes: 48_318_382_080,
        capacityBytes: 53_687_091_200,
      },
    ]);
    expect(summary.posted.pvc).toBe(2);
    expect(summary.kubeErrors).toBe(0);
  });

  it('reads the summary of each Ready node running a PVC pod through the API server node proxy', async () => {
    h = await harness(clusterWithVolumes());
    await h.agent.runOnce();
    expect(proxiedPaths(h)).toEqual([
      '/api/v1/nodes/node-a/proxy/stats/summary',
      '/api/v1/nodes/node-c/proxy/stats/summary',
    ]);
  });

  it('does not ask a node whose watched pods declare no PVC-backed volume', async () => {
    const cluster = clusterWithVolumes();
    declare(podNamed(cluster.pods, 'web-1'), projected, { name: 'cache' });
    // A PVC pod outside the watched namespaces does not make its node worth asking.
    cluster.nodes.push(node('node-d'));
    cluster.pods.push(runningPod('prometheus-0', 'monitoring', 'node-d', [pvc('tsdb', 'tsdb')]));
    h = await harness(cluster);
    const summary = await h.agent.runOnce();
    expect(proxiedPaths(h)).toEqual(['/api/v1/nodes/node-c/proxy/stats/summary']);
    expect(bodies(h.ingest, '/api/metrics/pvc').map((r) => r['pvcName'])).toEqual(['pgdata-db-0']);
    expect(summary.kubeErrors).toBe(0);
  });

  it('asks the node of a pod with a generic ephemeral volume, whose PVC the kubelet reports', async () => {
    const cluster = clusterWithVolumes();
    cluster.nodes.push(node('node-d'));
    const ephemeral: Volume = {
      name: 'work',
      ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'] } } },
    };
    cluster.pods.push(runningPod('batch-1', 'shop', 'node-d', [ephemeral]));
    cluster.volumeStats['node-d'] = {
      pods: [
        {
          podRef: { name: 'batch-1', namespace: 'shop' },
          volume: [{ name: 'work', pvcRef: { name: 'batch-1-work', namespace: 'shop' }, usedBytes: 7 }],
        },
      ],
    };
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(proxiedPaths(h)).toContain('/api/v1/nodes/node-d/proxy/stats/summary');
    expect(bodies(h.ingest, '/api/metrics/pvc').find((r) => r['pvcName'] === 'batch-1-work')).toMatchObject({
      namespace: 'shop',
      pod: 'batch-1',
      volumeName: 'work',
      usedBytes: 7,
    });
  });

  it('asks every Ready node, not NotReady node-b, when a watched namespace could not be listed', async () => {
    const cluster = clusterWithVolumes();
    cluster.failing.add('/api/v1/namespaces/shop/pods');
    cluster.nodes.push(node('node-d'));
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(proxiedPaths(h)).toEqual([
      '/api/v1/nodes/node-a/proxy/stats/summary',
      '/api/v1/nodes/node-c/proxy/stats/summary',
      '/api/v1/nodes/node-d/proxy/stats/summary',
    ]);
  });

  it('posts to the original path under the route prefix', async () => {
    h = await harness(clusterWithVolumes());
    await h.agent.runOnce();
    expect(h.ingest.attempts.filter((a) => a.path === '/api/metrics/pvc')).toHaveLength(2);
  });

  it('reads no node summary with COLLECT_PVC_METRICS=false', async () => {
    h = await harness(clusterWithVolumes(), { COLLECT_PVC_METRICS: 'false' });
    const summary = await h.agent.runOnce();
    expect(h.kube.requests.filter((r) => r.path.includes('/proxy/'))).toEqual([]);
    expect(summary.posted.pvc).toBe(0);
  });

  it('counts a node whose kubelet does not answer and still posts the others', async () => {
    const cluster = clusterWithVolumes();
    cluster.failing.add('/api/v1/nodes/node-a/proxy/stats/summary');
    h = await harness(cluster);
    const summary = await h.agent.runOnce();
    expect(bodies(h.ingest, '/api/metrics/pvc').map((r) => r['pvcName'])).toEqual(['pgdata-db-0']);
    expect(summary.kubeErrors).toBe(1);
  });

  it('does not proxy to a virtual-kubelet node', async () => {
    const cluster = clusterWithVolumes();
    const aci = node('virtual-node-aci-linux');
    aci.metadata = { name: 'virtual-node-aci-linux', uid: 'uid-aci', labels: { type: 'virtual-kubelet' } };
    cluster.nodes.push(aci);
    cluster.pods.push(runningPod('aci-job', 'shop', 'virtual-node-aci-linux', [pvc('data', 'aci-data')]));
    h = await harness(cluster);
    await h.agent.runOnce();
    expect(h.kube.requests.some((r) => r.path.includes('virtual-node-aci-linux'))).toBe(false);
  });
});
