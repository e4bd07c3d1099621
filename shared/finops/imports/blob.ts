/**
 * Reads cost export files from Azure Blob Storage: one blob by URL, or every CSV blob under a prefix
 * of a container (one export run writes several part files plus a manifest). A URL with a SAS
 * (`sig=`) is used as it is; without one the app's managed identity reads (DefaultAzureCredential:
 * on App Service and Functions, the IDENTITY_ENDPOINT the platform gives the process). Each blob is
 * streamed; nothing is held in memory beyond the parser's chunk.
 */
import type { TokenCredential } from '@azure/core-auth';
import { DefaultAzureCredential } from '@azure/identity';
import { BlobClient, ContainerClient } from '@azure/storage-blob';
import { ImportError } from './columns.js';

export interface BlobFile {
  name: string;
  /** Bytes, when the listing said (progress is reported against it). */
  size: number | undefined;
  open(): Promise<NodeJS.ReadableStream>;
}

/** At most this many files in one import: an export run has a handful; more is a wrong prefix. */
export const MAX_BLOBS = 500;
const CSV_NAME = /\.csv(\.gz)?$/i;

// One credential per process, so its token cache serves every import (a new one per import would
// ask the identity endpoint each time).
let identity: TokenCredential | undefined;
function managedIdentity(): TokenCredential {
  identity ??= new DefaultAzureCredential();
  return identity;
}

function credentialFor(url: URL): TokenCredential | undefined {
  return url.searchParams.has('sig') ? undefined : managedIdentity();
}

export function containerClient(rawUrl: string): ContainerClient {
  const credential = credentialFor(new URL(rawUrl));
  return credential ? new ContainerClient(rawUrl, credential) : new ContainerClient(rawUrl);
}

function blobClient(rawUrl: string): BlobClient {
  const credential = credentialFor(new URL(rawUrl));
  return credential ? new BlobClient(rawUrl, credential) : new BlobClient(rawUrl);
}

/** The URL without its query: what may be stored and logged (a SAS is a secret). */
export const withoutQuery = (url: string) => url.split('?', 1)[0]!;

async function download(client: BlobClient): Promise<NodeJS.ReadableStream> {
  try {
    const res = await client.download();
    if (!res.readableStreamBody) throw new Error('no body');
    return res.readableStreamBody;
  } catch (e) {
    throw readError(e, client.url);
  }
}

export function readError(e: unknown, url: string): ImportError {
  const status = (e as { statusCode?: number }).statusCode;
  const reason = status ? `the storage account answered ${status}` : (e as Error).message;
  return new ImportError(422, `Cannot read ${withoutQuery(url)}: ${reason}.`);
}

/** One blob read whole, as text (a manifest): refused over `maxBytes`. */
export async function readSmallBlob(client: BlobClient, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of (await download(client)) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new ImportError(422, `${client.name} is over ${maxBytes} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The files of an import, checked to exist (a missing blob, an unreadable container or an empty
 * prefix is a 422 now, not a failed job later).
 */
export async function blobFiles(rawUrl: string, prefix: string | undefined): Promise<BlobFile[]> {
  if (prefix === undefined) {
    const client = blobClient(rawUrl);
    let size: number | undefined;
    try {
      size = (await client.getProperties()).contentLength;
    } catch (e) {
      throw readError(e, rawUrl);
    }
    return [{ name: client.name, size, open: () => download(client) }];
  }
  const container = containerClient(rawUrl);
  const found: Array<{ name: string; size: number | undefined }> = [];
  try {
    for await (const b of container.listBlobsFlat({ prefix })) {
      if (CSV_NAME.test(b.name)) found.push({ name: b.name, size: b.properties.contentLength });
      if (found.length > MAX_BLOBS) {
        throw new ImportError(
          422,
          `More than ${MAX_BLOBS} CSV blobs under '${prefix}': use the prefix of one export run.`,
        );
      }
    }
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw readError(e, rawUrl);
  }
  if (!found.length) throw new ImportError(422, `No CSV blob under '${prefix}' in ${withoutQuery(rawUrl)}.`);
  found.sort((a, b) => a.name.localeCompare(b.name));
  return found.map(({ name, size }) => ({
    name,
    size,
    open: () => download(container.getBlobClient(name)),
  }));
}

/** Named blobs of one container (an export run's manifest lists its parts). */
export function namedBlobFiles(container: ContainerClient, names: string[]): BlobFile[] {
  return names.map((name) => ({
    name,
    size: undefined,
    open: () => download(container.getBlobClient(name)),
  }));
}
