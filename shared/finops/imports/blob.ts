/**
 * Reads cost export files from Azure Blob Storage: one blob by URL, or every CSV blob under a prefix
 * of a container (one export run writes several part files plus a manifest). A URL with a SAS
 * (`sig=`) is used as it is; without one the app's managed identity (DefaultAzureCredential) reads.
 * Each blob is streamed; nothing is held in memory beyond the parser's chunk.
 */
import { DefaultAzureCredential } from '@azure/identity';
import { BlobClient, ContainerClient } from '@azure/storage-blob';
import { ImportError } from './columns.js';

export interface BlobFile {
  name: string;
  open(): Promise<NodeJS.ReadableStream>;
}

/** At most this many files in one import: an export run has a handful; more is a wrong prefix. */
export const MAX_BLOBS = 500;
const CSV_NAME = /\.csv(\.gz)?$/i;

function credentialFor(url: URL) {
  return url.searchParams.has('sig') ? undefined : new DefaultAzureCredential();
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

function readError(e: unknown, url: string): ImportError {
  const status = (e as { statusCode?: number }).statusCode;
  const reason = status ? `the storage account answered ${status}` : (e as Error).message;
  return new ImportError(422, `Cannot read ${withoutQuery(url)}: ${reason}.`);
}

export async function blobFiles(rawUrl: string, prefix: string | undefined): Promise<BlobFile[]> {
  const url = new URL(rawUrl);
  const credential = credentialFor(url);
  if (prefix === undefined) {
    const client = credential ? new BlobClient(rawUrl, credential) : new BlobClient(rawUrl);
    return [{ name: client.name, open: () => download(client) }];
  }
  const container = credential ? new ContainerClient(rawUrl, credential) : new ContainerClient(rawUrl);
  const names: string[] = [];
  try {
    for await (const b of container.listBlobsFlat({ prefix })) {
      if (CSV_NAME.test(b.name)) names.push(b.name);
      if (names.length > MAX_BLOBS) {
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
  if (!names.length) throw new ImportError(422, `No CSV blob under '${prefix}' in ${withoutQuery(rawUrl)}.`);
  names.sort();
  return names.map((name) => ({ name, open: () => download(container.getBlobClient(name)) }));
}
