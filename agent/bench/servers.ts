/**
 * Bench helper process: serves either the fake API server for a large cluster or the ingest sink, so that
 * neither competes with the agent for the bench process's event loop. Prints one JSON line when ready.
 */
import type { CoreEvent, Node, Pod, PodMetrics } from '../src/kube-types.js';
import { startFakeIngest } from '../test/fakes/ingest-server.js';
import { emptyCluster, startFakeKube } from '../test/fakes/kube-server.js';

export const SHAPE = {
  namespaces: 10,
  pods: 2000,
  containersPerPod: 3,
  nodes: 200,
  events: 5000,
  logLines: 100,
  /**
   * Every tenth pod mounts one PVC, declared in its spec and reported through its node's kubelet stats
   * summary: 200 PVCs on 20 of the 200 nodes.
   */
  pvcEvery: 10,
};

function bigCluster() {
  const cluster = emptyCluster();
  const created = new Date(Date.now() - 86_400_000).toISOString();
  const ns = (i: number): string => `team-${i % SHAPE.namespaces}`;
  cluster.nodes = Array.from(
    { length: SHAPE.nodes },
    (_, i): Node => ({
      metadata: {
        name: `node-${i}`,
        uid: `node-uid-${i}`,
        labels: {
          'topology.kubernetes.io/region': 'westeurope',
          'topology.kubernetes.io/zone': `westeurope-${(i % 3) + 1}`,
          'node.kubernetes.io/instance-type': 'Standard_D8s_v5',
          'kubernetes.azure.com/agentpool': 'user',
        },
      },
      spec: { providerID: `azure:///subscriptions/s/resourceGroups/rg/providers/vmss/${i}` },
      status: {
        capacity: { cpu: '8', memory: '32Gi' },
        allocatable: { cpu: '7820m', memory: '28Gi' },
        conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure']
          .map((type) => ({ type, status: 'False' }))
          .concat({
            type: 'Ready',
            status: 'True',
          }),
        nodeInfo: { architecture: 'amd64', operatingSystem: 'linux', kubeletVersion: 'v1.30.4' },
      },
    }),
  );
  const containerNames = Array.from({ length: SHAPE.containersPerPod }, (_, c) => `c${c}`);
  cluster.pods = Array.from(
    { length: SHAPE.pods },
    (_, i): Pod => ({
      metadata: {
        name: `app-${i}-7d9f8c6b5-x${i}`,
        namespace: ns(i),
        uid: `pod-uid-${i}`,
        creationTimestamp: created,
        labels: { app: `app-${i}`, 'pod-template-hash': '7d9f8c6b5' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: `app-${i}-7d9f8c6b5`,
            uid: `rs-uid-${i}`,
            controller: true,
          },
        ],
      },
      spec: {
        nodeName: `node-${i % SHAPE.nodes}`,
        containers: containerNames.map((name) => ({
          name,
          resources: { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
        })),
      },
      status: {
        phase: 'Running',
        containerStatuses: containerNames.map((name) => ({
          name,
          restartCount: 0,
          ready: true,
          state: { running: { startedAt: created } },
        })),
      },
    }),
  );
  for (const [i, pod] of cluster.pods.entries()) {
    if (i % SHAPE.pvcEvery !== 0) continue;
    const nodeName = pod.spec?.nodeName ?? '';
    if (pod.spec) {
      pod.spec.volumes = [
        { name: 'data', persistentVolumeClaim: { claimName: `data-${i}` } },
        { name: 'kube-api-access-x' },
      ];
    }
    cluster.persistentVolumes.push({
      metadata: { name: `pvc-${i}`, uid: `pv-uid-${i}` },
      spec: {
        claimRef: { namespace: pod.metadata?.namespace ?? '', name: `data-${i}` },
        csi: {
          driver: 'disk.csi.azure.com',
          volumeHandle: `/subscriptions/s/resourceGroups/mc_rg/providers/Microsoft.Compute/disks/pvc-${i}`,
        },
      },
    });
    const summary = cluster.volumeStats[nodeName] ?? { pods: [] };
    cluster.volumeStats[nodeName] = summary;
    summary.pods?.push({
      podRef: { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '' },
      volume: [
        { name: 'kube-api-access-x', usedBytes: 12_288, availableBytes: 8e9, capacityBytes: 8e9 },
        {
          name: 'data',
          pvcRef: { name: `data-${i}`, namespace: pod.metadata?.namespace ?? '' },
          usedBytes: 1_234_567_890,
          availableBytes: 9_000_000_000,
          capacityBytes: 10_737_418_240,
        },
      ],
    });
  }
  // One ReplicaSet per pod's Deployment, as the API server lists it (the pod template is most of its size).
  cluster.replicaSets = cluster.pods.map((pod, i) => ({
    metadata: {
      name: `app-${i}-7d9f8c6b5`,
      namespace: pod.metadata?.namespace ?? '',
      uid: `rs-uid-${i}`,
      resourceVersion: `${5000 + i}`,
      creationTimestamp: created,
      labels: { app: `app-${i}`, 'pod-template-hash': '7d9f8c6b5' },
      annotations: {
        'deployment.kubernetes.io/revision': '3',
        'deployment.kubernetes.io/desired-replicas': '1',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: `app-${i}`,
          uid: `deploy-uid-${i}`,
          controller: true,
        },
      ],
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: `app-${i}`, 'pod-template-hash': '7d9f8c6b5' } },
      template: {
        metadata: { labels: { app: `app-${i}`, 'pod-template-hash': '7d9f8c6b5' } },
        spec: {
          containers: containerNames.map((name) => ({
            name,
            image: `registry.example.com/app-${i}/${name}:1.2.3`,
            resources: {
              limits: { cpu: '500m', memory: '512Mi' },
              requests: { cpu: '100m', memory: '128Mi' },
            },
          })),
        },
      },
    },
    status: { replicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 3 },
  })) as never;
  cluster.podMetrics = cluster.pods.map(
    (p): PodMetrics => ({
      metadata: { name: p.metadata?.name ?? '', namespace: p.metadata?.namespace ?? '' },
      containers: containerNames.map((name) => ({ name, usage: { cpu: '12345678n', memory: '81234Ki' } })),
    }),
  );
  cluster.nodeMetrics = cluster.nodes.map((n) => ({
    metadata: { name: n.metadata?.name ?? '' },
    usage: { cpu: '2345m', memory: '12Gi' },
  }));
  cluster.events = Array.from(
    { length: SHAPE.events },
    (_, i): CoreEvent => ({
      metadata: {
        name: `app-${i}.${i.toString(16)}`,
        namespace: ns(i),
        uid: `ev-uid-${i}`,
        resourceVersion: `${1000 + i}`,
      },
      involvedObject: { kind: 'Pod', name: `app-${i}`, namespace: ns(i) },
      reason: i % 5 === 0 ? 'BackOff' : 'Pulled',
      message: 'Container image "registry.example.com/app:1.2.3" already present on machine',
      type: i % 5 === 0 ? 'Warning' : 'Normal',
      source: { component: 'kubelet', host: `node-${i % SHAPE.nodes}` } as CoreEvent['source'],
      count: 1 + (i % 4),
      firstTimestamp: created,
      lastTimestamp: created,
    }),
  );
  const lines = Array.from(
    { length: SHAPE.logLines },
    (_, i) =>
      `2026-01-05T10:00:${String(i % 60).padStart(2, '0')}Z INFO request handled path=/api/items/${i} status=200 ms=12\n`,
  ).join('');
  cluster.logs = () => lines;
  return cluster;
}

const role = process.argv[2];
if (role === 'kube') {
  // TLS and a service-account directory: the agent runs exactly as in a pod.
  const kube = await startFakeKube(bigCluster(), { tls: true });
  // The bench does not need the request log; keeping it would grow this process only.
  kube.requests.push = () => 0;
  console.log(
    JSON.stringify({
      host: kube.host,
      port: String(kube.port),
      serviceAccountDir: kube.serviceAccountDir ?? '',
    }),
  );
} else if (role === 'ingest') {
  const ingest = await startFakeIngest({ validate: false, batch: true });
  ingest.accepted.push = () => 0;
  ingest.attempts.push = () => 0;
  console.log(JSON.stringify({ url: ingest.url }));
} else {
  console.error('usage: servers.ts kube|ingest');
  process.exit(2);
}
