/**
 * Where an import job's input waits for the instance that runs it: a container in the app's own
 * storage account (AzureWebJobsStorage, the account the queue lives in; Azurite locally), never the
 * local disk, since any instance may take the job. Per job: `<jobId>/request.json` (what to import,
 * who asked; a SAS URL stays here, out of the database) and, for an uploaded body, `<jobId>/body`.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { TokenCredential } from '@azure/core-auth';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { z } from 'zod';

export const SPOOL_CONTAINER = 'cost-import-spool';

export const SpooledRequest = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('body'),
    subscriptionId: z.string(),
    metric: z.enum(['ActualCost', 'AmortizedCost']),
    createdBy: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('blob'),
    subscriptionId: z.string(),
    metric: z.enum(['ActualCost', 'AmortizedCost']),
    createdBy: z.string().nullable(),
    url: z.string(),
    prefix: z.string().optional(),
  }),
]);
export type SpooledRequest = z.infer<typeof SpooledRequest>;

export interface StorageLocation {
  /** AzureWebJobsStorage: a connection string. */
  connectionString?: string | undefined;
  /** AzureWebJobsStorage__blobServiceUri / __accountName: identity-based, as the Functions host reads them. */
  blobServiceUri?: string | undefined;
  accountName?: string | undefined;
}

/** The upload's block size and parallel blocks: at most 8 MiB of a body in memory at once. */
const BLOCK_BYTES = 4 * 1024 * 1024;
const PARALLEL_BLOCKS = 2;

function hasBlobEndpoint(connectionString: string): boolean {
  const parts = new Map(
    connectionString
      .split(';')
      .filter(Boolean)
      .map((p) => {
        const i = p.indexOf('=');
        return [p.slice(0, i).trim().toLowerCase(), p.slice(i + 1)] as const;
      }),
  );
  if (parts.has('usedevelopmentstorage') || parts.has('blobendpoint')) return true;
  // Explicit endpoints for other services only (a queue-only emulator): the SDK would otherwise
  // invent https://<account>.blob.core.windows.net.
  return !(parts.has('queueendpoint') || parts.has('tableendpoint'));
}

export class ImportSpool {
  private ready: Promise<unknown> | undefined;

  constructor(private readonly container: ContainerClient) {}

  /** The spool of the app's storage, or undefined when that storage has no blob service configured. */
  static async open(where: StorageLocation): Promise<ImportSpool | undefined> {
    let service: BlobServiceClient | undefined;
    if (where.connectionString) {
      if (hasBlobEndpoint(where.connectionString))
        service = BlobServiceClient.fromConnectionString(where.connectionString);
    } else {
      const uri =
        where.blobServiceUri ??
        (where.accountName ? `https://${where.accountName}.blob.core.windows.net` : undefined);
      if (uri) {
        const { DefaultAzureCredential } = await import('@azure/identity');
        service = new BlobServiceClient(uri, new DefaultAzureCredential() as TokenCredential);
      }
    }
    return service ? new ImportSpool(service.getContainerClient(SPOOL_CONTAINER)) : undefined;
  }

  private ensure(): Promise<unknown> {
    this.ready ??= this.container.createIfNotExists().catch((e) => {
      this.ready = undefined;
      throw e;
    });
    return this.ready;
  }

  /** Streams a request body to `<jobId>/body`; resolves once the storage has committed it. */
  async writeBody(jobId: string, body: WebReadableStream | Readable): Promise<void> {
    await this.ensure();
    const source = body instanceof Readable ? body : Readable.fromWeb(body);
    await this.container
      .getBlockBlobClient(`${jobId}/body`)
      .uploadStream(source, BLOCK_BYTES, PARALLEL_BLOCKS, {
        blobHTTPHeaders: { blobContentType: 'application/octet-stream' },
      });
  }

  async writeRequest(jobId: string, request: SpooledRequest): Promise<void> {
    await this.ensure();
    const text = JSON.stringify(request);
    await this.container
      .getBlockBlobClient(`${jobId}/request.json`)
      .upload(text, Buffer.byteLength(text), { blobHTTPHeaders: { blobContentType: 'application/json' } });
  }

  /** The job's request, or undefined when it is gone (the job finished, or was never spooled). */
  async readRequest(jobId: string): Promise<SpooledRequest | undefined> {
    try {
      const buf = await this.container.getBlockBlobClient(`${jobId}/request.json`).downloadToBuffer();
      return SpooledRequest.parse(JSON.parse(buf.toString('utf8')));
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return undefined;
      throw e;
    }
  }

  /** The spooled body: its size and a stream of it. */
  async openBody(jobId: string): Promise<{ size: number | undefined; stream: NodeJS.ReadableStream }> {
    const res = await this.container.getBlockBlobClient(`${jobId}/body`).download();
    if (!res.readableStreamBody) throw new Error('the spooled body has no content');
    return { size: res.contentLength, stream: res.readableStreamBody };
  }

  /** Removes what the job spooled (after it succeeded or failed for good). */
  async remove(jobId: string): Promise<void> {
    for (const name of [`${jobId}/body`, `${jobId}/request.json`]) {
      await this.container.getBlockBlobClient(name).deleteIfExists();
    }
  }
}
