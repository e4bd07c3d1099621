import { allowedLabels, type Owner, type OwnerIndex, ownerOf } from '../cost-fields.js';
import type { CycleContext } from '../cycle-context.js';
import { encodeBody } from '../ingest.js';
import { CACHED, KubeError } from '../kube.js';
import type { Container, ContainerStatus, Pod, PodMetrics } from '../kube-types.js';
import { WorkQueue } from '../limiter.js';
import { parseQuantity, quantityOrNull } from '../quantities.js';
import { collectLogs, type LogTarget } from './logs.js';

/**
 * Where `cpuUsageCores` / `memoryUsageBytes` came from (extra field `usageSource`). The ingest API drops this
 * field, so only a measurement or a plain 0 may reach it while metrics.k8s.io works; estimates are made
 * only while metrics.k8s.io as a whole is unavailable (see `usageFor`).
 */
export type UsageSource =
  | 'metrics' // metrics.k8s.io
  | 'no-sample' // metrics.k8s.io answered but has no sample for this container yet: 0, as the original sent
  | 'estimate-requests' // metrics.k8s.io unavailable: the container's requests
  | 'estimate-node-share' // metrics.k8s.io unavailable, no request: even share of the node's allocatable
  | 'not-running' // the container is not running, so it uses nothing
  | 'unavailable'; // metrics.k8s.io unavailable and nothing to estimate from: 0 is a placeholder

export interface PodMetricPayload {
  clusterName: string;
  namespace: string;
  pod: string;
  container: string;
  cpuUsageCores: number;
  cpuLimitCores: number | null;
  memoryUsageBytes: number;
  memoryLimitBytes: number | null;
  nodeName: string | null;
  /** The original's values only: the phase, or CrashLoopBackOff (what the web client colours). */
  podState: string;
  /** kubectl's STATUS column (Evicted, Terminating, Init:ImagePullBackOff...), an extra field. */
  podStatus: string;
  restartCount: number;
  podAge: number | null;
  usageSource: UsageSource;
  cpuRequestCores: number | null;
  memoryRequestBytes: number | null;
  containerState: string;
  containerRestartCount: number;
}

/** What batched pod records add (cost allocation); one-object posts go without. */
export interface PodBatchFields extends Owner {
  labels: Record<string, string>;
  lastTerminationReason: string | null;
}

/** Per pod, the inputs of the batch-only fields. */
export interface PodCostInputs {
  owners: OwnerIndex | undefined;
  labelsAllowlist: readonly string[];
}

type Usage = { cpu: number; memory: number };
type MetricsByContainer = Map<string, Usage>;

/** Estimate inputs: node allocatable and how many running containers share it (cluster-wide). */
interface NodeShares {
  allocatable: Map<string, Usage>;
  containers: Map<string, number>;
}

const key = (pod: string, container: string): string => `${pod}/${container}`;

const PHASES = new Set(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']);

const crashLooping = (statuses: ContainerStatus[] | undefined): boolean =>
  (statuses ?? []).some((s) => s.state?.waiting?.reason === 'CrashLoopBackOff');

/**
 * `podState` as the web client knows it: the pod phase (Pending, Running, Succeeded, Failed, Unknown), or
 * CrashLoopBackOff while a container of the pod crash-loops. Never Evicted, Terminating or an init reason:
 * those are in `podStatus`.
 */
export function podState(pod: Pod): string {
  if (crashLooping(pod.status?.containerStatuses) || crashLooping(pod.status?.initContainerStatuses)) {
    return 'CrashLoopBackOff';
  }
  const phase = pod.status?.phase;
  return phase && PHASES.has(phase) ? phase : 'Unknown';
}

/** kubectl-style: a container's waiting reason (CrashLoopBackOff, ImagePullBackOff...) beats the phase. */
export function podStatus(pod: Pod): string {
  if (pod.metadata?.deletionTimestamp) return 'Terminating';
  for (const status of pod.status?.initContainerStatuses ?? []) {
    const reason = status.state?.waiting?.reason;
    if (reason && reason !== 'PodInitializing') return `Init:${reason}`;
  }
  for (const status of pod.status?.containerStatuses ?? []) {
    const reason = status.state?.waiting?.reason;
    if (reason) return reason;
  }
  const phase = pod.status?.phase ?? 'Unknown';
  if (phase === 'Failed' && pod.status?.reason) return pod.status.reason;
  return phase;
}

function containerState(status: ContainerStatus | undefined): string {
  if (status?.state?.running) return 'running';
  if (status?.state?.waiting) return `waiting:${status.state.waiting.reason ?? 'unknown'}`;
  if (status?.state?.terminated) return `terminated:${status.state.terminated.reason ?? 'unknown'}`;
  return 'unknown';
}

/** Spec containers, plus init containers while they run (native sidecars), which the original skipped. */
interface Reported {
  spec: Container;
  status: ContainerStatus | undefined;
  init: boolean;
}

function reportedContainers(pod: Pod): Reported[] {
  const statuses = new Map<string, ContainerStatus>();
  for (const s of pod.status?.containerStatuses ?? []) statuses.set(s.name, s);
  const inits = new Map<string, ContainerStatus>();
  for (const s of pod.status?.initContainerStatuses ?? []) inits.set(s.name, s);
  const out: Reported[] = (pod.spec?.containers ?? []).map((spec) => ({
    spec,
    status: statuses.get(spec.name),
    init: false,
  }));
  for (const spec of pod.spec?.initContainers ?? []) {
    const status = inits.get(spec.name);
    if (status?.state?.running) out.push({ spec, status, init: true });
  }
  return out;
}

async function podMetrics(ctx: CycleContext, namespace: string): Promise<MetricsByContainer | undefined> {
  const byContainer: MetricsByContainer = new Map();
  try {
    const path = `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`;
    for (const pm of await ctx.kube.listAll<PodMetrics>(path, ctx.log)) {
      for (const c of pm.containers ?? []) {
        byContainer.set(key(pm.metadata?.name ?? '', c.name), {
          cpu: parseQuantity(c.usage?.['cpu']) ?? 0,
          memory: parseQuantity(c.usage?.['memory']) ?? 0,
        });
      }
    }
    return byContainer;
  } catch (error) {
    const absent = error instanceof KubeError && error.status === 404;
    ctx.log.warn(
      { namespace, err: (error as Error).message },
      absent
        ? 'metrics.k8s.io is not installed; estimating pod usage from requests and node capacity'
        : 'metrics.k8s.io failed; estimating pod usage from requests and node capacity',
    );
    if (!absent) ctx.kubeFailed('metrics.k8s.io pod metrics', error);
    return undefined;
  }
}

/** Only fetched when an estimate needs a node share, i.e. metrics are missing and a container has no request. */
async function nodeShares(ctx: CycleContext): Promise<NodeShares | undefined> {
  try {
    const allocatable = new Map<string, Usage>();
    for (const node of await ctx.nodes()) {
      const source = node.status?.allocatable ?? node.status?.capacity;
      allocatable.set(node.metadata?.name ?? '', {
        cpu: parseQuantity(source?.['cpu']) ?? 0,
        memory: parseQuantity(source?.['memory']) ?? 0,
      });
    }
    const containers = new Map<string, number>();
    await ctx.kube.listEach<Pod>(
      '/api/v1/pods',
      async (pods) => {
        for (const pod of pods) {
          const node = pod.spec?.nodeName;
          if (!node) continue;
          const sidecars = (pod.spec?.initContainers ?? []).filter(
            (c) => c.restartPolicy === 'Always',
          ).length;
          containers.set(node, (containers.get(node) ?? 0) + (pod.spec?.containers?.length ?? 0) + sidecars);
        }
      },
      // Not from the watch cache: it may ignore `limit`, and this list spans the whole cluster.
      { fieldSelector: 'status.phase=Running' },
      ctx.log,
    );
    return { allocatable, containers };
  } catch (error) {
    ctx.kubeFailed('node data for the usage estimate', error);
    return undefined;
  }
}

/**
 * Estimate, used only while metrics.k8s.io as a whole is unavailable (not installed, or failing):
 *   usage = the container's request, else node allocatable / containers of the Running pods on that node
 *   (all namespaces, native sidecars included). CPU and memory are estimated independently.
 * An init container (a native sidecar) never gets a node share: it is usually a small proxy, and an even
 * split of the node would credit it with a regular container's size. Without a request it is `unavailable`.
 */
function estimate(
  { spec, init }: Reported,
  nodeName: string | undefined,
  shares: NodeShares | undefined,
): { usage: Usage; source: UsageSource } {
  const cpuRequest = parseQuantity(spec.resources?.requests?.['cpu']);
  const memoryRequest = parseQuantity(spec.resources?.requests?.['memory']);
  if (cpuRequest !== undefined && memoryRequest !== undefined) {
    return { usage: { cpu: cpuRequest, memory: memoryRequest }, source: 'estimate-requests' };
  }
  const node = nodeName && !init ? shares?.allocatable.get(nodeName) : undefined;
  const count = node && nodeName ? (shares?.containers.get(nodeName) ?? 0) : 0;
  if (!node || count === 0) {
    return { usage: { cpu: cpuRequest ?? 0, memory: memoryRequest ?? 0 }, source: 'unavailable' };
  }
  return {
    usage: { cpu: cpuRequest ?? node.cpu / count, memory: memoryRequest ?? node.memory / count },
    source: 'estimate-node-share',
  };
}

/** The node share is only needed while metrics.k8s.io is unavailable, for a running container without requests. */
export function needsNodeShare(pod: Pod, metrics: MetricsByContainer | undefined): boolean {
  if (metrics !== undefined) return false;
  return reportedContainers(pod).some(
    ({ spec, status, init }) =>
      !init &&
      status?.state?.running !== undefined &&
      (spec.resources?.requests?.['cpu'] === undefined || spec.resources?.requests?.['memory'] === undefined),
  );
}

/**
 * The rule for usage figures:
 * - measured by metrics.k8s.io: sent as measured;
 * - not running: 0 (`not-running`);
 * - metrics.k8s.io answered but has no sample for the container (a pod younger than the scrape interval, a
 *   container that just restarted): 0 with `no-sample`, as the original sent every container without a
 *   sample, never an estimate, because the ingest API cannot tell an estimate from a measurement;
 * - metrics.k8s.io unavailable as a whole: the estimate above.
 */
function usageFor(
  container: Reported,
  podName: string,
  nodeName: string | undefined,
  metrics: MetricsByContainer | undefined,
  shares: NodeShares | undefined,
): { usage: Usage; source: UsageSource } {
  const measured = metrics?.get(key(podName, container.spec.name));
  if (measured) return { usage: measured, source: 'metrics' };
  if (!container.status?.state?.running) return { usage: ZERO, source: 'not-running' };
  if (metrics !== undefined) return { usage: ZERO, source: 'no-sample' };
  return estimate(container, nodeName, shares);
}

const ZERO: Usage = { cpu: 0, memory: 0 };

export function podPayloads(
  pod: Pod,
  clusterName: string,
  now: number,
  metrics: MetricsByContainer | undefined,
  shares: NodeShares | undefined,
  cost?: PodCostInputs,
): Array<PodMetricPayload | (PodMetricPayload & PodBatchFields)> {
  const name = pod.metadata?.name ?? '';
  const created = pod.metadata?.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : Number.NaN;
  const restartCount = (pod.status?.containerStatuses ?? []).reduce(
    (sum, s) => sum + (s.restartCount ?? 0),
    0,
  );
  const state = podState(pod);
  const status = podStatus(pod);
  const nodeName = pod.spec?.nodeName;
  const owner = cost ? ownerOf(pod, cost.owners) : undefined;
  const labels = cost ? allowedLabels(pod, cost.labelsAllowlist) : undefined;
  return reportedContainers(pod).map((container) => {
    const { spec } = container;
    const { usage, source } = usageFor(container, name, nodeName, metrics, shares);
    const payload: PodMetricPayload = {
      clusterName,
      namespace: pod.metadata?.namespace ?? '',
      pod: name,
      container: spec.name,
      cpuUsageCores: usage.cpu,
      // The original fell back to the request here; a limit field now only ever holds a limit.
      cpuLimitCores: quantityOrNull(spec.resources?.limits?.['cpu']),
      memoryUsageBytes: Math.round(usage.memory),
      memoryLimitBytes: quantityOrNull(spec.resources?.limits?.['memory']),
      nodeName: pod.spec?.nodeName ?? null,
      podState: state,
      podStatus: status,
      restartCount,
      podAge: Number.isNaN(created) ? null : Math.max(0, Math.floor((now - created) / 1000)),
      usageSource: source,
      cpuRequestCores: quantityOrNull(spec.resources?.requests?.['cpu']),
      memoryRequestBytes: quantityOrNull(spec.resources?.requests?.['memory']),
      containerState: containerState(container.status),
      containerRestartCount: container.status?.restartCount ?? 0,
    };
    if (!owner || !labels) return payload;
    // Appended last, so taking them off gives back the one-object body byte for byte.
    return {
      ...payload,
      ...owner,
      labels,
      lastTerminationReason: container.status?.lastState?.terminated?.reason ?? null,
    };
  });
}

/**
 * Step 1: one payload per container of every pod in the watched namespaces, and their logs when enabled.
 * Log reads run in their own bounded pool for the whole step, alongside the metric posts of every
 * namespace, so the step takes about as long as the slower of the two rather than their sum.
 */
export async function collectPods(ctx: CycleContext): Promise<void> {
  const logs = new WorkQueue<LogTarget>();
  const reading = ctx.config.collectLogs
    ? logs.drain(ctx.config.logConcurrency, (target) => collectLogs(ctx, target))
    : Promise.resolve();
  // Logs of containers on a NotReady node are not read: its kubelet cannot answer, and each read would
  // hold a read slot until the API server gives up on the kubelet. The original's reads there failed
  // and posted nothing either.
  const notReady = ctx.config.collectLogs ? await ctx.notReadyNodes() : new Set<string>();
  let skipped = 0;
  try {
    await postPodMetrics(ctx, (target, node) => {
      if (!ctx.config.collectLogs) return;
      if (node && notReady.has(node)) skipped++;
      else logs.push(target);
    });
  } finally {
    logs.close();
    await reading;
  }
  if (skipped > 0) ctx.log.debug({ skipped }, 'logs of containers on NotReady nodes not read');
}

/** A PVC-backed volume: a claim, or a generic ephemeral volume (the kubelet reports its PVC like any other). */
export const hasPvcVolume = (pod: Pod): boolean =>
  pod.spec?.volumes?.some((v) => v.persistentVolumeClaim !== undefined || v.ephemeral !== undefined) === true;

/**
 * A page's payloads, encoded at once. While its posts wait for slots, the page's parsed pods (about 1 MB
 * per 200) are no longer referenced, so they die young instead of being promoted and collected again.
 */
function encodePage(
  pods: Pod[],
  namespace: string,
  ctx: CycleContext,
  metrics: MetricsByContainer | undefined,
  shares: NodeShares | undefined,
  onRunning: OnRunning,
  cost: PodCostInputs | undefined,
): Buffer[] {
  const bodies: Buffer[] = [];
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (node && hasPvcVolume(pod)) ctx.pvcNodes.add(node);
    for (const payload of podPayloads(pod, ctx.config.clusterName, ctx.now, metrics, shares, cost)) {
      if (payload.containerState === 'running') {
        onRunning({ namespace, pod: payload.pod, container: payload.container }, node);
      }
      bodies.push(encodeBody(payload));
    }
  }
  return bodies;
}

async function postBodies(ctx: CycleContext, bodies: Buffer[]): Promise<void> {
  for (const body of bodies) {
    if (ctx.stopping || ctx.ingest.down) return;
    await ctx.ingest.send('pod', body);
  }
}

/** Told of each running container, with the node its pod is scheduled on. */
type OnRunning = (target: LogTarget, node: string | undefined) => void;

async function postPodMetrics(ctx: CycleContext, onRunning: OnRunning): Promise<void> {
  let shares: Promise<NodeShares | undefined> | undefined;
  let listed = true;
  for (const namespace of ctx.config.namespaces) {
    if (ctx.stopping) return;
    const owners = ctx.costReads?.ownerIndex(namespace);
    const metrics = await podMetrics(ctx, namespace);
    const cost: PodCostInputs | undefined = ctx.costReads
      ? { owners: await owners, labelsAllowlist: ctx.costReads.labelsAllowlist }
      : undefined;
    try {
      await ctx.kube.listEach<Pod>(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
        // Not an async function: its frame would hold the page while the posts wait.
        (pods) => {
          const encode = (pageShares: NodeShares | undefined): Promise<void> =>
            postBodies(ctx, encodePage(pods, namespace, ctx, metrics, pageShares, onRunning, cost));
          if (!pods.some((pod) => needsNodeShare(pod, metrics))) return encode(undefined);
          shares ??= nodeShares(ctx);
          return shares.then(encode);
        },
        CACHED,
        ctx.log,
        ctx.signal,
      );
    } catch (error) {
      listed = false;
      ctx.kubeFailed(`listing pods in ${namespace}`, error);
    }
  }
  ctx.podsListed = listed && !ctx.stopping;
}
