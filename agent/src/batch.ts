import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { constants, createGzip, type Gzip, gunzip } from 'node:zlib';
import type { Encodable } from './collectors/log-body.js';
import { type Counts, isEncodable, type Payload, type PayloadKind, payloadBytes } from './ingest.js';

const gunzipAsync = promisify(gunzip);

/** The batch route's record kinds, by the agent's payload kind. */
export const RECORD_KINDS: Record<PayloadKind, string> = {
  pod: 'pod',
  log: 'podLog',
  node: 'node',
  pvc: 'pvc',
  event: 'event',
};
const PAYLOAD_KIND_OF = Object.fromEntries(
  Object.entries(RECORD_KINDS).map(([payload, record]) => [record, payload as PayloadKind]),
) as Record<string, PayloadKind>;

/**
 * Fields only batched records carry (for cost allocation). One-object posts go without them, so they stay
 * byte for byte what the agent posted before batches existed; `withoutBatchFields` takes them off again.
 */
export const BATCH_ONLY_FIELDS: Partial<Record<PayloadKind, readonly string[]>> = {
  pod: ['ownerKind', 'ownerName', 'labels', 'lastTerminationReason'],
  node: ['providerId', 'nodePool', 'cpuAllocatableCores', 'memoryAllocatableBytes'],
  pvc: ['azureDiskResourceId'],
};

/** A payload as a one-object post sends it: the batch-only fields removed, every other byte unchanged. */
export function withoutBatchFields(kind: PayloadKind, body: Payload): Payload {
  const fields = BATCH_ONLY_FIELDS[kind];
  if (!fields) return body;
  const bytes = Buffer.isBuffer(body) || isEncodable(body) ? payloadBytes(body) : undefined;
  const copy = (bytes ? JSON.parse(bytes.toString('utf8')) : { ...body }) as Record<string, unknown>;
  for (const field of fields) delete copy[field];
  return copy;
}

export const MAX_BATCH_RECORDS = 5_000;
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/** A batch ready to post: its id is fixed here, so a retry of the same batch carries the same id. */
export interface SealedBatch {
  id: string;
  /** The gzip-compressed JSON envelope. */
  body: Buffer;
  /** Uncompressed JSON bytes. */
  rawBytes: number;
  records: number;
  counts: Counts;
  /** Runs if the batch is dropped undelivered (its events must then be sent again). */
  lost: Array<() => void>;
}

const zero = (): Counts => ({ pod: 0, log: 0, node: 0, pvc: 0, event: 0 });
const ENVELOPE_END = ']}';
/** Records are written into chunks of this size, each handed to gzip once full. */
const CHUNK_BYTES = 256 * 1024;

/** One batch being written: its gzip stream and what it has produced so far. */
interface OpenBatch {
  id: string;
  gzip: Gzip;
  compressed: Buffer[];
  done: Promise<void>;
  /** Uncompressed JSON bytes written so far. */
  bytes: number;
  records: number;
  counts: Counts;
  lost: Array<() => void>;
}

/**
 * Packs payloads into batch envelopes of at most MAX_BATCH_RECORDS records and MAX_BATCH_BYTES of JSON:
 *   {"batchId":"…","clusterName":"…","records":[{"kind":"pod","collectedAt":"…","data":{…}},…]}
 * Records are written into 256 KiB chunks that a gzip stream compresses as they fill (on libuv's thread
 * pool), so a batch never sits uncompressed in memory: holding 4 MiB envelopes, or each record's own buffer,
 * until a batch was sealed cost 14 MB of peak RSS and made the garbage collector run far more often.
 */
export class BatchBuilder {
  private open: OpenBatch | undefined;
  private chunk: Buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  private tail: Promise<void> = Promise.resolve();
  private pos = 0;
  private readonly head: string;
  /** The record prefix changes once per millisecond at most; reused within it. */
  private prefix: { kind: PayloadKind | undefined; ms: number; text: string } = {
    kind: undefined,
    ms: -1,
    text: '',
  };

  constructor(
    clusterName: string,
    private readonly onSealed: (batch: SealedBatch) => void,
    private readonly limits = { records: MAX_BATCH_RECORDS, bytes: MAX_BATCH_BYTES },
    private readonly now: () => number = () => Date.now(),
  ) {
    this.head = `,"clusterName":${JSON.stringify(clusterName)},"records":[`;
  }

  /**
   * Adds one payload, stamped with the time it is written (right after it was built from the API's answer).
   * Adds run one after another: several collectors (log readers, the pod lister) add at once, and a record's
   * pieces must not interleave with another's.
   */
  add(kind: PayloadKind, body: Payload, onLost?: () => void): Promise<void> {
    return this.serial(() => this.append(kind, body, onLost));
  }

  /** Seals what is pending into a last batch and waits until it is compressed and handed on. */
  flush(): Promise<void> {
    return this.serial(() => this.seal());
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const run = this.tail.then(step);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async append(kind: PayloadKind, body: Payload, onLost?: () => void): Promise<void> {
    const prefix = this.recordPrefix(kind);
    let json: string | undefined;
    let size: number;
    if (Buffer.isBuffer(body) || isEncodable(body)) size = body.byteLength;
    else {
      json = JSON.stringify(body);
      size = Buffer.byteLength(json);
    }
    // "," + prefix (ASCII) + data + "}"
    const recordBytes = 1 + prefix.length + size + 1;
    const open = this.open;
    if (
      open &&
      open.records > 0 &&
      (open.records >= this.limits.records ||
        open.bytes + recordBytes + ENVELOPE_END.length > this.limits.bytes)
    ) {
      await this.seal();
    }
    const batch = this.open ?? (await this.begin());
    if (batch.records > 0) await this.write(',');
    await this.write(prefix);
    if (json !== undefined) await this.write(json, size);
    else await this.writeBody(body as Buffer | Encodable);
    await this.write('}');
    batch.bytes += recordBytes - (batch.records > 0 ? 0 : 1);
    batch.records++;
    batch.counts[kind]++;
    if (onLost) batch.lost.push(onLost);
  }

  private async begin(): Promise<OpenBatch> {
    const id = randomUUID();
    const gz = createGzip({ level: constants.Z_BEST_SPEED });
    const compressed: Buffer[] = [];
    gz.on('data', (chunk: Buffer) => compressed.push(chunk));
    const done = new Promise<void>((resolve, reject) => {
      gz.once('end', resolve);
      gz.once('error', reject);
    });
    const start = `{"batchId":"${id}"${this.head}`;
    this.open = {
      id,
      gzip: gz,
      compressed,
      done,
      bytes: Buffer.byteLength(start),
      records: 0,
      counts: zero(),
      lost: [],
    };
    await this.write(start);
    return this.open;
  }

  /** Writes text into the current chunk, handing full chunks to gzip. */
  private async write(text: string, bytes = Buffer.byteLength(text)): Promise<void> {
    if (this.pos + bytes > this.chunk.length) await this.pass();
    if (bytes > this.chunk.length) {
      await this.push(Buffer.from(text));
      return;
    }
    this.pos += this.chunk.write(text, this.pos, 'utf8');
  }

  private async writeBody(body: Buffer | Encodable): Promise<void> {
    const bytes = body.byteLength;
    if (this.pos + bytes > this.chunk.length) await this.pass();
    if (bytes > this.chunk.length) {
      await this.push(Buffer.isBuffer(body) ? body : payloadBytes(body));
      return;
    }
    if (Buffer.isBuffer(body)) body.copy(this.chunk, this.pos);
    else body.writeTo(this.chunk, this.pos);
    this.pos += bytes;
  }

  /** Hands the filled part of the chunk to gzip and starts a new chunk (gzip holds the old one until done). */
  private async pass(): Promise<void> {
    if (this.pos === 0) return;
    const filled = this.chunk.subarray(0, this.pos);
    this.chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this.pos = 0;
    await this.push(filled);
  }

  private async push(data: Buffer): Promise<void> {
    const gz = this.open?.gzip;
    if (gz && !gz.write(data)) await once(gz, 'drain');
  }

  private recordPrefix(kind: PayloadKind): string {
    const ms = this.now();
    if (this.prefix.kind !== kind || this.prefix.ms !== ms) {
      const collectedAt = new Date(ms).toISOString();
      this.prefix = {
        kind,
        ms,
        text: `{"kind":"${RECORD_KINDS[kind]}","collectedAt":"${collectedAt}","data":`,
      };
    }
    return this.prefix.text;
  }

  private async seal(): Promise<void> {
    const batch = this.open;
    if (!batch) return;
    await this.write(ENVELOPE_END);
    await this.pass();
    this.open = undefined;
    batch.gzip.end();
    await batch.done;
    this.onSealed({
      id: batch.id,
      body: Buffer.concat(batch.compressed),
      rawBytes: batch.bytes + ENVELOPE_END.length,
      records: batch.records,
      counts: batch.counts,
      lost: batch.lost,
    });
  }
}

/** The records of a batch as one-object payloads (without the batch-only fields), for the fallback. */
export async function unpackBatch(batch: SealedBatch): Promise<Array<{ kind: PayloadKind; body: Payload }>> {
  const envelope = JSON.parse((await gunzipAsync(batch.body)).toString('utf8')) as {
    records: Array<{ kind: string; data: Record<string, unknown> }>;
  };
  return envelope.records.map((record) => {
    const kind = PAYLOAD_KIND_OF[record.kind] as PayloadKind;
    return { kind, body: withoutBatchFields(kind, record.data) };
  });
}
