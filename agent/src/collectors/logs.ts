import { createHash } from 'node:crypto';
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
 * Batches only: an unchanged log is sent again after this long. The ingest API keeps the latest snapshot
 * per container and answers the web client's log view only with snapshots collected within the page's
 * window (5 minutes at the least), so a quiet container's log must stay younger than that.
 */
export const LOG_RESEND_MS = 4 * 60_000;

/**
 * Batches only: the content of each container's log last delivered (queued in a batch), so a log that has
 * not changed since is not escaped, packed and compressed again every cycle (it is still read: the read is
 * what tells). Bounded like SentEvents; in memory only, so a restarted agent sends every log once.
 */
export class SentLogs {
  private readonly sent = new Map<string, { hash: string; at: number }>();

  constructor(readonly capacity = 100_000) {}

  get size(): number {
    return this.sent.size;
  }

  unchanged(key: string, hash: string, now: number): boolean {
    const entry = this.sent.get(key);
    return entry !== undefined && entry.hash === hash && now - entry.at < LOG_RESEND_MS;
  }

  record(key: string, hash: string, now: number): void {
    this.sent.delete(key);
    this.sent.set(key, { hash, at: now });
    if (this.sent.size > this.capacity) {
      const oldest = this.sent.keys().next().value;
      if (oldest !== undefined) this.sent.delete(oldest);
    }
  }

  /** Undoes `record` when the batch holding the log was dropped: it is sent again next cycle. */
  forget(key: string, hash: string): void {
    if (this.sent.get(key)?.hash === hash) this.sent.delete(key);
  }
}

/**
 * Reads the last LOG_TAIL_LINES lines of one running container (capped at LOG_MAX_BYTES) and posts them.
 * Callers bound how many run at once; blank logs are not posted, matching the original. With batches, a log
 * unchanged since it was last delivered is not sent again until LOG_RESEND_MS have passed; one-object posts
 * send every log every cycle, as the original agent does.
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
  const sent = ctx.sentLogs;
  if (!sent) {
    await ctx.ingest.send('log', logBody(ctx.config.clusterName, target, bytes));
    return;
  }
  const key = `${target.namespace}/${target.pod}/${target.container}`;
  const hash = createHash('sha1').update(bytes).digest('base64');
  if (sent.unchanged(key, hash, ctx.now)) {
    ctx.logsUnchanged++;
    return;
  }
  const at = ctx.now;
  await ctx.ingest.send(
    'log',
    logBody(ctx.config.clusterName, target, bytes),
    () => sent.record(key, hash, at),
    () => sent.forget(key, hash),
  );
}
