import type { CoreEvent, Node, Pod } from '../src/kube-types.js';
import { emptyCluster, type FakeCluster } from './fakes/kube-server.js';

export const NOW = Date.now();
export const ago = (seconds: number): string => new Date(NOW - seconds * 1000).toISOString();

const running = { running: { startedAt: ago(3600) } };

export function node(name: string, extra: Partial<Node> & { ready?: string } = {}): Node {
  const { ready = 'True', ...rest } = extra;
  return {
    metadata: { name, uid: `uid-${name}`, labels: {} },
    spec: {},
    status: {
      capacity: { cpu: '4', memory: '16Gi' },
      allocatable: { cpu: '3920m', memory: '14Gi' },
      conditions: [
        { type: 'MemoryPressure', status: 'False' },
        { type: 'DiskPressure', status: 'False' },
        { type: 'PIDPressure', status: 'False' },
        { type: 'Ready', status: ready },
      ],
      nodeInfo: { architecture: 'amd64', operatingSystem: 'linux', kubeletVersion: 'v1.30.4' },
    },
    ...rest,
  };
}

/** A small but nasty cluster: sidecar without metrics, crash loop, pending pod, native sidecar, NotReady node. */
export function sampleCluster(): FakeCluster {
  const cluster = emptyCluster();
  cluster.nodes = [
    node('node-a', {
      metadata: {
        name: 'node-a',
        uid: 'uid-node-a',
        labels: {
          'topology.kubernetes.io/region': 'westeurope',
          'topology.kubernetes.io/zone': 'westeurope-1',
          'node.kubernetes.io/instance-type': 'Standard_D4s_v5',
          'kubernetes.azure.com/agentpool': 'system',
        },
      },
      spec: { providerID: 'azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/vm/0' },
    }),
    {
      ...node('node-b'),
      metadata: {
        name: 'node-b',
        uid: 'uid-node-b',
        labels: {
          'failure-domain.beta.kubernetes.io/region': 'us-east-1',
          'failure-domain.beta.kubernetes.io/zone': 'us-east-1a',
          'beta.kubernetes.io/instance-type': 'm5.large',
        },
      },
      spec: { providerID: 'aws:///us-east-1a/i-0abc' },
      status: {
        capacity: { cpu: '2', memory: '8Gi' },
        conditions: [
          { type: 'MemoryPressure', status: 'Unknown' },
          { type: 'DiskPressure', status: 'Unknown' },
          { type: 'PIDPressure', status: 'Unknown' },
          { type: 'Ready', status: 'Unknown' },
        ],
        nodeInfo: { architecture: 'arm64', operatingSystem: 'linux' },
      },
    },
    {
      ...node('node-c'),
      metadata: { name: 'node-c', uid: 'uid-node-c', labels: { 'cloud.google.com/gke-nodepool': 'pool-1' } },
      status: {
        capacity: { cpu: '8', memory: '32Gi' },
        allocatable: { cpu: '7910m', memory: '29Gi' },
        conditions: [{ type: 'Ready', status: 'True' }],
        nodeInfo: { architecture: 'amd64', operatingSystem: 'linux' },
      },
    },
  ];
  const pods: Pod[] = [
    {
      metadata: { name: 'web-1', namespace: 'shop', uid: 'pod-web-1', creationTimestamp: ago(7265.4) },
      spec: {
        nodeName: 'node-a',
        containers: [
          {
            name: 'app',
            resources: {
              limits: { cpu: '500m', memory: '512Mi' },
              requests: { cpu: '250m', memory: '256Mi' },
            },
          },
          { name: 'sidecar' },
        ],
      },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'app', restartCount: 1, state: running },
          { name: 'sidecar', restartCount: 2, state: running },
        ],
      },
    },
    {
      metadata: { name: 'crash-1', namespace: 'shop', uid: 'pod-crash-1', creationTimestamp: ago(600) },
      spec: {
        nodeName: 'node-a',
        containers: [{ name: 'worker', resources: { limits: { cpu: '1', memory: '1G' } } }],
      },
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'worker',
            restartCount: 7,
            state: {
              waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' },
            },
          },
        ],
      },
    },
    {
      metadata: { name: 'pending-1', namespace: 'shop', uid: 'pod-pending-1', creationTimestamp: ago(5) },
      spec: { containers: [{ name: 'job', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
      status: { phase: 'Pending' },
    },
    {
      metadata: { name: 'db-0', namespace: 'data', uid: 'pod-db-0', creationTimestamp: ago(86_400) },
      spec: {
        nodeName: 'node-c',
        initContainers: [{ name: 'init-schema' }, { name: 'proxy', restartPolicy: 'Always' }],
        containers: [{ name: 'postgres', resources: { requests: { cpu: '2', memory: '4Gi' } } }],
      },
      status: {
        phase: 'Running',
        initContainerStatuses: [
          {
            name: 'init-schema',
            restartCount: 0,
            state: { terminated: { reason: 'Completed', exitCode: 0 } },
          },
          { name: 'proxy', restartCount: 0, state: running },
        ],
        containerStatuses: [{ name: 'postgres', restartCount: 0, state: running }],
      },
    },
    {
      metadata: {
        name: 'coredns-1',
        namespace: 'kube-system',
        uid: 'pod-coredns',
        creationTimestamp: ago(9999),
      },
      spec: { nodeName: 'node-a', containers: [{ name: 'coredns' }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'coredns', restartCount: 0, state: running }] },
    },
  ];
  cluster.pods = pods;
  cluster.podMetrics = [
    {
      metadata: { name: 'web-1', namespace: 'shop' },
      containers: [{ name: 'app', usage: { cpu: '123456789n', memory: '100Mi' } }],
    },
    {
      metadata: { name: 'db-0', namespace: 'data' },
      containers: [
        { name: 'postgres', usage: { cpu: '1500m', memory: '3Gi' } },
        { name: 'proxy', usage: { cpu: '5m', memory: '20Mi' } },
      ],
    },
  ];
  cluster.nodeMetrics = [
    { metadata: { name: 'node-a' }, usage: { cpu: '1250m', memory: '6Gi' } },
    { metadata: { name: 'node-c' }, usage: { cpu: '2', memory: '10Gi' } },
  ];
  cluster.events = [
    event('shop', 'web-1.17a', 'ev-1', '100', {
      firstTimestamp: ago(120),
      lastTimestamp: ago(60),
      count: 3,
      reason: 'BackOff',
      type: 'Warning',
    }),
    event('shop', 'crash-1.17b', 'ev-2', '101', {
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: '2026-01-05T10:00:00.123456Z',
      series: { count: 5, lastObservedTime: '2026-01-05T10:04:00.654321Z' },
      reportingComponent: 'kubelet',
      reason: 'Unhealthy',
      type: 'Warning',
    }),
    event('data', 'db-0.17c', 'ev-3', '102', {
      firstTimestamp: ago(30),
      lastTimestamp: ago(30),
      reason: 'Pulled',
    }),
    event('kube-system', 'coredns.17d', 'ev-4', '103', { firstTimestamp: ago(30), reason: 'Started' }),
  ];
  cluster.logs = (_ns, pod, container) =>
    Array.from({ length: 500 }, (_, i) => `${pod}/${container} line ${i + 1}`).join('\n') + '\n';
  return cluster;
}

export function event(
  namespace: string,
  name: string,
  uid: string,
  resourceVersion: string,
  extra: Partial<CoreEvent>,
): CoreEvent {
  return {
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp: ago(120) },
    involvedObject: { kind: 'Pod', name: name.split('.')[0] ?? name, namespace },
    message: `message of ${name}`,
    type: 'Normal',
    source: { component: 'kubelet' },
    count: 1,
    ...extra,
  };
}

const SUB = '/subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333';

/** A controller reference as the API server writes it. */
function controlledBy(
  apiVersion: string,
  kind: string,
  name: string,
): NonNullable<Pod['metadata']>['ownerReferences'] {
  return [
    {
      apiVersion,
      kind,
      name,
      uid: `uid-${kind}-${name}`,
      controller: true,
      blockOwnerDeletion: true,
    } as never,
  ];
}

/**
 * sampleCluster with the objects behind the cost-allocation fields: web-1 belongs to Deployment web through
 * ReplicaSet web-6d4cf56db6 (and its app container was OOMKilled once), db-0 to StatefulSet db with an Azure
 * disk PVC, a CronJob's Job pod, crash-1 and pending-1 bare, an AKS node with its pool and allocatable.
 */
export function costCluster(): FakeCluster {
  const cluster = sampleCluster();
  const byName = (name: string): Pod => cluster.pods.find((p) => p.metadata?.name === name) as Pod;
  const web = byName('web-1');
  web.metadata = {
    ...web.metadata,
    labels: { app: 'web', team: 'checkout', 'pod-template-hash': '6d4cf56db6', 'cost-center': 'cc-42' },
    ownerReferences: controlledBy('apps/v1', 'ReplicaSet', 'web-6d4cf56db6'),
  };
  const app = web.status?.containerStatuses?.[0];
  if (app) {
    app.lastState = {
      terminated: { reason: 'OOMKilled', exitCode: 137 },
    };
  }
  const db = byName('db-0');
  db.metadata = {
    ...db.metadata,
    labels: { app: 'db', team: 'data', 'apps.kubernetes.io/pod-index': '0' },
    ownerReferences: controlledBy('apps/v1', 'StatefulSet', 'db'),
  };
  if (db.spec) db.spec.volumes = [{ name: 'pgdata', persistentVolumeClaim: { claimName: 'pgdata-db-0' } }];
  cluster.pods.push({
    metadata: {
      name: 'report-28934560-x7k2p',
      namespace: 'shop',
      uid: 'pod-report',
      creationTimestamp: ago(300),
      labels: { 'batch.kubernetes.io/job-name': 'report-28934560', team: 'finance' },
      ownerReferences: controlledBy('batch/v1', 'Job', 'report-28934560'),
    },
    spec: {
      nodeName: 'node-a',
      containers: [{ name: 'report', resources: { requests: { cpu: '1', memory: '2Gi' } } }],
    },
    status: {
      phase: 'Succeeded',
      containerStatuses: [
        { name: 'report', restartCount: 0, state: { terminated: { reason: 'Completed', exitCode: 0 } } },
      ],
    },
  });
  cluster.replicaSets = [
    {
      metadata: {
        name: 'web-6d4cf56db6',
        namespace: 'shop',
        uid: 'uid-rs-web',
        labels: { app: 'web', 'pod-template-hash': '6d4cf56db6' },
        ownerReferences: controlledBy('apps/v1', 'Deployment', 'web'),
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web', 'pod-template-hash': '6d4cf56db6' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'web:1.4.2' }] },
        },
      },
      status: { replicas: 1, readyReplicas: 1 },
    } as never,
    // An old revision of the same Deployment, scaled to 0: listed too, never the owner of a pod here.
    {
      metadata: {
        name: 'web-5b8c7d9f4',
        namespace: 'shop',
        uid: 'uid-rs-web-old',
        ownerReferences: controlledBy('apps/v1', 'Deployment', 'web'),
      },
      spec: { replicas: 0 },
      status: { replicas: 0 },
    } as never,
  ];
  cluster.jobs = [
    {
      metadata: {
        name: 'report-28934560',
        namespace: 'shop',
        uid: 'uid-job-report',
        labels: { 'batch.kubernetes.io/job-name': 'report-28934560' },
        ownerReferences: controlledBy('batch/v1', 'CronJob', 'report'),
      },
      spec: { completions: 1, parallelism: 1, backoffLimit: 6 },
      status: { succeeded: 1 },
    } as never,
  ];
  const diskId = `${SUB}/resourceGroups/mc_rg_aks_eastus/providers/Microsoft.Compute/disks/pvc-3f1c2a9e-5d7b-4c1e-9a8f-0d2e4b6c8a10`;
  cluster.persistentVolumes = [
    {
      metadata: { name: 'pvc-3f1c2a9e-5d7b-4c1e-9a8f-0d2e4b6c8a10', uid: 'uid-pv-1' },
      spec: {
        capacity: { storage: '32Gi' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'data', name: 'pgdata-db-0', uid: 'uid-pvc-1' },
        csi: { driver: 'disk.csi.azure.com', volumeHandle: diskId, fsType: 'ext4' },
        storageClassName: 'managed-csi',
      },
      status: { phase: 'Bound' },
    } as never,
    {
      metadata: { name: 'pv-files', uid: 'uid-pv-2' },
      spec: {
        claimRef: { namespace: 'data', name: 'shared-files' },
        csi: { driver: 'file.csi.azure.com', volumeHandle: 'rg#account#share' },
      },
    } as never,
  ];
  cluster.volumeStats = {
    'node-c': {
      pods: [
        {
          podRef: { name: 'db-0', namespace: 'data' },
          volume: [
            {
              name: 'pgdata',
              pvcRef: { name: 'pgdata-db-0', namespace: 'data' },
              usedBytes: 5_000_000_000,
              availableBytes: 29_000_000_000,
              capacityBytes: 34_359_738_368,
            },
          ],
        },
      ],
    },
  };
  const nodeA = cluster.nodes[0];
  if (nodeA?.spec) {
    nodeA.spec.providerID = `azure://${SUB}/resourceGroups/mc_rg_aks_eastus/providers/Microsoft.Compute/virtualMachineScaleSets/aks-system-12345678-vmss/virtualMachines/3`;
  }
  return cluster;
}

export const AZURE_DISK_ID = `${SUB}/resourceGroups/mc_rg_aks_eastus/providers/Microsoft.Compute/disks/pvc-3f1c2a9e-5d7b-4c1e-9a8f-0d2e4b6c8a10`;
