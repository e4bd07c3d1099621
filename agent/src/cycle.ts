import { collectEvents, type SentEvents } from './collectors/events.js';
import { collectNodes } from './collectors/nodes.js';
import { collectPods } from './collectors/pods.js';
import { collectPvcs } from './collectors/pvc.js';
import type { AgentConfig } from './config.js';
import { CycleContext } from './cycle-context.js';
import type { Counts, IngestClient } from './ingest.js';
import type { KubeClient } from './kube.js';
import type { Logger } from './logger.js';

export interface CycleSummary {
  durationMs: number;
  posted: Counts;
  failed: Counts;
  kubeErrors: number;
  logReadErrors: number;
  /** Milliseconds per step, posts included. */
  steps: Record<string, number>;
  /** The API server could not be reached: the loop backs off. */
  degraded: boolean;
  /** The ingest API could not be reached: the loop probes it again after one interval, without back-off. */
  ingestDown: boolean;
}

/**
 * One collection cycle in the original agent's order. Each step waits for its own posts before the next starts, so
 * the ingest API sees pods (and logs), then nodes, then PVC usage (the original's fourth collector), then
 * events.
 */
export async function runCycle(
  config: AgentConfig,
  kube: KubeClient,
  ingest: IngestClient,
  sentEvents: SentEvents,
  log: Logger,
  signal: AbortSignal,
): Promise<CycleSummary> {
  const started = Date.now();
  ingest.takeStats();
  const ctx = new CycleContext(config, kube, ingest, log, signal, started);
  // Nothing read from the API server (pods, logs, events) could be posted: the whole cycle waits for the
  // ingest API, and one cheap GET per interval notices its return.
  if (!(await ingest.reachable())) {
    const stats = ingest.takeStats();
    const summary: CycleSummary = {
      durationMs: Date.now() - started,
      posted: stats.posted,
      failed: stats.failed,
      kubeErrors: 0,
      logReadErrors: 0,
      steps: {},
      degraded: false,
      ingestDown: true,
    };
    log.warn(summary, 'ingest API unreachable; cycle skipped, nothing read from Kubernetes');
    return summary;
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
    if (signal.aborted || ingest.down) break;
    const stepStarted = Date.now();
    try {
      await step();
    } catch (error) {
      // Collectors handle their own API errors; this is a bug guard so one step cannot end the loop.
      ctx.kubeErrors++;
      log.error({ step: name, err: error }, 'collection step failed');
    }
    await ingest.flush();
    durations[name] = Date.now() - stepStarted;
  }
  const stats = ingest.takeStats();
  const summary: CycleSummary = {
    durationMs: Date.now() - started,
    posted: stats.posted,
    failed: stats.failed,
    kubeErrors: ctx.kubeErrors,
    logReadErrors: ctx.logReadErrors,
    steps: durations,
    degraded: ctx.kubeUnreachable,
    ingestDown: stats.down,
  };
  log.info(summary, 'cycle finished');
  return summary;
}
