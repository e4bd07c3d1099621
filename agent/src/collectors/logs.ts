import type { CycleContext } from '../cycle-context.js';
import { type LogTarget, logBody } from './log-body.js';

export type { LogTarget } from './log-body.js';

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
  // A one-object post writes it at once: the body waits for its post slot as bytes outside the JS heap, as
  // the log it replaces did. A batch writes it straight into the batch's buffer.
  await ctx.ingest.send('log', logBody(ctx.config.clusterName, target, bytes));
}
