import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { HttpResponseInit } from '@azure/functions';
import { stringify } from './respond.js';

/** Rows are gathered into chunks of about this size before they are handed to the socket. */
const CHUNK_CHARS = 64 * 1024;

/** A row already serialised: jsonArrayStream writes its text as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A response body in hand as bytes (string, typed array, ArrayBuffer); undefined for a stream or none. */
export function bytesOf(body: HttpResponseInit['body']): Buffer | undefined {
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return undefined;
}

/** Whether a response body is a stream (written as it is produced) rather than bytes in hand. */
export function isStreamBody(body: HttpResponseInit['body']): body is Readable | ReadableStream {
  if (body === null || body === undefined || typeof body !== 'object') return false;
  if (body instanceof Readable || body instanceof ReadableStream) return true;
  return Symbol.asyncIterator in body;
}

/** Any stream body as a Node Readable, so it can be piped, compressed and destroyed alike. */
export function toReadable(body: Readable | ReadableStream | AsyncIterable<Uint8Array>): Readable {
  if (body instanceof Readable) return body;
  if (body instanceof ReadableStream)
    return Readable.fromWeb(body as import('node:stream/web').ReadableStream);
  return Readable.from(body, { objectMode: false });
}

/**
 * A JSON array written row by row as the rows arrive: the whole answer never exists in memory,
 * only one chunk of it. The readable pulls the next rows only when the socket (or the compressor)
 * asks for more, so a slow client slows the database reads instead of growing a buffer; destroying
 * the readable (a client that goes away) ends the row source through its `return()`.
 */
export function jsonArrayStream(rows: AsyncIterable<unknown>): Readable {
  async function* chunks() {
    let text = '[';
    let first = true;
    for await (const row of rows) {
      const json = row instanceof JsonText ? row.text : stringify(row);
      text += first ? json : `,${json}`;
      first = false;
      if (text.length >= CHUNK_CHARS) {
        yield Buffer.from(text);
        text = '';
        // A page of rows arrives at once: serialising it in one go would hold the event loop (and
        // every other request) for the whole page; one chunk per turn lets them in between.
        await nextTurn();
      }
    }
    yield Buffer.from(`${text}]`);
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** 200 with a JSON array streamed from `rows` (see jsonArrayStream). */
export function okStream(
  rows: AsyncIterable<unknown>,
  headers: Record<string, string> = {},
): HttpResponseInit {
  return {
    status: 200,
    body: jsonArrayStream(rows),
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  };
}
