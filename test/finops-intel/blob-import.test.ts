import { gzipSync } from 'node:zlib';
import {
  BlobServiceClient,
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Azurite, startAzurite, withBlobEndpoint } from '../../dev/azurite.js';
import { createUser, type TestUser } from '../finops-api/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { exportLines, focusCsv, type SeriesSpec } from './export-fixture.js';

const SUB = '5e1eb5b0-1313-4a13-9d13-000000000033';
// Azurite's documented development account.
const ACCOUNT = 'devstoreaccount1';
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

const specs: SeriesSpec[] = [
  {
    resourceGroup: 'rg-web',
    service: 'Virtual Machines',
    resource: 'vm-1',
    level: 300,
    factors: { '2026-10-14': 4 },
  },
  { resourceGroup: 'rg-data', service: 'SQL Database', resource: 'sql-1', level: 120 },
];

// Azurite's blob service stands in for the storage account a Cost Management export writes to.
describe('cost imports from Azure Blob Storage (Azurite), as jobs', () => {
  let azurite: Azurite;
  let host: TestHost;
  let admin: TestUser;
  let user: TestUser;
  let containerUrl: string;
  let sas: string;

  beforeAll(async () => {
    azurite = await startAzurite({ service: 'blob' });
    const service = BlobServiceClient.fromConnectionString(azurite.connectionString);
    const container = service.getContainerClient('cost-exports');
    await container.create();
    // One export run: two part files (one gzip) and a manifest, as Cost Management writes them.
    const lines = exportLines(SUB, '2026-06-01', 142, specs);
    const half = Math.floor(lines.length / 2);
    const part1 = focusCsv(lines.slice(0, half));
    const part2 = gzipSync(focusCsv(lines.slice(half)));
    await container.getBlockBlobClient('focus/run-1/part_0_0001.csv').upload(part1, Buffer.byteLength(part1));
    await container.getBlockBlobClient('focus/run-1/part_1_0001.csv.gz').upload(part2, part2.length);
    await container.getBlockBlobClient('focus/run-1/manifest.json').upload('{}', 2);
    const bad = 'ChargePeriodStart,BilledCost\nnot-a-date,1\n';
    await container.getBlockBlobClient('broken/part_0.csv').upload(bad, bad.length);
    sas = generateBlobSASQueryParameters(
      {
        containerName: 'cost-exports',
        permissions: ContainerSASPermissions.parse('rl'),
        expiresOn: new Date(Date.now() + 3_600_000),
      },
      new StorageSharedKeyCredential(ACCOUNT, KEY),
    ).toString();
    containerUrl = container.url;
    // The app's storage: the shared queue emulator and this blob service (the spool of import jobs).
    host = await startTestHost({
      settings: { AzureWebJobsStorage: withBlobEndpoint(inject('azuriteConnectionString'), azurite.port) },
      notifier: false,
    });
    admin = await createUser(host.services.prisma, true);
    user = await createUser(host.services.prisma, false);
  }, 60_000);
  /** Polls the job the 202 named until it is done. */
  async function finished(location: string | null) {
    const api = apiClient(host.url);
    for (let i = 0; i < 300; i++) {
      const res = await api.get(location!, { token: admin.token });
      if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`job ${location} did not finish`);
  }

  afterAll(async () => {
    await host?.close();
    await azurite?.stop();
  });

  it('imports every CSV part under the prefix of one export run, with a SAS, and finds the spike', async () => {
    const api = apiClient(host.url);
    const res = await api.post('/finops/api/CostImports/blob', {
      token: admin.token,
      json: { subscriptionId: SUB, url: `${containerUrl}?${sas}`, prefix: 'focus/run-1/' },
    });
    expect(res.status).toBe(202);
    const job = await finished(res.headers.get('location'));
    expect(job).toMatchObject({ status: 'completed', source: 'import' });
    expect(job.import).toMatchObject({
      files: 2,
      rows: 142 * 2,
      format: 'focus',
      from: '2026-06-01',
      to: '2026-10-20',
    });
    const stored = await host.services.prisma.costImport.findUniqueOrThrow({
      where: { id: job.import.importId },
    });
    expect(stored).toMatchObject({ source: 'blob', location: `${containerUrl}/focus/run-1/` });
    expect(stored.location).not.toContain('sig=');
    const anomalies = await api.get(`/finops/api/Anomalies?subscriptionId=${SUB}`, { token: admin.token });
    expect(anomalies.body.map((a: { kind: string; date: string }) => `${a.kind} ${a.date}`)).toEqual([
      'spike 2026-10-14',
      'spike 2026-10-14',
      'spike 2026-10-14',
    ]);
  });

  it('imports one blob by its URL', async () => {
    const api = apiClient(host.url);
    const res = await api.post('/finops/api/CostImports/blob', {
      token: admin.token,
      json: { subscriptionId: SUB, url: `${containerUrl}/focus/run-1/part_1_0001.csv.gz?${sas}` },
    });
    expect(res.status).toBe(202);
    const job = await finished(res.headers.get('location'));
    expect(job.import).toMatchObject({ files: 1, rows: 142 });
  });

  it('fails the job naming the blob and line of a bad row; answers 422 for a missing blob and an empty prefix', async () => {
    const api = apiClient(host.url);
    const post = (json: object) => api.post('/finops/api/CostImports/blob', { token: admin.token, json });
    const bad = await post({ subscriptionId: SUB, url: `${containerUrl}?${sas}`, prefix: 'broken/' });
    expect(bad.status).toBe(202);
    const failed = await finished(bad.headers.get('location'));
    expect(failed).toMatchObject({ status: 'failed', success: false });
    expect(failed.errorDetails).toContain('broken/part_0.csv, line 2');
    // The SAS of the request never reaches the job's row.
    expect(JSON.stringify(failed)).not.toContain('sig=');
    const missing = await post({ subscriptionId: SUB, url: `${containerUrl}/nope.csv?${sas}` });
    expect(isProblem(missing, 422)).toBe(true);
    expect(missing.body.detail).toContain('404');
    expect(missing.body.detail).not.toContain('sig=');
    const none = await post({ subscriptionId: SUB, url: `${containerUrl}?${sas}`, prefix: 'nothing/' });
    expect(isProblem(none, 422)).toBe(true);
  });

  it('is for administrators only', async () => {
    const res = await apiClient(host.url).post('/finops/api/CostImports/blob', {
      token: user.token,
      json: { subscriptionId: SUB, url: `${containerUrl}?${sas}`, prefix: 'focus/run-1/' },
    });
    expect(isProblem(res, 403)).toBe(true);
  });
});
