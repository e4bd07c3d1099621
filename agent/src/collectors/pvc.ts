import { type CycleContext, isReadyNode } from '../cycle-context.js';
import type { Node } from '../kube-types.js';

/** The ingest API's PvcMetricRequest: byte counts are ulong there, so whole and never negative. */
export interface PvcMetricPayload {
  clusterName: string;
  /** The namespace of the pod that mounts the volume. */
  namespace: string;
  pod: string;
  pvcNamespace: string;
  pvcName: string;
  /** The volume's name in the pod spec. */
  volumeName: string | null;
  usedBytes: number;
  availableBytes: number;
  capacityBytes: number;
}

/** The slice of the kubelet's /stats/summary the agent reads (kubelet stats API, `summary` package). */
export interface StatsSummary {
  pods?: Array<{
    podRef?: { name?: string; namespace?: string };
    volume?: Array<{
      name?: string;
      pvcRef?: { name?: string; namespace?: string };
      usedBytes?: number;
      availableBytes?: number;
      capacityBytes?: number;
    }>;
  }>;
}

/** Node summaries fetched at once: each is a few hundred KB on a busy node, and each passes the API server. */
const NODE_CONCURRENCY = 4;

const bytes = (n: number | undefined): number =>
  Number.isFinite(n) && (n ?? 0) > 0 ? Math.floor(n ?? 0) : 0;

/**
 * One payload per PVC-backed volume of a pod in a watched namespace. A figure the kubelet leaves out is 0,
 * as the original sent it (the ingest columns are not nullable).
 */
export function pvcPayloads(
  summary: StatsSummary,
  clusterName: string,
  watched: ReadonlySet<string>,
  /** Batch mode: PVC (namespace/name) to its Azure disk; null when PersistentVolumes cannot be read. */
  diskIds?: Map<string, string> | null,
): Array<PvcMetricPayload | (PvcMetricPayload & { azureDiskResourceId: string | null })> {
  const out: Array<PvcMetricPayload | (PvcMetricPayload & { azureDiskResourceId: string | null })> = [];
  for (const pod of summary.pods ?? []) {
    const namespace = pod.podRef?.namespace ?? '';
    if (!watched.has(namespace)) continue;
    for (const volume of pod.volume ?? []) {
      if (!volume.pvcRef) continue;
      const payload: PvcMetricPayload = {
        clusterName,
        namespace,
        pod: pod.podRef?.name ?? '',
        pvcNamespace: volume.pvcRef.namespace ?? '',
        pvcName: volume.pvcRef.name ?? '',
        volumeName: volume.name ?? null,
        usedBytes: bytes(volume.usedBytes),
        availableBytes: bytes(volume.availableBytes),
        capacityBytes: bytes(volume.capacityBytes),
      };
      out.push(
        diskIds === undefined
          ? payload
          : {
              ...payload,
              azureDiskResourceId: diskIds?.get(`${payload.pvcNamespace}/${payload.pvcName}`) ?? null,
            },
      );
    }
  }
  return out;
}

async function collectNode(
  ctx: CycleContext,
  node: Node,
  watched: ReadonlySet<string>,
  diskIds: Map<string, string> | null | undefined,
): Promise<void> {
  const name = node.metadata?.name;
  if (!name) return;
  let summary: StatsSummary;
  try {
    summary = await ctx.kube.getJson<StatsSummary>(
      `/api/v1/nodes/${encodeURIComponent(name)}/proxy/stats/summary`,
    );
  } catch (error) {
    ctx.kubeFailed(`reading volume stats of node ${name}`, error);
    return;
  }
  for (const payload of pvcPayloads(summary, ctx.config.clusterName, watched, diskIds)) {
    if (ctx.stopping || ctx.ingest.down) return;
    await ctx.ingest.send('pvc', payload);
  }
}

/**
 * PVC usage from each kubelet's stats summary, read through the API server's node proxy (RBAC: get on
 * nodes/proxy), as the original did. Off with COLLECT_PVC_METRICS=false, which lets the manifest drop that
 * permission.
 */
export async function collectPvcs(ctx: CycleContext): Promise<void> {
  if (!ctx.config.collectPvc) return;
  const nodes = await ctx.nodesOrSkip();
  if (!nodes) return;
  const watched = new Set(ctx.config.namespaces);
  // A NotReady node's kubelet does not answer, and the API server's proxy may wait its full dial timeout
  // before saying so; asking it each cycle would hold up the step and count an error every time.
  // Summaries are hundreds of KB on busy nodes, each through the API server's proxy: only a node running a
  // pod that declares a PVC-backed volume can report one. Without a full pod listing this cycle, every Ready
  // node is read, as the original did, so no volume goes unreported.
  const queue = nodes.filter(
    (node) => isReadyNode(node) && (!ctx.podsListed || ctx.pvcNodes.has(node.metadata?.name ?? '')),
  );
  // Batch mode only: which Azure disk backs each claim, from one PersistentVolume list (null if refused).
  const diskIds = ctx.costReads && queue.length > 0 ? ((await ctx.costReads.diskIds()) ?? null) : undefined;
  const worker = async (): Promise<void> => {
    for (let node = queue.shift(); node; node = queue.shift()) {
      if (ctx.stopping || ctx.ingest.down) return;
      await collectNode(ctx, node, watched, diskIds);
    }
  };
  await Promise.all(Array.from({ length: NODE_CONCURRENCY }, worker));
}
