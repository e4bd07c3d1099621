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
