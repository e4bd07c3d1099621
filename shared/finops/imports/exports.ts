/**
 * Scheduled import of Cost Management exports from the configured container
 * (CostExports__ContainerUrl). An export run writes its part files, then `manifest.json` last
 * (`<directory>/<exportName>/<YYYYMMDD-YYYYMMDD>/<runId>/`), so a run without a manifest is still
 * being written and is left alone. Folder names are not relied on: every listed manifest says its
 * export (exportConfig.exportName), its period (runInfo.startDate), when it ran
 * (runInfo.submittedTime) and its files (blobs[].blobName). Of the runs of one export and period,
 * only the newest is imported (a month-to-date export writes a new run each day); each manifest is
 * decided once and remembered in CostExportRuns, so a tick reads only manifests it has not seen.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CoreServices } from '../../app/services.js';
import type { AppConfig } from '../../config/index.js';
import type { AnalysisJob } from '../../db/generated/client.js';
import { containerClient, namedBlobFiles, readSmallBlob, withoutQuery } from './blob.js';
import { type CostMetric, ImportError } from './columns.js';
import { ExportSet, finishExport } from './parse.js';
import { type ImportProgress, readFiles } from './progress.js';
import { type ImportSummary, importDeps, storeImports } from './store.js';

const Manifest = z.object({
  exportConfig: z.object({ exportName: z.string().min(1), type: z.string().optional() }),
  runInfo: z.object({
    runId: z.string().optional(),
    startDate: z.string().optional(),
    submittedTime: z.string().optional(),
  }),
  blobs: z.array(z.object({ blobName: z.string(), byteCount: z.number().optional() })).optional(),
});
type Manifest = z.infer<typeof Manifest>;

/** A manifest is a few kilobytes; this bounds a wrong file's cost. */
const MANIFEST_MAX_BYTES = 4 * 1024 * 1024;
const MANIFEST_NAME = /(^|\/)manifest\.json$/i;
const PERIOD_FOLDER = /\/(\d{8})-\d{8}\//;
const CSV_NAME = /\.csv(\.gz)?$/i;

/** The export import's timer, or nothing when no export container is configured. */
export function exportImportTimerTrigger(config: AppConfig) {
  if (!config.finops.CostExports__ContainerUrl) return undefined;
  return { name: 'cost-export-import', schedule: config.finops.CostExports__Schedule };
}

/** The subscription an export is mapped to (CostExports__Subscriptions), by export name. */
export function exportSubscriptions(entries: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const e of entries) {
    const i = e.lastIndexOf('=');
    map.set(
      e.slice(0, i).trim().toLowerCase(),
      e
        .slice(i + 1)
        .trim()
        .toLowerCase(),
    );
  }
  return map;
}

function containerBase(url: string): string {
  return withoutQuery(url).replace(/\/+$/, '');
}

async function readManifest(container: ReturnType<typeof containerClient>, name: string): Promise<Manifest> {
  const text = await readSmallBlob(container.getBlobClient(name), MANIFEST_MAX_BYTES);
  const parsed = Manifest.safeParse(JSON.parse(text));
  if (!parsed.success) throw new ImportError(422, `${name} is not a Cost Management export manifest.`);
  return parsed.data;
}

interface Candidate {
  manifest: string;
  exportName: string;
  periodStart: string;
  submittedTime: string;
}

const newer = (a: Candidate, b: Candidate) =>
  a.submittedTime > b.submittedTime || (a.submittedTime === b.submittedTime && a.manifest > b.manifest);

export interface ExportScanResult {
  manifests: number;
  queued: AnalysisJob[];
  superseded: number;
}

const isUniqueViolation = (e: unknown) => (e as { code?: string }).code === 'P2002';

/**
 * One tick of the schedule: decides every manifest not seen before, and queues an import job for
 * each that is the newest of its export and period. Safe on several instances at once: a manifest's
 * row is unique, and the instance that inserts it is the one that queues its job.
 */
export async function scanExportContainer(
  core: CoreServices,
  send: (job: AnalysisJob) => Promise<unknown>,
): Promise<ExportScanResult> {
  const result: ExportScanResult = { manifests: 0, queued: [], superseded: 0 };
  const url = core.config.finops.CostExports__ContainerUrl;
  if (!url) return result;
  const base = containerBase(url);
  const container = containerClient(url);
  const listed: Array<{ name: string; lastModified: Date }> = [];
  for await (const b of container.listBlobsFlat()) {
    if (MANIFEST_NAME.test(b.name)) listed.push({ name: b.name, lastModified: b.properties.lastModified });
  }
  result.manifests = listed.length;
  const known: Candidate[] = await core.prisma.costExportRun.findMany({
    where: { manifest: { startsWith: `${base}/` } },
    select: { manifest: true, exportName: true, periodStart: true, submittedTime: true },
  });
  const seen = new Set(known.map((k) => k.manifest));
  const fresh: Candidate[] = [];
  for (const b of listed) {
    const key = `${base}/${b.name}`;
    if (seen.has(key)) continue;
    try {
      const m = await readManifest(container, b.name);
      fresh.push({
        manifest: key,
        exportName: m.exportConfig.exportName,
        periodStart: m.runInfo.startDate ?? PERIOD_FOLDER.exec(`/${b.name}`)?.[1] ?? '',
        submittedTime: m.runInfo.submittedTime ?? b.lastModified.toISOString(),
      });
    } catch (err) {
      // Left undecided: looked at again next tick (a manifest being replaced, a transient error).
      core.log.warn({ manifest: b.name, reason: (err as Error).message }, 'export manifest not read');
    }
  }
  const groupOf = (c: Candidate) => `${c.exportName.toLowerCase()}\u0000${c.periodStart}`;
  const newest = new Map<string, Candidate>();
  for (const c of [...known, ...fresh]) {
    const cur = newest.get(groupOf(c));
    if (!cur || newer(c, cur)) newest.set(groupOf(c), c);
  }
  const mapped = exportSubscriptions(core.config.finops.CostExports__Subscriptions);
  fresh.sort((a, b) => a.periodStart.localeCompare(b.periodStart) || (newer(a, b) ? 1 : -1));
  for (const c of fresh) {
    const row = {
      manifest: c.manifest,
      exportName: c.exportName,
      periodStart: c.periodStart,
      submittedTime: c.submittedTime,
    };
    if (newest.get(groupOf(c)) !== c) {
      await core.prisma.costExportRun
        .create({ data: { ...row, decision: 'superseded' } })
        .catch((e) => (isUniqueViolation(e) ? undefined : Promise.reject(e)));
      result.superseded++;
      continue;
    }
    const id = randomUUID();
    let job: AnalysisJob;
    try {
      job = await core.prisma.$transaction(async (tx) => {
        await tx.costExportRun.create({ data: { ...row, decision: 'import', jobId: id } });
        return tx.analysisJob.create({
          data: {
            id,
            // An export of several subscriptions is one job; its summary lists each.
            subscriptionId: mapped.get(c.exportName.toLowerCase()) ?? '*',
            source: 'import',
            status: 'pending',
          },
        });
      });
    } catch (e) {
      if (isUniqueViolation(e)) continue; // another instance decided it meanwhile
      throw e;
    }
    await send(job);
    result.queued.push(job);
  }
  if (result.queued.length || result.superseded) {
    core.log.info(
      { queued: result.queued.length, superseded: result.superseded },
      'cost export runs found in the export container',
    );
  }
  return result;
}

/**
 * The files of a run with their sizes: the manifest's list (names relative to the container; a name
 * that starts with the container's own is cut), or undefined when it lists no CSV.
 */
function parts(
  manifest: Manifest,
  folder: string,
  containerName: string,
): Array<{ name: string; size: number }> | undefined {
  const list = (manifest.blobs ?? [])
    .map((b) => {
      let name = b.blobName.replace(/^\/+/, '');
      if (name.startsWith(`${containerName}/`) && !name.startsWith(folder))
        name = name.slice(containerName.length + 1);
      if (!name.includes('/')) name = `${folder}${name}`;
      return { name, size: b.byteCount ?? 0 };
    })
    .filter((p) => CSV_NAME.test(p.name));
  return list.length ? list : undefined;
}

/** The job of one export run: its files read once, one run stored per subscription. */
export async function runExportJob(
  core: CoreServices,
  manifestKey: string,
  progress: ImportProgress,
): Promise<ImportSummary[]> {
  const url = core.config.finops.CostExports__ContainerUrl;
  const base = url ? containerBase(url) : '';
  if (!url || !manifestKey.startsWith(`${base}/`)) {
    throw new ImportError(422, 'The export run is not in the configured CostExports__ContainerUrl any more.');
  }
  const name = manifestKey.slice(base.length + 1);
  const container = containerClient(url);
  const manifest = await readManifest(container, name);
  const folder = name.slice(0, name.lastIndexOf('/') + 1);
  let files = parts(manifest, folder, container.containerName);
  if (!files) {
    files = [];
    for await (const b of container.listBlobsFlat({ prefix: folder })) {
      if (CSV_NAME.test(b.name)) files.push({ name: b.name, size: b.properties.contentLength ?? 0 });
    }
    files.sort((x, y) => x.name.localeCompare(y.name));
  }
  if (!files.length) throw new ImportError(422, `The export run ${folder} has no CSV file.`);
  const type = manifest.exportConfig.type ?? '';
  // A cost details export says which cost it holds; a FOCUS export holds both (the setting picks).
  const metric: CostMetric =
    type === 'AmortizedCost' || type === 'ActualCost' ? type : core.config.finops.Cloud__CostQueryType;
  const only = exportSubscriptions(core.config.finops.CostExports__Subscriptions).get(
    manifest.exportConfig.exportName.toLowerCase(),
  );
  const set = new ExportSet(metric, only);
  await progress('reading', 0);
  await readFiles(
    set,
    namedBlobFiles(
      container,
      files.map((p) => p.name),
    ),
    progress,
    files.reduce((t, f) => t + f.size, 0),
  );
  const accs = set.accumulators();
  if (!accs.length) {
    throw new ImportError(
      422,
      `The export run ${folder} has no rows that name a subscription; map its export in CostExports__Subscriptions.`,
    );
  }
  const parsed = accs.map((acc) => finishExport(acc));
  await progress('saving');
  return storeImports(
    importDeps(core),
    parsed,
    accs.map((a) => a.subscriptionId),
    { source: 'blob', location: `${base}/${folder}`, createdBy: 'schedule', metric },
  );
}
