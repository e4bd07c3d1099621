import { collectEvents, type SentEvents } from './collectors/events.js';
import type { SentLogs } from './collectors/logs.js';
import { collectNodes } from './collectors/nodes.js';
import { collectPods } from './collectors/pods.js';
import { collectPvcs } from './collectors/pvc.js';
import type { AgentConfig } from './config.js';
import { CostFieldReads, type Refusals } from './cost-fields.js';
import { CycleContext } from './cycle-context.js';
import type { Delivery, DeliveryReport } from './delivery.js';
import type { Counts } from './ingest.js';
import type { KubeClient } from './kube.js';
import type { Logger } from './logger.js';

export interface CycleSummary {
  durationMs: number;
  /** Payloads the ingest API accepted this cycle (records of batches, or one-object posts), by kind. */
  posted: Counts;
  /** Payloads that failed or, in batches, were dropped (refused, or pushed out of the buffer), by kind. */
  failed: Counts;
  kubeErrors: number;
  logReadErrors: number;
  /** Batches: logs read but not sent, unchanged since they were last delivered. */
  logsUnchanged: number;
  /** Milliseconds per step, posts included. */
  steps: Record<string, number>;
  /** The API server could not be reached: the loop backs off. */
  degraded: boolean;
  /** The ingest API could not be reached: the loop probes it again after one interval, without back-off. */
  ingestDown: boolean;
  /** `batch` or `single`, and in batch mode what the outbox holds and has dropped. */
  ingest: Omit<DeliveryReport, 'posted' | 'failed' | 'down'>;
}

/** What a cycle needs from the agent that outlives it. */
export interface CycleParts {
  config: AgentConfig;
  kube: KubeClient;
  delivery: Delivery;
  sentEvents: SentEvents;
  /** Batches only: the logs delivered, so unchanged ones are not sent again. */
  sentLogs?: SentLogs;
  refusals: Refusals;
  log: Logger;
}

function summarise(
  started: number,
  report: DeliveryReport,
  ctx: CycleContext | undefined,
  steps: Record<string, number>,
): CycleSummary {
  const { posted, failed, down, ...ingest } = report;
  return {
    durationMs: Date.now() - started,
    posted,
    failed,
    kubeErrors: ctx?.kubeErrors ?? 0,
    logReadErrors: ctx?.logReadErrors ?? 0,
    logsUnchanged: ctx?.logsUnchanged ?? 0,
    steps,
    degraded: ctx?.kubeUnreachable ?? false,
    ingestDown: ctx === undefined || down,
    ingest,
  };
}

/**
 * One collection cycle: pods (and logs), then nodes, then PVC usage, then events. With one-object posts,
 * each step waits for its own posts before the next starts, so the ingest API sees the steps in that order.
 * With batches, records of every step share batches, which leave as they fill.
 */
export async function runCycle(parts: CycleParts, signal: AbortSignal): Promise<CycleSummary> {
  const { config, kube, delivery, sentEvents, log } = parts;
  const started = Date.now();
  const mode = delivery.cycleMode();
  const sink = delivery.begin(mode);
  // One-object posts: nothing read from the API server (pods, logs, events) could be posted while the
  // ingest API is down, so the whole cycle waits for it, and one cheap GET per interval notices its return.
  // Batches do not wait: the outbox keeps them across an outage.
  if (mode === 'single' && !(await delivery.ingest.reachable())) {
    const summary = summarise(started, await delivery.end(sink, mode), undefined, {});
    log.warn(summary, 'ingest API unreachable; cycle skipped, nothing read from Kubernetes');
    return summary;
  }
  const ctx = new CycleContext(config, kube, sink, log, signal, started);
  if (mode === 'batch') {
    ctx.sentLogs = parts.sentLogs;
    ctx.costReads = new CostFieldReads(
      kube,
      log,
      parts.refusals,
      config.podLabelsAllowlist,
      (what, error) => ctx.kubeFailed(what, error),
      signal,
    );
  }
  try {
    await kube.refreshCredentials();
  } catch (error) {
    ctx.kubeFailed('refreshing Kubernetes credentials', error);
  }
  const steps: Array<[string, () => Promise<void>]> = [
    ['pods', () => collectPods(ctx)],
    ['nodes', () => collectNodes(ctx)],
    ['pvc', () => collectPvcs(ctx)],
    ['events', () => collectEvents(ctx, sentEvents)],
  ];
  const durations: Record<string, number> = {};
  for (const [name, step] of steps) {
    if (signal.aborted || sink.down) break;
    const stepStarted = Date.now();
    try {
      await step();
    } catch (error) {
      // Collectors handle their own API errors; this is a bug guard so one step cannot end the loop.
      ctx.kubeErrors++;
      log.error({ step: name, err: error }, 'collection step failed');
    }
    await sink.flush();
    durations[name] = Date.now() - stepStarted;
  }
  const summary = summarise(started, await delivery.end(sink, mode), ctx, durations);
  log.info(summary, 'cycle finished');
  return summary;
}
