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
export function encodeLogBody(
  clusterName: string,
  { namespace, pod, container }: LogTarget,
  log: Buffer,
): Buffer {
  const request: PodLogRequest = { clusterName, namespace, pod, container, logContent: '' };
  if (!isUtf8(log)) {
    request.logContent = log.toString('utf8');
    return Buffer.from(JSON.stringify(request));
  }
  // The request with an empty log ends `"logContent":""}`: its head is everything before the two quotes.
  const head = JSON.stringify(request).slice(0, -3);
  const content = JSON.stringify(log.toString('latin1'));
  const headBytes = Buffer.byteLength(head);
  const body = Buffer.allocUnsafe(headBytes + content.length + 1);
  body.write(head, 0, 'utf8');
  body.write(content, headBytes, 'latin1');
  body[body.length - 1] = 0x7d; // }
  return body;
}
