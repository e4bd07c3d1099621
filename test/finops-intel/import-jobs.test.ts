import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { BlobServiceClient } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Azurite, startAzurite, withBlobEndpoint } from '../../dev/azurite.js';
import { ImportSpool, SPOOL_CONTAINER } from '../../shared/finops/imports/spool.js';
import { createUser, type TestUser } from '../finops-api/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { exportLines, focusCsv, type SeriesSpec } from './export-fixture.js';

const SUB = '5e1eb5b0-1313-4a13-9d13-000000000041';
const BAD_SUB = '5e1eb5b0-1313-4a13-9d13-000000000042';
const CRASH_SUB = '5e1eb5b0-1313-4a13-9d13-000000000043';
const MIB = 1024 * 1024;

// Twenty resources over 142 days: about 1.7 MB of FOCUS CSV, over the 1 MiB synchronous bound.
const specs: SeriesSpec[] = Array.from({ length: 20 }, (_, i) => ({
  resourceGroup: `rg-${i % 4}`,
  service: i % 2 ? 'Virtual Machines' : 'Storage',
  resource: `res-${i}`,
  level: 20 + i,
  ...(i === 0 ? { factors: { '2026-10-14': 30 } } : {}),
}));

describe('large cost imports as jobs (202, spooled to the app storage, same job routes)', () => {
  let blob: Azurite;
  let host: TestHost;
  let user: TestUser;
  let api: ReturnType<typeof apiClient>;
  let storage: string;

  const postCsv = (sub: string, body: string | Buffer) =>
    fetch(`${host.url}/finops/api/CostImports?subscriptionId=${sub}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'text/csv' },
      body,
    }).then(async (r) => ({
      status: r.status,
      headers: r.headers,
      // biome-ignore lint/suspicious/noExplicitAny: job and problem bodies are read field by field
      body: (await r.json()) as any,
    }));

  /** Polls the job route until the job is done, as a client would. */
  async function finished(location: string) {
    const path = new URL(location, host.url).pathname;
    for (let i = 0; i < 300; i++) {
      const res = await api.get(path, { token: user.token });
      expect(res.status).toBe(200);
      if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`job ${location} did not finish`);
  }

  const spooled = async () => {
    const names: string[] = [];
    const container = BlobServiceClient.fromConnectionString(storage).getContainerClient(SPOOL_CONTAINER);
    if (!(await container.exists())) return names;
    for await (const b of container.listBlobsFlat()) names.push(b.name);
    return names;
  };

  beforeAll(async () => {
    blob = await startAzurite({ service: 'blob' });
    // The shared queue emulator plus a blob service: AzureWebJobsStorage as an account has both.
    const { inject } = await import('vitest');
    storage = withBlobEndpoint(inject('azuriteConnectionString'), blob.port);
    host = await startTestHost({
      settings: { AzureWebJobsStorage: storage, AnalysisJobs__HeartbeatSeconds: '1' },
      notifier: false,
    });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false, { subscriptions: [SUB, BAD_SUB, CRASH_SUB] });
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await blob?.stop();
  });

  it('answers 202 with the job, imports it on the queue and shows the summary and the run', async () => {
    const csv = focusCsv(exportLines(SUB, '2026-06-01', 142, specs));
    expect(Buffer.byteLength(csv)).toBeGreaterThan(MIB);
    const res = await postCsv(SUB, csv);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ subscriptionId: SUB, status: 'pending' });
    expect(res.headers.get('location')).toBe(`/finops/api/Analysis/jobs/${res.body.jobId}`);

    const job = await finished(res.headers.get('location')!);
    expect(job).toMatchObject({
      jobId: res.body.jobId,
      status: 'completed',
      success: true,
      source: 'import',
      progress: 100,
      import: {
        subscriptionId: SUB,
        format: 'focus',
        rows: 142 * 20,
        skippedRows: 0,
        from: '2026-06-01',
        to: '2026-10-20',
        newAnomalies: 3,
      },
    });
    expect(job.analysisRunId).toBe(job.import.analysisRunId);
    expect(job.message).toContain('Imported 2840 rows (2026-06-01 to 2026-10-20)');

    const run = await api.get(`/finops/api/AnalysisRuns/${job.analysisRunId}`, { token: user.token });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ subscriptionId: SUB });
    const stored = await host.services.prisma.costImport.findUniqueOrThrow({
      where: { id: job.import.importId },
    });
    expect(stored).toMatchObject({ source: 'http', rows: 2840, createdBy: user.email });
    // The spooled body is removed once imported.
    expect((await spooled()).filter((n) => n.startsWith(res.body.jobId))).toEqual([]);
  });

  it('fails the job with the line of a bad row and stores nothing', async () => {
    const lines = focusCsv(exportLines(BAD_SUB, '2026-06-01', 142, specs)).split('\n');
    // Line 2001 (the header is line 1): a date that is not one.
    lines[2000] = lines[2000]!.replace(/2026-\d\d-\d\dT00:00:00Z/g, '2026-13-45T00:00:00Z');
    const res = await postCsv(BAD_SUB, lines.join('\n'));
    expect(res.status).toBe(202);
    const job = await finished(res.headers.get('location')!);
    expect(job).toMatchObject({ status: 'failed', success: false, source: 'import' });
    expect(job.errorDetails).toContain('Line 2001');
    expect(job.errorDetails).toContain("the date '2026-13-45T00:00:00Z' is not a date");
    expect(job.message).toContain('Line 2001');
    expect(
      await host.services.prisma.analysisRun.count({
        where: { subscriptionId: { equals: BAD_SUB, mode: 'insensitive' } },
      }),
    ).toBe(0);
    expect(await host.services.prisma.costImport.count({ where: { subscriptionId: BAD_SUB } })).toBe(0);
    expect((await spooled()).filter((n) => n.startsWith(res.body.jobId))).toEqual([]);
  });

  it('restarts an import whose host stopped mid-job, as the sweeper does for analyses', async () => {
    // What a crash leaves: the input spooled, the job running with a heartbeat long gone, its
    // message taken (and lost with the host).
    const id = randomUUID();
    const spool = (await ImportSpool.open({ connectionString: storage }))!;
    const csv = focusCsv(exportLines(CRASH_SUB, '2026-08-01', 30, specs.slice(0, 3)));
    await spool.writeBody(id, Readable.from([Buffer.from(csv)]));
    await spool.writeRequest(id, {
      kind: 'body',
      subscriptionId: CRASH_SUB,
      metric: 'ActualCost',
      createdBy: user.email,
    });
    const long = new Date(Date.now() - 60_000);
    await host.services.prisma.analysisJob.create({
      data: {
        id,
        subscriptionId: CRASH_SUB,
        source: 'import',
        status: 'running',
        attempts: 1,
        startedAt: long,
        heartbeatAt: long,
        messageSentAt: long,
        messageSends: 1,
      },
    });
    const job = await finished(`/finops/api/Analysis/jobs/${id}`);
    expect(job).toMatchObject({ status: 'completed', attempts: 2, import: { rows: 90, from: '2026-08-01' } });
  });

  it('answers 400 for a subscription id that is not a GUID, before spooling anything', async () => {
    const before = await spooled();
    const res = await fetch(`${host.url}/finops/api/CostImports?subscriptionId=nope`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'text/csv' },
      body: Buffer.alloc(2 * MIB, 'a'),
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json(), text: '' }));
    expect(isProblem(res, 400)).toBe(true);
    expect(await spooled()).toEqual(before);
  });
});
