import { isUtf8 } from 'node:buffer';

/** The ingest API's PodLogRequest. */
export interface PodLogRequest {
  clusterName: string;
  namespace: string;
  pod: string;
  container: string;
  logContent: string;
}

export interface LogTarget {
  namespace: string;
  pod: string;
  container: string;
}

/**
 * The escape of each byte JSON.stringify escapes in a string (C0 controls, quote, backslash), or undefined.
 * Taken from JSON.stringify itself so the short forms (\n, \t, ...) and the \u00XX ones cannot drift.
 */
const ESCAPES: Array<Uint8Array | undefined> = Array.from({ length: 256 }, (_, byte) =>
  byte < 0x20 || byte === 0x22 || byte === 0x5c
    ? Buffer.from(JSON.stringify(String.fromCharCode(byte)).slice(1, -1), 'latin1')
    : undefined,
);
/** No escape can be longer than \u00XX. */
const MAX_ESCAPE = 6;
/** Past this the scratch buffer is not grown: a log that large is rare and takes the decoding path. */
const SCRATCH_LIMIT = 2 * 1024 * 1024;
const SUFFIX = Buffer.from('"}');

/**
 * One log post's JSON body, byte for byte what `JSON.stringify` gives for the PodLogRequest with the log
 * decoded as UTF-8, built without decoding the log into a string and encoding it back (6,000 times a cycle,
 * that round trip was a third of a log post's CPU). Valid UTF-8 is copied as is, escaping only what
 * JSON.stringify escapes; everything else in valid UTF-8 (U+2028, DEL, any non-ASCII character) it leaves
 * raw, and valid UTF-8 cannot hold the lone surrogates it would escape. A log that is not valid UTF-8 is
 * decoded first, so its bad bytes become U+FFFD exactly as before.
 */
export class LogBodyEncoder {
  private scratch = Buffer.allocUnsafe(64 * 1024);

  encode(clusterName: string, { namespace, pod, container }: LogTarget, log: Buffer): Buffer {
    const request: PodLogRequest = { clusterName, namespace, pod, container, logContent: '' };
    const empty = JSON.stringify(request);
    // The object's own encoding up to the opening quote of logContent, which is last: `..."logContent":"`.
    const prefixLength = Buffer.byteLength(empty) - SUFFIX.length;
    const worstCase = prefixLength + log.length * MAX_ESCAPE + SUFFIX.length;
    if (worstCase > SCRATCH_LIMIT || !isUtf8(log)) {
      request.logContent = log.toString('utf8');
      return Buffer.from(JSON.stringify(request));
    }
    if (this.scratch.length < worstCase) this.scratch = Buffer.allocUnsafe(worstCase);
    const out = this.scratch;
    let at = out.write(empty, 0, prefixLength, 'utf8');
    for (let i = 0; i < log.length; i++) {
      const byte = log[i] as number;
      const escape = ESCAPES[byte];
      if (escape === undefined) {
        out[at++] = byte;
        continue;
      }
      for (let k = 0; k < escape.length; k++) out[at++] = escape[k] as number;
    }
    at += SUFFIX.copy(out, at);
    // A copy of exactly the body: the scratch buffer is reused by the next log.
    return Buffer.from(out.subarray(0, at));
  }
}
