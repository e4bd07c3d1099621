import type { SentLogs } from './collectors/logs.js';
import type { AgentConfig } from './config.js';
import type { CostFieldReads } from './cost-fields.js';
import type { PayloadSink } from './ingest.js';
import { type KubeClient, KubeError } from './kube.js';
import type { Node } from './kube-types.js';
import type { Logger } from './logger.js';
import { isVirtualNode } from './virtual-nodes.js';

/** The node's Ready condition is True. */
export const isReadyNode = (node: Node): boolean =>
  node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** What one cycle shares between its steps: clients, the per-cycle node list, and its failure tally. */
export class CycleContext {
  kubeErrors = 0;
  kubeUnreachable = false;
  logReadErrors = 0;
  /**
   * Nodes running a pod of a watched namespace that declares a PVC-backed volume, gathered by the pods step;
   * the PVC step reads only these nodes' stats summaries.
   */
  readonly pvcNodes = new Set<string>();
  /** Set once every watched namespace's pods were listed in full; until then `pvcNodes` may miss nodes. */
  podsListed = false;
  private nodeList: Promise<Node[]> | undefined;
  /** Batch mode only: the reads behind the cost-allocation fields. */
  costReads: CostFieldReads | undefined;
  /** Batch mode only: the logs already delivered, so unchanged ones are not sent again (collectLogs). */
  sentLogs: SentLogs | undefined;
  /** Logs read but not sent this cycle because they had not changed. */
  logsUnchanged = 0;

  constructor(
    readonly config: AgentConfig,
    readonly kube: KubeClient,
    /** Where payloads go: one-object posts or batches. */
    readonly ingest: PayloadSink,
    readonly log: Logger,
    readonly signal: AbortSignal,
    readonly now: number = Date.now(),
  ) {}

  /**
   * The node list without virtual-kubelet nodes, fetched at most once per cycle whichever step needs it
   * first. No step wants a virtual node: not the node posts, the estimate or the PVC stats.
   */
  nodes(): Promise<Node[]> {
    this.nodeList ??= this.kube.listAll<Node>('/api/v1/nodes', this.log, true).then((all) => {
      const real = all.filter((node) => !isVirtualNode(node));
      if (real.length < all.length)
        this.log.debug({ skipped: all.length - real.length }, 'virtual nodes skipped');
      return real;
    });
    return this.nodeList;
  }

  /** The node list for a step that cannot go on without it: undefined (logged and counted) when it fails. */
  async nodesOrSkip(): Promise<Node[] | undefined> {
    try {
      return await this.nodes();
    } catch (error) {
      this.kubeFailed('listing nodes', error);
      return undefined;
    }
  }

  /**
   * Names of the nodes whose Ready condition is not True. A NotReady node's kubelet does not answer: the
   * API server's proxy waits up to its kubelet timeout before failing a read there. Empty when the node
   * list cannot be read (then nothing is skipped).
   */
  async notReadyNodes(): Promise<Set<string>> {
    const nodes = await this.nodes().catch(() => []);
    return new Set(nodes.filter((node) => !isReadyNode(node)).map((node) => node.metadata?.name ?? ''));
  }

  /** Logs and counts a failed Kubernetes call; the cycle goes on. */
  kubeFailed(what: string, error: unknown): void {
    this.kubeErrors++;
    if (error instanceof KubeError && error.unreachable) this.kubeUnreachable = true;
    this.log.warn({ err: (error as Error).message }, `${what} failed`);
  }

  /** Log reads fail routinely (a container restarting between list and read): counted, logged at debug. */
  logReadFailed(target: { namespace: string; pod: string; container: string }, error: unknown): void {
    this.logReadErrors++;
    if (error instanceof KubeError && error.unreachable) this.kubeUnreachable = true;
    this.log.debug({ ...target, err: (error as Error).message }, 'reading container log failed');
  }

  get stopping(): boolean {
    return this.signal.aborted;
  }
}
