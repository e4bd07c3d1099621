import type { CycleContext } from '../cycle-context.js';

export interface LogTarget {
  namespace: string;
  pod: string;
  container: string;
}

export interface PodLogPayload {
  clusterName: string;
  namespace: string;
  pod: string;
  container: string;
  logContent: string;
}

/**
 * Reads the last LOG_TAIL_LINES lines of one running container (capped at LOG_MAX_BYTES) and posts them.
 * Callers bound how many run at once; blank logs are not posted, matching the original.
 */
export async function collectLogs(ctx: CycleContext, target: LogTarget): Promise<void> {
  // While the ingest API is unreachable a log could not be posted; reading it would only load the API server.
  if (ctx.stopping || ctx.ingest.unreachable) return;
  let logContent: string;
  try {
    logContent = await ctx.kube.readLog(
      target.namespace,
      target.pod,
      target.container,
      ctx.config.logTailLines,
      ctx.config.logMaxBytes,
    );
  } catch (error) {
    ctx.logReadFailed(target, error);
    return;
  }
  if (logContent.trim() === '') return;
  const payload: PodLogPayload = { clusterName: ctx.config.clusterName, ...target, logContent };
  await ctx.ingest.send('log', payload);
}
