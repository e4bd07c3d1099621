/**
 * Runs in its own process, as an App Service instance would: the platform's managed identity
 * endpoint (IDENTITY_ENDPOINT, IDENTITY_HEADER) and the emulator's CA (NODE_EXTRA_CA_CERTS) are in
 * the environment from the start. Seeds an export run with the account key (MI_CHILD_CONNECTION),
 * then imports it the way the app does for a URL without a SAS; prints one JSON line.
 */
import { gzipSync } from 'node:zlib';
import { BlobServiceClient } from '@azure/storage-blob';
import { blobFiles } from '../../shared/finops/imports/blob.js';
import { ExportAccumulator, finishExport, readExport } from '../../shared/finops/imports/parse.js';
import { exportLines, focusCsv } from './export-fixture.js';

const sub = process.env.MI_CHILD_SUBSCRIPTION!;
const container = BlobServiceClient.fromConnectionString(process.env.MI_CHILD_CONNECTION!).getContainerClient(
  'mi-exports',
);
await container.createIfNotExists();
const specs = [{ resourceGroup: 'rg-web', service: 'Virtual Machines', resource: 'vm-1', level: 100 }];
const part0 = focusCsv(exportLines(sub, '2026-09-01', 10, specs));
const part1 = gzipSync(focusCsv(exportLines(sub, '2026-09-11', 5, specs)));
await container.getBlockBlobClient('run-1/part_0_0001.csv').upload(part0, Buffer.byteLength(part0));
await container.getBlockBlobClient('run-1/part_1_0001.csv.gz').upload(part1, part1.length);

try {
  // No SAS in the URL: the app's managed identity reads.
  const files = await blobFiles(container.url, 'run-1/');
  const acc = new ExportAccumulator(sub, 'ActualCost');
  for (const f of files) await readExport(acc, (await f.open()) as AsyncIterable<Buffer>, f.name);
  const parsed = finishExport(acc);
  console.log(
    JSON.stringify({ ok: true, files: files.length, rows: parsed.rows, from: parsed.from, to: parsed.to }),
  );
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: (e as Error).message }));
}
