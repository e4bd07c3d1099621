import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { constants, gunzip, gzip } from 'node:zlib';
import type { Encodable } from './collectors/log-body.js';
import { type Counts, isEncodable, type Payload, type PayloadKind, payloadBytes } from './ingest.js';

const gzipAsync = promisify(gzip);
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
/** `{"batchId":"<36-character UUID>"`, in front of the head. */
const ID_BYTES = '{"batchId":""'.length + 36;

/**
 * Packs payloads into batch envelopes of at most MAX_BATCH_RECORDS records and MAX_BATCH_BYTES of JSON:
 *   {"batchId":"…","clusterName":"…","records":[{"kind":"pod","collectedAt":"…","data":{…}},…]}
 * Records are written straight into one buffer per batch, so a batch is one allocation outside the JS heap
 * rather than thousands of small ones held until it is sealed (which made the garbage collector run far
 * more often). A full batch is gzip-compressed on libuv's thread pool and handed on.
 */
export class BatchBuilder {
  private slab: Buffer | undefined;
  /**
   * A buffer whose batch is compressed, kept for the next batch: a fresh 4 MiB of external memory per batch
   * made V8 run full collections far more often.
   */
  private spare: Buffer | undefined;
  /** Bytes in front of the first record: the envelope's head, written at sealing. */
  private readonly headBytes: number;
  /** Where the next record goes. */
  private pos: number;
  private counts = zero();
  private records = 0;
  private lost: Array<() => void> = [];
  private readonly head: string;
  /** The record prefix changes once per millisecond at most; reused within it. */
  private prefix: { kind: PayloadKind | undefined; ms: number; text: string } = {
    kind: undefined,
    ms: -1,
    text: '',
  };
  private compressing: Promise<void> = Promise.resolve();

  constructor(
    clusterName: string,
    private readonly onSealed: (batch: SealedBatch) => void,
    private readonly limits = { records: MAX_BATCH_RECORDS, bytes: MAX_BATCH_BYTES },
    private readonly now: () => number = () => Date.now(),
  ) {
    this.head = `,"clusterName":${JSON.stringify(clusterName)},"records":[`;
    this.headBytes = ID_BYTES + Buffer.byteLength(this.head);
    this.pos = this.headBytes;
  }

  /** Adds one payload, stamped with the time it is handed over (right after it was built from the API's answer). */
  async add(kind: PayloadKind, body: Payload, onLost?: () => void): Promise<void> {
    const prefix = this.recordPrefix(kind);
    let json: string | undefined;
    let size: number;
    if (Buffer.isBuffer(body) || isEncodable(body)) size = body.byteLength;
    else {
      json = JSON.stringify(body);
      size = Buffer.byteLength(json);
    }
    // prefix (ASCII) + data + "}" + ","
    const recordBytes = prefix.length + size + 2;
    if (
      this.records > 0 &&
      (this.records >= this.limits.records || this.used + recordBytes > this.limits.bytes)
    ) {
      await this.seal();
    }
    const slab = this.room(recordBytes);
    let at = this.pos;
    if (this.records > 0) slab[at++] = 0x2c; // ,
    at += slab.write(prefix, at, 'latin1');
    if (json !== undefined) at += slab.write(json, at, 'utf8');
    else if (Buffer.isBuffer(body)) at += body.copy(slab, at);
    else {
      (body as Encodable).writeTo(slab, at);
      at += size;
    }
    slab[at++] = 0x7d; // }
    this.pos = at;
    this.records++;
    this.counts[kind]++;
    if (onLost) this.lost.push(onLost);
  }

  /** Seals what is pending into a last batch and waits until every batch is compressed and handed on. */
  async flush(): Promise<void> {
    if (this.records > 0) await this.seal();
    await this.compressing;
  }

  /** Bytes of JSON the open batch would have if sealed now. */
  private get used(): number {
    return this.pos + ENVELOPE_END.length;
  }

  /** The open batch's buffer, with room for `bytes` more (a record larger than a batch gets a buffer to itself). */
  private room(bytes: number): Buffer {
    const needed = this.pos + bytes + 1 + ENVELOPE_END.length;
    if (!this.slab && this.spare && needed <= this.spare.length) {
      this.slab = this.spare;
      this.spare = undefined;
    }
    if (!this.slab || needed > this.slab.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(needed, this.limits.bytes + 1024));
      this.slab?.copy(grown, 0, 0, this.pos);
      this.slab = grown;
    }
    return this.slab;
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
    const slab = this.room(0);
    const id = randomUUID();
    const start = `{"batchId":"${id}"${this.head}`;
    slab.write(start, 0, 'utf8');
    const end = this.pos + slab.write(ENVELOPE_END, this.pos, 'latin1');
    const json = slab.subarray(0, end);
    const batch = { id, records: this.records, counts: this.counts, lost: this.lost, rawBytes: json.length };
    this.slab = undefined;
    this.pos = this.headBytes;
    this.records = 0;
    this.counts = zero();
    this.lost = [];
    // One compression at a time: a collector producing faster than gzip waits here instead of piling up
    // uncompressed envelopes of 4 MiB each.
    await this.compressing;
    this.compressing = gzipAsync(json, { level: constants.Z_BEST_SPEED }).then((gz) => {
      if (slab.length <= this.limits.bytes + 1024) this.spare = slab;
      this.onSealed({ ...batch, body: gz });
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
