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
 * One log post's JSON body, byte for byte what `JSON.stringify` gives for the PodLogRequest with the log
 * decoded as UTF-8, without decoding the log as UTF-8 or encoding the escaped text back to UTF-8.
 *
 * A valid UTF-8 log is read as Latin-1: one character per byte, so the string stays one-byte and its bytes
 * come back unchanged when written as Latin-1. JSON.stringify escapes the same bytes either way (C0
 * controls, quote, backslash: all ASCII) and leaves every other byte raw, as it leaves raw every other
 * character of the decoded text (U+2028, DEL, any non-ASCII); valid UTF-8 cannot hold the lone surrogates
 * it would escape. A log that is not valid UTF-8 is decoded first, so its bad bytes become U+FFFD as before.
 *
 * Measured against decode + stringify + encode on the bench's 8 KB logs: about 13 instead of 16 µs of CPU.
 * A byte loop in JS writing the escapes itself was no faster than JSON.stringify (about 1.5 ns a byte).
 */
export function encodeLogBody(clusterName: string, target: LogTarget, log: Buffer): Buffer {
  const body = logBody(clusterName, target, log);
  const out = Buffer.allocUnsafe(body.byteLength);
  body.writeTo(out, 0);
  return out;
}

/** A body that knows its length and writes itself: a batch copies it once, straight into its own buffer. */
export interface Encodable {
  readonly byteLength: number;
  writeTo(target: Buffer, offset: number): void;
}

/** The log post body of `encodeLogBody`, not yet written anywhere. */
export function logBody(
  clusterName: string,
  { namespace, pod, container }: LogTarget,
  log: Buffer,
): Encodable {
  const request: PodLogRequest = { clusterName, namespace, pod, container, logContent: '' };
  if (!isUtf8(log)) {
    request.logContent = log.toString('utf8');
    const json = Buffer.from(JSON.stringify(request));
    return { byteLength: json.length, writeTo: (target, offset) => void json.copy(target, offset) };
  }
  // The request with an empty log ends `"logContent":""}`: its head is everything before the two quotes.
  const head = JSON.stringify(request).slice(0, -3);
  const content = JSON.stringify(log.toString('latin1'));
  const headBytes = Buffer.byteLength(head);
  return {
    byteLength: headBytes + content.length + 1,
    writeTo: (target, offset) => {
      target.write(head, offset, 'utf8');
      target.write(content, offset + headBytes, 'latin1');
      target[offset + headBytes + content.length] = 0x7d; // }
    },
  };
}
