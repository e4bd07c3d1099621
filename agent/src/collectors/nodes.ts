import type { CycleContext } from '../cycle-context.js';
import { KubeError } from '../kube.js';
import type { Node, NodeMetrics } from '../kube-types.js';
import { parseQuantity, quantityOrNull } from '../quantities.js';

export interface NodeMetricPayload {
  clusterName: string;
  nodeName: string;
  clusterEnvironment: string;
  cpuUsageCores: number;
  cpuCapacityCores: number;
  memoryUsageBytes: number;
  memoryCapacityBytes: number;
  kubernetesVersion: string | null;
  cloudProvider: string;
  isReady: boolean;
  hasMemoryPressure: boolean;
  hasDiskPressure: boolean;
  hasPidPressure: boolean;
  architecture: string | null;
  operatingSystem: string | null;
  region: string | null;
  instanceType: string | null;
  zone: string | null;
  kubeletVersion: string | null;
  /** 'metrics' or 'unavailable' (NotReady nodes usually drop out of metrics.k8s.io). */
  usageSource: 'metrics' | 'unavailable';
}

/** What batched node records add (cost allocation); one-object posts go without. */
export interface NodeBatchFields {
  providerId: string | null;
  nodePool: string | null;
  cpuAllocatableCores: number | null;
  memoryAllocatableBytes: number | null;
}

/** The node pool label of AKS, then those of EKS and GKE. */
const NODE_POOL_LABELS = [
  'kubernetes.azure.com/agentpool',
  'agentpool',
  'eks.amazonaws.com/nodegroup',
  'cloud.google.com/gke-nodepool',
];

/** Per node, from spec.providerID first (authoritative), then the labels each managed service sets. */
export function cloudProvider(node: Node): string {
  const providerId = node.spec?.providerID ?? '';
  if (providerId.startsWith('azure://')) return 'AKS';
  if (providerId.startsWith('aws://')) return 'EKS';
  if (providerId.startsWith('gce://')) return 'GKE';
  const labels = Object.keys(node.metadata?.labels ?? {});
  if (labels.some((l) => l.startsWith('kubernetes.azure.com/'))) return 'AKS';
  if (labels.some((l) => l.startsWith('eks.amazonaws.com/'))) return 'EKS';
  if (labels.some((l) => l.startsWith('cloud.google.com/gke-'))) return 'GKE';
  return 'Other';
}

function label(node: Node, ...keys: string[]): string | null {
  for (const key of keys) {
    const v = node.metadata?.labels?.[key];
    if (v) return v;
  }
  return null;
}

/**
 * Always a boolean: the ingest API notifies on every change of these fields, null<->bool included, so a
 * missing or Unknown condition is reported as false rather than flapping through null.
 */
function condition(node: Node, type: string): boolean {
  return node.status?.conditions?.find((c) => c.type === type)?.status === 'True';
}

export function nodePayload(
  node: Node,
  ctx: { clusterName: string; clusterEnvironment: string; kubernetesVersion: string | null },
  usage: { cpu: number; memory: number } | undefined,
  batchFields = false,
): NodeMetricPayload | (NodeMetricPayload & NodeBatchFields) {
  const info = node.status?.nodeInfo;
  const payload: NodeMetricPayload = {
    clusterName: ctx.clusterName,
    nodeName: node.metadata?.name ?? '',
    clusterEnvironment: ctx.clusterEnvironment,
    cpuUsageCores: usage?.cpu ?? 0,
    cpuCapacityCores: parseQuantity(node.status?.capacity?.['cpu']) ?? 0,
    memoryUsageBytes: Math.round(usage?.memory ?? 0),
    memoryCapacityBytes: parseQuantity(node.status?.capacity?.['memory']) ?? 0,
    kubernetesVersion: ctx.kubernetesVersion,
    cloudProvider: cloudProvider(node),
    isReady: condition(node, 'Ready'),
    hasMemoryPressure: condition(node, 'MemoryPressure'),
    hasDiskPressure: condition(node, 'DiskPressure'),
    hasPidPressure: condition(node, 'PIDPressure'),
    architecture: info?.architecture ?? label(node, 'kubernetes.io/arch', 'beta.kubernetes.io/arch'),
    operatingSystem: info?.operatingSystem ?? label(node, 'kubernetes.io/os', 'beta.kubernetes.io/os'),
    region: label(node, 'topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'),
    instanceType: label(node, 'node.kubernetes.io/instance-type', 'beta.kubernetes.io/instance-type'),
    zone: label(node, 'topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'),
    kubeletVersion: info?.kubeletVersion ?? null,
    usageSource: usage ? 'metrics' : 'unavailable',
  };
  if (!batchFields) return payload;
  // Appended last, so taking them off gives back the one-object body byte for byte.
  return {
    ...payload,
    providerId: node.spec?.providerID || null,
    nodePool: label(node, ...NODE_POOL_LABELS),
    cpuAllocatableCores: quantityOrNull(node.status?.allocatable?.['cpu']),
    memoryAllocatableBytes: quantityOrNull(node.status?.allocatable?.['memory']),
  };
}

/** Step 2: one payload for every node of the node list, with or without metrics. */
export async function collectNodes(ctx: CycleContext): Promise<void> {
  const nodes = await ctx.nodesOrSkip();
  if (!nodes) return;
  let kubernetesVersion: string | null = null;
  try {
    kubernetesVersion = (await ctx.kube.getJson<{ gitVersion?: string }>('/version')).gitVersion ?? null;
  } catch (error) {
    ctx.kubeFailed('reading /version', error);
  }
  const usage = new Map<string, { cpu: number; memory: number }>();
  try {
    for (const m of await ctx.kube.listAll<NodeMetrics>('/apis/metrics.k8s.io/v1beta1/nodes', ctx.log)) {
      usage.set(m.metadata?.name ?? '', {
        cpu: parseQuantity(m.usage?.['cpu']) ?? 0,
        memory: parseQuantity(m.usage?.['memory']) ?? 0,
      });
    }
  } catch (error) {
    if (error instanceof KubeError && error.status === 404) {
      ctx.log.warn(
        'metrics.k8s.io is not installed; node usage is reported as 0 with usageSource=unavailable',
      );
    } else ctx.kubeFailed('metrics.k8s.io node metrics', error);
  }
  const shared = {
    clusterName: ctx.config.clusterName,
    clusterEnvironment: ctx.config.clusterEnvironment,
    kubernetesVersion,
  };
  for (const node of nodes) {
    if (ctx.stopping) return;
    const payload = nodePayload(
      node,
      shared,
      usage.get(node.metadata?.name ?? ''),
      ctx.costReads !== undefined,
    );
    await ctx.ingest.send('node', payload);
  }
}
