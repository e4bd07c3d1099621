import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { constants, gunzip, gzip } from 'node:zlib';
import { type Counts, encodeBody, type PayloadKind } from './ingest.js';

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
export function withoutBatchFields(kind: PayloadKind, body: object | Buffer): object | Buffer {
  const fields = BATCH_ONLY_FIELDS[kind];
  if (!fields) return body;
  const copy = (Buffer.isBuffer(body) ? JSON.parse(body.toString('utf8')) : { ...body }) as Record<
    string,
    unknown
  >;
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
const COMMA = Buffer.from(',');
const RECORD_END = Buffer.from('}');
const ENVELOPE_END = Buffer.from(']}');

/**
 * Packs payloads into batch envelopes of at most MAX_BATCH_RECORDS records and MAX_BATCH_BYTES of JSON:
 *   {"batchId":"…","clusterName":"…","records":[{"kind":"pod","collectedAt":"…","data":{…}},…]}
 * Each payload arrives already encoded, so a record is a prefix, the payload's bytes and a brace; the
 * envelope is joined and gzip-compressed (on libuv's thread pool) once it is full.
 */
export class BatchBuilder {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private counts = zero();
  private records = 0;
  private lost: Array<() => void> = [];
  private readonly head: string;
  /** The record prefix changes once per millisecond at most; reused within it. */
  private prefix: { kind: PayloadKind | undefined; ms: number; bytes: Buffer } = {
    kind: undefined,
    ms: -1,
    bytes: Buffer.alloc(0),
  };
  private compressing: Promise<void> = Promise.resolve();

  constructor(
    clusterName: string,
    private readonly onSealed: (batch: SealedBatch) => void,
    private readonly limits = { records: MAX_BATCH_RECORDS, bytes: MAX_BATCH_BYTES },
    private readonly now: () => number = Date.now,
  ) {
    this.head = `,"clusterName":${JSON.stringify(clusterName)},"records":[`;
  }

  /** Adds one payload, stamped with the time it is handed over (right after it was built from the API's answer). */
  async add(kind: PayloadKind, body: object | Buffer, onLost?: () => void): Promise<void> {
    const data = Buffer.isBuffer(body) ? body : encodeBody(body);
    const prefix = this.recordPrefix(kind);
    const size = prefix.length + data.length + RECORD_END.length + 1;
    // A record larger than a batch on its own (a log with LOG_MAX_BYTES above 4 MiB) goes alone.
    if (this.records > 0 && (this.records >= this.limits.records || this.bytes + size > this.limits.bytes)) {
      await this.seal();
    }
    if (this.records > 0) this.chunks.push(COMMA);
    this.chunks.push(prefix, data, RECORD_END);
    this.bytes += size;
    this.records++;
    this.counts[kind]++;
    if (onLost) this.lost.push(onLost);
  }

  /** Seals what is pending into a last batch and waits until every batch is compressed and handed on. */
  async flush(): Promise<void> {
    if (this.records > 0) await this.seal();
    await this.compressing;
  }

  private recordPrefix(kind: PayloadKind): Buffer {
    const ms = this.now();
    if (this.prefix.kind !== kind || this.prefix.ms !== ms) {
      const collectedAt = new Date(ms).toISOString();
      this.prefix = {
        kind,
        ms,
        bytes: Buffer.from(`{"kind":"${RECORD_KINDS[kind]}","collectedAt":"${collectedAt}","data":`),
      };
    }
    return this.prefix.bytes;
  }

  private async seal(): Promise<void> {
    const id = randomUUID();
    const start = Buffer.from(`{"batchId":"${id}"${this.head}`);
    const json = Buffer.concat([start, ...this.chunks, ENVELOPE_END]);
    const batch = { id, records: this.records, counts: this.counts, lost: this.lost, rawBytes: json.length };
    this.chunks = [];
    this.bytes = 0;
    this.records = 0;
    this.counts = zero();
    this.lost = [];
    // One compression at a time: a collector producing faster than gzip waits here instead of piling up
    // uncompressed envelopes of 4 MiB each.
    await this.compressing;
    this.compressing = gzipAsync(json, { level: constants.Z_BEST_SPEED }).then((gz) =>
      this.onSealed({ ...batch, body: gz }),
    );
  }
}

/** The records of a batch as one-object payloads (without the batch-only fields), for the fallback. */
export async function unpackBatch(
  batch: SealedBatch,
): Promise<Array<{ kind: PayloadKind; body: object | Buffer }>> {
  const envelope = JSON.parse((await gunzipAsync(batch.body)).toString('utf8')) as {
    records: Array<{ kind: string; data: Record<string, unknown> }>;
  };
  return envelope.records.map((record) => {
    const kind = PAYLOAD_KIND_OF[record.kind] as PayloadKind;
    return { kind, body: withoutBatchFields(kind, record.data) };
  });
}
