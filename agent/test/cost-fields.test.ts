import { afterEach, describe, expect, it } from 'vitest';
import { azureDiskId, type OwnerIndex, ownerOf } from '../src/cost-fields.js';
import type { Pod } from '../src/kube-types.js';
import { AZURE_DISK_ID, costCluster, node } from './fixtures.js';
import { bodies, type Harness, harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const GiB = 2 ** 30;
const BATCH = { INGEST_MODE: 'batch', POD_LABELS_ALLOWLIST: 'team, cost-center' };

function row(rows: Array<Record<string, unknown>>, pod: string, container: string): Record<string, unknown> {
  const found = rows.find((r) => r['pod'] === pod && r['container'] === container);
  if (!found) throw new Error(`no record for ${pod}/${container}`);
  return found;
}

describe('cost-allocation fields of batched records', () => {
  it('names each pod’s workload, its allow-listed labels and its last termination reason', async () => {
    h = await harness(costCluster(), BATCH, { batch: true });
    const summary = await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    expect(summary.kubeErrors).toBe(0);
    const pods = bodies(h.ingest, '/api/metrics/pod');
    // A Deployment's pod, through its ReplicaSet; OOMKilled once.
    expect(row(pods, 'web-1', 'app')).toMatchObject({
      ownerKind: 'Deployment',
      ownerName: 'web',
      labels: { team: 'checkout', 'cost-center': 'cc-42' },
      lastTerminationReason: 'OOMKilled',
      cpuRequestCores: 0.25,
      memoryRequestBytes: 256 * 2 ** 20,
      cpuLimitCores: 0.5,
    });
    expect(row(pods, 'web-1', 'sidecar')).toMatchObject({
      ownerKind: 'Deployment',
      lastTerminationReason: null,
      cpuRequestCores: null,
      memoryRequestBytes: null,
    });
    // A StatefulSet's pod, its native sidecar included.
    expect(row(pods, 'db-0', 'postgres')).toMatchObject({
      ownerKind: 'StatefulSet',
      ownerName: 'db',
      labels: { team: 'data' },
    });
    expect(row(pods, 'db-0', 'proxy')).toMatchObject({ ownerKind: 'StatefulSet', ownerName: 'db' });
    // A CronJob's pod, through its Job.
    expect(row(pods, 'report-28934560-x7k2p', 'report')).toMatchObject({
      ownerKind: 'CronJob',
      ownerName: 'report',
      labels: { team: 'finance' },
      cpuRequestCores: 1,
      memoryRequestBytes: 2 * GiB,
    });
    // Bare pods: no owner, no labels allowed through.
    expect(row(pods, 'crash-1', 'worker')).toMatchObject({ ownerKind: null, ownerName: null, labels: {} });
    expect(row(pods, 'pending-1', 'job')).toMatchObject({ ownerKind: null, ownerName: null });
  });

  it('lists ReplicaSets and Jobs once per namespace and cycle, paged, never one GET per pod', async () => {
    const cluster = costCluster();
    cluster.maxPage = 1;
    h = await harness(cluster, BATCH, { batch: true });
    await h.agent.runOnce();
    const owned = h.kube.requests.filter((r) => /\/(replicasets|jobs)/.test(r.path));
    const shopReplicaSets = owned.filter((r) => r.path === '/apis/apps/v1/namespaces/shop/replicasets');
    // Two ReplicaSets in shop, one per page: a first page and one continue.
    expect(shopReplicaSets.map((r) => r.query.has('continue'))).toEqual([false, true]);
    expect(owned.map((r) => r.path).sort()).toEqual(
      [
        '/apis/apps/v1/namespaces/data/replicasets',
        '/apis/apps/v1/namespaces/shop/replicasets',
        '/apis/apps/v1/namespaces/shop/replicasets',
        '/apis/batch/v1/namespaces/data/jobs',
        '/apis/batch/v1/namespaces/shop/jobs',
      ].sort(),
    );
  });

  it('adds each node’s provider id, pool and allocatable', async () => {
    const cluster = costCluster();
    cluster.nodes.push(
      node('aks-np1-vmss000003', {
        metadata: {
          name: 'aks-np1-vmss000003',
          uid: 'uid-np1-3',
          labels: { agentpool: 'np1', 'kubernetes.azure.com/agentpool': 'np1' },
        },
        spec: {
          providerID:
            'azure:///subscriptions/s/resourceGroups/mc_rg_aks_eastus/providers/Microsoft.Compute/virtualMachineScaleSets/aks-np1-12345678-vmss/virtualMachines/3',
        },
      }),
    );
    h = await harness(cluster, BATCH, { batch: true });
    await h.agent.runOnce();
    const nodes = bodies(h.ingest, '/api/metrics/node');
    expect(nodes.find((n) => n['nodeName'] === 'node-a')).toMatchObject({
      providerId: expect.stringMatching(
        /^azure:\/\/\/subscriptions\/.+\/virtualMachineScaleSets\/aks-system-12345678-vmss\/virtualMachines\/3$/,
      ),
      nodePool: 'system',
      cpuAllocatableCores: 3.92,
      memoryAllocatableBytes: 14 * GiB,
    });
    expect(nodes.find((n) => n['nodeName'] === 'aks-np1-vmss000003')).toMatchObject({ nodePool: 'np1' });
    // An EKS node without allocatable in its status, and a GKE node: their own pool labels.
    expect(nodes.find((n) => n['nodeName'] === 'node-b')).toMatchObject({
      providerId: 'aws:///us-east-1a/i-0abc',
      nodePool: null,
      cpuAllocatableCores: null,
      memoryAllocatableBytes: null,
    });
    expect(nodes.find((n) => n['nodeName'] === 'node-c')).toMatchObject({
      providerId: null,
      nodePool: 'pool-1',
      cpuAllocatableCores: 7.91,
    });
  });

  it('adds the Azure disk resource id behind each PVC', async () => {
    h = await harness(costCluster(), BATCH, { batch: true });
    await h.agent.runOnce();
    expect(bodies(h.ingest, '/api/metrics/pvc')).toEqual([
      expect.objectContaining({ pvcName: 'pgdata-db-0', azureDiskResourceId: AZURE_DISK_ID }),
    ]);
  });

  it('keeps working where RBAC refuses ReplicaSets, Jobs and PersistentVolumes: those fields null, said once', async () => {
    const cluster = costCluster();
    for (const path of [
      '/apis/apps/v1/namespaces/shop/replicasets',
      '/apis/apps/v1/namespaces/data/replicasets',
      '/apis/batch/v1/namespaces/shop/jobs',
      '/apis/batch/v1/namespaces/data/jobs',
      '/api/v1/persistentvolumes',
    ]) {
      cluster.forbidden.add(path);
    }
    h = await harness(cluster, BATCH, { batch: true });
    const first = await h.agent.runOnce();
    const second = await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    expect([first.kubeErrors, second.kubeErrors]).toEqual([0, 0]);
    expect(second.posted.pod).toBe(7);
    const pods = bodies(h.ingest, '/api/metrics/pod');
    expect(row(pods, 'web-1', 'app')).toMatchObject({
      ownerKind: null,
      ownerName: null,
      // What needs no extra permission is still there.
      labels: { team: 'checkout', 'cost-center': 'cc-42' },
      lastTerminationReason: 'OOMKilled',
    });
    expect(row(pods, 'report-28934560-x7k2p', 'report')).toMatchObject({ ownerKind: null });
    // StatefulSet pods need no list to be named.
    expect(row(pods, 'db-0', 'postgres')).toMatchObject({ ownerKind: 'StatefulSet', ownerName: 'db' });
    expect(bodies(h.ingest, '/api/metrics/pvc')[0]).toMatchObject({
      azureDiskResourceId: null,
      usedBytes: 5e9,
    });
    const warnings = h.logs.filter((l) => l.level === 'warn' && /is forbidden/.test(l.msg));
    // One line per refused list (per namespace), in the first cycle only.
    expect(warnings.map((l) => l['resource']).sort()).toEqual([
      'jobs',
      'jobs',
      'persistentvolumes',
      'replicasets',
      'replicasets',
    ]);
  });
});

describe('owner workload of a pod', () => {
  const pod = (kind: string, name: string): Pod => ({
    metadata: { name: 'p', ownerReferences: [{ apiVersion: 'v1', kind, name, controller: true }] },
  });
  const index: OwnerIndex = {
    replicaSets: new Map([
      ['api-7c9d', { kind: 'Deployment', name: 'api' }],
      ['orphan-5f6b', null],
    ]),
    jobs: new Map([['once', null]]),
  };

  it.each([
    [
      'a static pod',
      pod('Node', 'aks-system-vmss000001'),
      { ownerKind: 'Node', ownerName: 'aks-system-vmss000001' },
    ],
    ['a DaemonSet pod', pod('DaemonSet', 'kube-proxy'), { ownerKind: 'DaemonSet', ownerName: 'kube-proxy' }],
    [
      'a ReplicaSet without Deployment',
      pod('ReplicaSet', 'orphan-5f6b'),
      { ownerKind: 'ReplicaSet', ownerName: 'orphan-5f6b' },
    ],
    ['a Job without CronJob', pod('Job', 'once'), { ownerKind: 'Job', ownerName: 'once' }],
    [
      'a ReplicaSet created after the list',
      pod('ReplicaSet', 'api-new1'),
      { ownerKind: null, ownerName: null },
    ],
    ['an Argo Rollout-style controller', pod('Rollout', 'web'), { ownerKind: 'Rollout', ownerName: 'web' }],
  ])('names %s', (_, p, expected) => {
    expect(ownerOf(p, index)).toEqual(expected);
  });

  it('ignores owner references that are not the controller', () => {
    const p: Pod = { metadata: { ownerReferences: [{ kind: 'ConfigMap', name: 'x', controller: false }] } };
    expect(ownerOf(p, index)).toEqual({ ownerKind: null, ownerName: null });
  });

  it('takes the disk of an in-tree azureDisk volume too, and no other driver', () => {
    const uri = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/disks/old-disk';
    expect(azureDiskId({ spec: { azureDisk: { diskName: 'old-disk', diskURI: uri } } })).toBe(uri);
    expect(
      azureDiskId({ spec: { csi: { driver: 'file.csi.azure.com', volumeHandle: 'rg#acc#share' } } }),
    ).toBe(null);
  });
});
