import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { InvocationContext, Timer } from '@azure/functions';
import {
  BlobServiceClient,
  type ContainerClient,
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Azurite, startAzurite, withBlobEndpoint } from '../../dev/azurite.js';
import { exportImportTimerTrigger } from '../../shared/finops/imports/exports.js';
import { createUser, type TestUser } from '../finops-api/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { exportLines, focusCsv, type SeriesSpec } from './export-fixture.js';

const SUB_A = '5e1eb5b0-1313-4a13-9d13-0000000000a1';
const SUB_B = '5e1eb5b0-1313-4a13-9d13-0000000000b2';
const SUB_C = '5e1eb5b0-1313-4a13-9d13-0000000000c3';
const SUB_D = '5e1eb5b0-1313-4a13-9d13-0000000000d4';
const SUB_E = '5e1eb5b0-1313-4a13-9d13-0000000000e5';
const ACCOUNT = 'devstoreaccount1';
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

const specs: SeriesSpec[] = [
  { resourceGroup: 'rg-web', service: 'Virtual Machines', resource: 'vm-1', level: 300 },
  { resourceGroup: 'rg-data', service: 'SQL Database', resource: 'sql-1', level: 120 },
];

/**
 * One export run as Cost Management writes it: gzip part files under
 * `<dir>/<export>/<YYYYMMDD-YYYYMMDD>/<runId>/`, then the manifest naming them.
 */
async function writeRun(
  container: ContainerClient,
  o: {
    exportName: string;
    submittedTime: string;
    days: number;
    subs: string[];
    manifest?: boolean;
    runId?: string;
  },
) {
  const runId = o.runId ?? randomUUID();
  const folder = `exports/${o.exportName}/20261001-20261031/${runId}/`;
  const blobs: Array<{ blobName: string; byteCount: number; dataRowCount: number }> = [];
  for (const [i, sub] of o.subs.entries()) {
    const lines = exportLines(sub, '2026-10-01', o.days, specs, i + 1);
    const body = gzipSync(focusCsv(lines));
    const blobName = `${folder}part_${i}_0001.csv.gz`;
    await container.getBlockBlobClient(blobName).upload(body, body.length);
    blobs.push({ blobName, byteCount: body.length, dataRowCount: lines.length });
  }
  if (o.manifest === false) return runId;
  const manifest = {
    manifestVersion: '2024-04-01',
    dataFormat: 'Csv',
    byteCount: blobs.reduce((n, b) => n + b.byteCount, 0),
    blobCount: blobs.length,
    dataRowCount: blobs.reduce((n, b) => n + b.dataRowCount, 0),
    exportConfig: {
      exportName: o.exportName,
      resourceId: '/providers/Microsoft.Billing/billingAccounts/1234567',
      dataVersion: '1.0r',
      apiVersion: '2023-07-01-preview',
      type: 'FocusCost',
      timeFrame: 'MonthToDate',
      granularity: 'Daily',
    },
    deliveryConfig: {
      partitionData: true,
      dataOverwriteBehavior: 'CreateNewReport',
      fileFormat: 'Csv',
      compressionMode: 'gzip',
      containerUri: '/subscriptions/x/resourceGroups/y/providers/Microsoft.Storage/storageAccounts/z',
      rootFolderPath: 'exports',
    },
    runInfo: {
      executionType: 'Scheduled',
      submittedTime: o.submittedTime,
      runId,
      startDate: '2026-10-01T00:00:00',
      endDate: '2026-10-31T00:00:00',
    },
    blobs,
  };
  const text = JSON.stringify(manifest);
  await container.getBlockBlobClient(`${folder}manifest.json`).upload(text, text.length);
  return runId;
}

describe('scheduled import of Cost Management export runs from the export container', () => {
  let blob: Azurite;
  let host: TestHost;
  let container: ContainerClient;
  let admin: TestUser;
  const tick = () =>
    host.services.finops.handleExportTimer(
      { isPastDue: false } as Timer,
      {
        invocationId: randomUUID(),
      } as InvocationContext,
    );

  async function finished(jobId: string) {
    const api = apiClient(host.url);
    for (let i = 0; i < 300; i++) {
      const res = await api.get(`/finops/api/Analysis/jobs/${jobId}`, { token: admin.token });
      if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`job ${jobId} did not finish`);
  }

  beforeAll(async () => {
    blob = await startAzurite({ service: 'blob' });
    container = BlobServiceClient.fromConnectionString(blob.connectionString).getContainerClient(
      'cost-exports',
    );
    await container.create();
    const sas = generateBlobSASQueryParameters(
      {
        containerName: 'cost-exports',
        permissions: ContainerSASPermissions.parse('rl'),
        expiresOn: new Date(Date.now() + 3_600_000),
      },
      new StorageSharedKeyCredential(ACCOUNT, KEY),
    ).toString();
    host = await startTestHost({
      settings: {
        AzureWebJobsStorage: withBlobEndpoint(inject('azuriteConnectionString'), blob.port),
        CostExports__ContainerUrl: `${container.url}?${sas}`,
        CostExports__Schedule: '0 15 */4 * * *',
        CostExports__Subscriptions: `team-costs=${SUB_C}`,
      },
      notifier: false,
    });
    admin = await createUser(host.services.prisma, true);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await blob?.stop();
  });

  it('registers its timer on the configured schedule', () => {
    expect(exportImportTimerTrigger(host.config)).toEqual({
      name: 'cost-export-import',
      schedule: '0 15 */4 * * *',
    });
  });

  it('imports a run once over two ticks, one run per subscription its rows name', async () => {
    const runId = await writeRun(container, {
      exportName: 'daily-focus',
      submittedTime: '2026-10-21T06:12:33.1234567',
      days: 20,
      subs: [SUB_A, SUB_B],
    });
    const first = await tick();
    expect(first.queued).toHaveLength(1);
    const job = await finished(first.queued[0]!.id);
    expect(job).toMatchObject({ status: 'completed', source: 'import', subscriptionId: '*' });
    expect(
      job.imports.map((s: { subscriptionId: string; rows: number; skippedRows: number; from: string }) => [
        s.subscriptionId,
        s.rows,
        s.skippedRows,
        s.from,
      ]),
    ).toEqual([
      [SUB_A, 40, 40, '2026-10-01'],
      [SUB_B, 40, 40, '2026-10-01'],
    ]);
    const stored = await host.services.prisma.costImport.findMany({
      where: { subscriptionId: { in: [SUB_A, SUB_B] } },
    });
    const folder = `${container.url}/exports/daily-focus/20261001-20261031/${runId}/`;
    expect(stored.map((s) => s.location)).toEqual([folder, folder]);
    expect(stored.map((s) => s.createdBy)).toEqual(['schedule', 'schedule']);

    const second = await tick();
    expect(second).toMatchObject({ manifests: 1, queued: [], superseded: 0 });
    expect(await host.services.prisma.costImport.count({ where: { subscriptionId: SUB_A } })).toBe(1);
  });

  it('skips a run still being written (no manifest yet), then imports it once its manifest lands', async () => {
    const run = { exportName: 'daily-focus', submittedTime: '2026-10-22T06:10:00.0000000', days: 21 };
    const runId = await writeRun(container, { ...run, subs: [SUB_A, SUB_B], manifest: false });
    expect(await tick()).toMatchObject({ manifests: 1, queued: [] });

    // The run completes (its manifest is written last); an older run of the same period shows up too.
    await writeRun(container, { ...run, subs: [SUB_A, SUB_B], runId });
    await writeRun(container, {
      exportName: 'daily-focus',
      submittedTime: '2026-10-20T06:00:00.0000000',
      days: 19,
      subs: [SUB_A, SUB_B],
    });
    const next = await tick();
    expect(next.queued).toHaveLength(1);
    expect(next.superseded).toBe(1);
    const job = await finished(next.queued[0]!.id);
    expect(job.status).toBe('completed');
    expect(job.imports.map((s: { to: string }) => s.to)).toEqual(['2026-10-21', '2026-10-21']);
    expect(await tick()).toMatchObject({ queued: [], superseded: 0 });
  });

  it('imports a mapped export for its one subscription, skipping the rows of others', async () => {
    await writeRun(container, {
      exportName: 'team-costs',
      submittedTime: '2026-10-21T07:00:00.0000000',
      days: 10,
      subs: [SUB_C, SUB_D],
    });
    const run = await tick();
    expect(run.queued).toHaveLength(1);
    const job = await finished(run.queued[0]!.id);
    expect(job).toMatchObject({
      status: 'completed',
      subscriptionId: SUB_C,
      import: { subscriptionId: SUB_C, rows: 20, skippedRows: 20 },
    });
    expect(await host.services.prisma.costImport.count({ where: { subscriptionId: SUB_D } })).toBe(0);
  });

  it('is fired by the local host at its NCRONTAB schedule, as the Functions host fires it', async () => {
    // Its own database: what it decides is counted there.
    const every = await startTestHost({
      settings: {
        AzureWebJobsStorage: host.settings.AzureWebJobsStorage!,
        CostExports__ContainerUrl: host.settings.CostExports__ContainerUrl!,
        CostExports__Schedule: '*/1 * * * * *',
      },
      exportTimer: true,
      notifier: false,
    });
    try {
      await writeRun(container, {
        exportName: 'hourly-focus',
        submittedTime: '2026-10-21T07:00:00.0000000',
        days: 5,
        subs: [SUB_E],
      });
      let decided = 0;
      for (let i = 0; i < 100 && decided === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        decided = await every.services.prisma.costExportRun.count({ where: { exportName: 'hourly-focus' } });
      }
      expect(decided).toBe(1);
    } finally {
      await every.close();
    }
  });
});
