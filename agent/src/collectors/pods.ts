import type { CycleContext } from '../cycle-context.js';
import { KubeError } from '../kube.js';
import type { Container, ContainerStatus, Pod, PodMetrics } from '../kube-types.js';
import { WorkQueue } from '../limiter.js';
import { parseQuantity, quantityOrNull } from '../quantities.js';
import { collectLogs, type LogTarget } from './logs.js';

/**
 * Where `cpuUsageCores` / `memoryUsageBytes` came from (extra field `usageSource`; the ingest API ignores
 * unknown fields). Never a silent zero: a zero is either measured or says the container is not running.
 */
export type UsageSource =
  | 'metrics' // metrics.k8s.io
  | 'estimate-requests' // metrics unavailable: the container's requests
  | 'estimate-node-share' // metrics unavailable, no request: even share of the node's allocatable
  | 'not-running' // the container is not running, so it uses nothing
  | 'unavailable'; // running, no metrics, no request and no node data: 0 is a placeholder

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
  podState: string;
  restartCount: number;
  podAge: number | null;
  usageSource: UsageSource;
  cpuRequestCores: number | null;
  memoryRequestBytes: number | null;
  containerState: string;
  containerRestartCount: number;
}

type Usage = { cpu: number; memory: number };
type MetricsByContainer = Map<string, Usage>;

/** Estimate inputs: node allocatable and how many running containers share it (cluster-wide). */
interface NodeShares {
  allocatable: Map<string, Usage>;
  containers: Map<string, number>;
}

const key = (pod: string, container: string): string => `${pod}/${container}`;

/** kubectl-style: a container's waiting reason (CrashLoopBackOff, ImagePullBackOff...) beats the phase. */
export function podState(pod: Pod): string {
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
function reportedContainers(pod: Pod): Array<{ spec: Container; status: ContainerStatus | undefined }> {
  const statuses = new Map<string, ContainerStatus>();
  for (const s of pod.status?.containerStatuses ?? []) statuses.set(s.name, s);
  const inits = new Map<string, ContainerStatus>();
  for (const s of pod.status?.initContainerStatuses ?? []) inits.set(s.name, s);
  const out = (pod.spec?.containers ?? []).map((spec) => ({ spec, status: statuses.get(spec.name) }));
  for (const spec of pod.spec?.initContainers ?? []) {
    const status = inits.get(spec.name);
    if (status?.state?.running) out.push({ spec, status });
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
 * Estimate when metrics.k8s.io has no figure for a running container:
 *   usage = the container's request, else node allocatable / containers of the Running pods on that node
 *   (all namespaces, native sidecars included).
 * CPU and memory are estimated independently with the same rule.
 */
function estimate(
  spec: Container,
  nodeName: string | undefined,
  shares: NodeShares | undefined,
): { usage: Usage; source: UsageSource } {
  const cpuRequest = parseQuantity(spec.resources?.requests?.['cpu']);
  const memoryRequest = parseQuantity(spec.resources?.requests?.['memory']);
  if (cpuRequest !== undefined && memoryRequest !== undefined) {
    return { usage: { cpu: cpuRequest, memory: memoryRequest }, source: 'estimate-requests' };
  }
  const node = nodeName ? shares?.allocatable.get(nodeName) : undefined;
  const count = nodeName ? (shares?.containers.get(nodeName) ?? 0) : 0;
  if (!node || count === 0) {
    return { usage: { cpu: cpuRequest ?? 0, memory: memoryRequest ?? 0 }, source: 'unavailable' };
  }
  return {
    usage: { cpu: cpuRequest ?? node.cpu / count, memory: memoryRequest ?? node.memory / count },
    source: 'estimate-node-share',
  };
}

export function needsNodeShare(pod: Pod, metrics: MetricsByContainer | undefined): boolean {
  return reportedContainers(pod).some(
    ({ spec, status }) =>
      status?.state?.running !== undefined &&
      !metrics?.has(key(pod.metadata?.name ?? '', spec.name)) &&
      (spec.resources?.requests?.['cpu'] === undefined || spec.resources?.requests?.['memory'] === undefined),
  );
}

export function podPayloads(
  pod: Pod,
  clusterName: string,
  now: number,
  metrics: MetricsByContainer | undefined,
  shares: NodeShares | undefined,
): PodMetricPayload[] {
  const name = pod.metadata?.name ?? '';
  const created = pod.metadata?.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : Number.NaN;
  const restartCount = (pod.status?.containerStatuses ?? []).reduce(
    (sum, s) => sum + (s.restartCount ?? 0),
    0,
  );
  const state = podState(pod);
  return reportedContainers(pod).map(({ spec, status }) => {
    const measured = metrics?.get(key(name, spec.name));
    let usage: Usage;
    let source: UsageSource;
    if (measured) {
      usage = measured;
      source = 'metrics';
    } else if (!status?.state?.running) {
      usage = { cpu: 0, memory: 0 };
      source = 'not-running';
    } else {
      ({ usage, source } = estimate(spec, pod.spec?.nodeName, shares));
    }
    return {
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
      restartCount,
      podAge: Number.isNaN(created) ? null : Math.max(0, Math.floor((now - created) / 1000)),
      usageSource: source,
      cpuRequestCores: quantityOrNull(spec.resources?.requests?.['cpu']),
      memoryRequestBytes: quantityOrNull(spec.resources?.requests?.['memory']),
      containerState: containerState(status),
      containerRestartCount: status?.restartCount ?? 0,
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
  try {
    await postPodMetrics(ctx, (target) => {
      if (ctx.config.collectLogs) logs.push(target);
    });
  } finally {
    logs.close();
    await reading;
  }
}

async function postPodMetrics(ctx: CycleContext, onRunning: (target: LogTarget) => void): Promise<void> {
  let shares: Promise<NodeShares | undefined> | undefined;
  for (const namespace of ctx.config.namespaces) {
    if (ctx.stopping) return;
    const metrics = await podMetrics(ctx, namespace);
    try {
      await ctx.kube.listEach<Pod>(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
        async (pods) => {
          const needShares = metrics === undefined || pods.some((pod) => needsNodeShare(pod, metrics));
          if (needShares) shares ??= nodeShares(ctx);
          const pageShares = needShares ? await shares : undefined;
          for (const pod of pods) {
            for (const payload of podPayloads(pod, ctx.config.clusterName, ctx.now, metrics, pageShares)) {
              if (ctx.stopping) return;
              if (payload.containerState === 'running') {
                onRunning({ namespace, pod: payload.pod, container: payload.container });
              }
              await ctx.ingest.send('pod', payload);
            }
          }
        },
        {},
        ctx.log,
        ctx.signal,
      );
    } catch (error) {
      ctx.kubeFailed(`listing pods in ${namespace}`, error);
    }
  }
}
