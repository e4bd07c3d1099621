import { type KubeClient, KubeError } from './kube.js';
import type { OwnedObject, OwnerReference, PersistentVolume, Pod } from './kube-types.js';
import type { Logger } from './logger.js';

/**
 * The fields batched records carry for Kubernetes cost allocation: who owns a pod (its workload), the
 * allow-listed pod labels, and which Azure disk backs a PVC. They need reads the one-object payloads do not
 * (ReplicaSets, Jobs, PersistentVolumes), made once per cycle and only in batch mode. Where RBAC refuses one
 * of them (403), the fields it feeds are null and the agent says so once.
 */

export interface Owner {
  ownerKind: string | null;
  ownerName: string | null;
}

/** Per namespace: each ReplicaSet's and Job's controller (null when it has none). */
export interface OwnerIndex {
  replicaSets: Map<string, OwnerReference | null> | undefined;
  jobs: Map<string, OwnerReference | null> | undefined;
}

const NO_OWNER: Owner = { ownerKind: null, ownerName: null };

const controllerOf = (meta: { ownerReferences?: OwnerReference[] } | undefined): OwnerReference | undefined =>
  meta?.ownerReferences?.find((ref) => ref.controller === true);

/**
 * The workload a pod belongs to: a ReplicaSet's Deployment, a Job's CronJob, else its controller as it is
 * (StatefulSet, DaemonSet, Job, a ReplicaSet without Deployment, Node for a static pod). A bare pod has
 * none; so has a pod whose ReplicaSet or Job could not be read (not listed yet, or refused).
 */
export function ownerOf(pod: Pod, index: OwnerIndex | undefined): Owner {
  const ref = controllerOf(pod.metadata);
  if (!ref) return NO_OWNER;
  const parents = ref.kind === 'ReplicaSet' ? index?.replicaSets : ref.kind === 'Job' ? index?.jobs : null;
  if (parents === null) return { ownerKind: ref.kind, ownerName: ref.name };
  const parent = parents?.get(ref.name);
  if (parent === undefined) return NO_OWNER;
  return parent
    ? { ownerKind: parent.kind, ownerName: parent.name }
    : { ownerKind: ref.kind, ownerName: ref.name };
}

/** The pod's labels whose keys are allow-listed; `*` allows every key (as kube-state-metrics does). */
export function allowedLabels(pod: Pod, allowlist: readonly string[]): Record<string, string> {
  const labels = pod.metadata?.labels ?? {};
  if (allowlist.includes('*')) return { ...labels };
  const out: Record<string, string> = {};
  for (const key of allowlist) {
    const value = labels[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** The Azure managed disk behind a PV: the CSI driver's volume handle, or the in-tree plugin's disk URI. */
export function azureDiskId(pv: PersistentVolume): string | null {
  const csi = pv.spec?.csi;
  if (csi?.driver === 'disk.csi.azure.com' && csi.volumeHandle) return csi.volumeHandle;
  return pv.spec?.azureDisk?.diskURI ?? null;
}

/** What the lists are called in the one warning line, and which fields go null without them. */
const LISTS = {
  replicasets: 'ownerKind/ownerName of pods of ReplicaSets',
  jobs: 'ownerKind/ownerName of pods of Jobs',
  persistentvolumes: 'azureDiskResourceId of PVCs',
} as const;

/** The lists (paths) RBAC refused, kept across cycles so each refusal is logged once. */
export type Refusals = Set<string>;

/** One cycle's reads for the cost-allocation fields, each made at most once. */
export class CostFieldReads {
  private readonly owners = new Map<string, Promise<OwnerIndex>>();
  private disks: Promise<Map<string, string> | undefined> | undefined;

  constructor(
    private readonly kube: KubeClient,
    private readonly log: Logger,
    private readonly refusals: Refusals,
    readonly labelsAllowlist: readonly string[],
    private readonly kubeFailed: (what: string, error: unknown) => void,
    private readonly signal?: AbortSignal,
  ) {}

  /** The namespace's ReplicaSets and Jobs, listed once per cycle (paged). */
  ownerIndex(namespace: string): Promise<OwnerIndex> {
    let index = this.owners.get(namespace);
    if (!index) {
      const ns = encodeURIComponent(namespace);
      index = Promise.all([
        this.controllers(`/apis/apps/v1/namespaces/${ns}/replicasets`, 'replicasets'),
        this.controllers(`/apis/batch/v1/namespaces/${ns}/jobs`, 'jobs'),
      ]).then(([replicaSets, jobs]) => ({ replicaSets, jobs }));
      this.owners.set(namespace, index);
    }
    return index;
  }

  /** PVC (namespace/name) to Azure disk resource id, from one PersistentVolume list per cycle. */
  diskIds(): Promise<Map<string, string> | undefined> {
    this.disks ??= this.list<PersistentVolume>(
      '/api/v1/persistentvolumes',
      'persistentvolumes',
      (pvs, out) => {
        for (const pv of pvs) {
          const claim = pv.spec?.claimRef;
          const id = azureDiskId(pv);
          if (claim?.name && id) out.set(`${claim.namespace ?? ''}/${claim.name}`, id);
        }
      },
    );
    return this.disks;
  }

  private controllers(
    path: string,
    what: 'replicasets' | 'jobs',
  ): Promise<Map<string, OwnerReference | null> | undefined> {
    return this.list<OwnedObject, OwnerReference | null>(path, what, (items, out) => {
      // Only names and controllers are kept: a ReplicaSet's pod template is most of its size.
      for (const item of items) {
        const name = item.metadata?.name;
        if (!name) continue;
        const ref = controllerOf(item.metadata);
        out.set(name, ref ? { kind: ref.kind, name: ref.name } : null);
      }
    });
  }

  private async list<T extends { metadata?: { name?: string } }, V = string>(
    path: string,
    what: keyof typeof LISTS,
    take: (items: T[], out: Map<string, V>) => void,
  ): Promise<Map<string, V> | undefined> {
    const out = new Map<string, V>();
    try {
      // Paged from etcd, not from the watch cache: an API server answering from its cache may ignore `limit`,
      // and a namespace keeps ten old ReplicaSets per Deployment, each with its pod template.
      await this.kube.listEach<T>(path, async (items) => take(items, out), {}, this.log, this.signal);
      if (this.refusals.delete(path)) this.log.info({ resource: what, path }, `${what} readable again`);
      return out;
    } catch (error) {
      if (error instanceof KubeError && error.status === 403) {
        if (!this.refusals.has(path)) {
          this.refusals.add(path);
          this.log.warn(
            { resource: what, path, status: 403 },
            `listing ${what} is forbidden: ${LISTS[what]} are sent as null (grant list on ${what} to enable them)`,
          );
        }
      } else this.kubeFailed(`listing ${what}`, error);
      return undefined;
    }
  }
}
