import type { CycleContext } from '../cycle-context.js';

export interface LogTarget {
  namespace: string;
  pod: string;
  container: string;
}

/** The ingest API's PodLogRequest. */
export interface PodLogRequest {
  clusterName: string;
  namespace: string;
  pod: string;
  container: string;
  logContent: string;
}

/**
 * One log post. The log stays the bytes read until its body is serialised (JSON.stringify calls toJSON),
 * so while it waits for a post slot it sits outside the JS heap instead of being copied by each
 * young-generation collection and promoted, as a decoded 8 KB string was. The body is the same.
 */
export class PodLogPayload {
  constructor(
    private readonly clusterName: string,
    private readonly target: LogTarget,
    private readonly bytes: Buffer,
  ) {}

  toJSON(): PodLogRequest {
    const { namespace, pod, container } = this.target;
    return {
      clusterName: this.clusterName,
      namespace,
      pod,
      container,
      logContent: this.bytes.toString('utf8'),
    };
  }
}

/**
 * True when the log decodes to whitespace only (String#trim's sense). Decided on the bytes: one ASCII byte
 * that is not whitespace settles it, usually the first; only a log of whitespace and non-ASCII bytes is
 * decoded to ask trim, which knows the Unicode spaces.
 */
export function isBlankLog(bytes: Buffer): boolean {
  let nonAscii = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    // TAB, LF, VT, FF, CR and space: the ASCII characters trim removes.
    if (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)) continue;
    if (byte < 0x80) return false;
    nonAscii = true;
  }
  return !nonAscii || bytes.toString('utf8').trim() === '';
}

/**
 * Reads the last LOG_TAIL_LINES lines of one running container (capped at LOG_MAX_BYTES) and posts them.
 * Callers bound how many run at once; blank logs are not posted, matching the original.
 */
export async function collectLogs(ctx: CycleContext, target: LogTarget): Promise<void> {
  // While the ingest API is unreachable a log could not be posted; reading it would only load the API server.
  if (ctx.stopping || ctx.ingest.unreachable) return;
  let bytes: Buffer;
  try {
    bytes = await ctx.kube.readLog(
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
  if (isBlankLog(bytes)) return;
  await ctx.ingest.send('log', new PodLogPayload(ctx.config.clusterName, target, bytes));
}
