/**
 * Stores a parsed cost export as an analysis run of its subscription, marked as imported (a
 * CostImports row), then runs anomaly detection on it. The run is written all or nothing
 * (persistRun); should the marker fail, the run is deleted again, so no half import stays.
 */
import type { CoreServices } from '../../app/services.js';
import type { PrismaClient } from '../../db/client.js';
import type { Logger } from '../../observability/logger.js';
import { historyRange } from '../azure/index.js';
import { costDetailLines, costDetailRows } from '../engine/cost-aggregate.js';
import { HISTORY_MONTHS } from '../engine/period.js';
import { type CarriedHistory, persistRun } from '../engine/persist.js';
import { afterRunStored } from '../intel/after-run.js';
import type { DetectSettings } from '../intel/detect.js';
import type { CostMetric } from './columns.js';
import type { ParsedExport } from './parse.js';

export interface ImportDeps {
  prisma: PrismaClient;
  log: Logger;
  postgresUrl?: string | undefined;
  intel?: DetectSettings | undefined;
}

export interface ImportSummary {
  analysisRunId: number;
  importId: number;
  subscriptionId: string;
  format: ParsedExport['format'];
  costType: CostMetric;
  currency: string;
  rows: number;
  skippedRows: number;
  from: string;
  to: string;
  rowsWritten: number;
  newAnomalies: number;
  /** Blobs read (blob imports). */
  files?: number;
}

/** The store's dependencies from the app's services. */
export function importDeps(core: Pick<CoreServices, 'config' | 'prisma' | 'log' | 'db'>): ImportDeps {
  const f = core.config.finops;
  return {
    prisma: core.prisma,
    log: core.log,
    postgresUrl:
      core.db.kind === 'postgres' ? core.config.platform.ConnectionStrings__SqlConnectionString : undefined,
    intel: { sensitivity: f.Anomalies__Sensitivity, minImpact: f.Anomalies__MinImpact },
  };
}

export type ImportMeta = {
  source: 'http' | 'blob';
  location?: string;
  createdBy?: string;
  metric: CostMetric;
};

/**
 * Several subscriptions' imports from one export, all or none: should one fail, the runs stored
 * before it are deleted again, so a retried job starts from nothing.
 */
export async function storeImports(
  deps: ImportDeps,
  parsed: ParsedExport[],
  subscriptionIds: string[],
  meta: ImportMeta,
): Promise<ImportSummary[]> {
  const done: ImportSummary[] = [];
  try {
    for (let i = 0; i < parsed.length; i++) {
      done.push(await storeImport(deps, subscriptionIds[i]!, parsed[i]!, meta));
    }
  } catch (err) {
    for (const s of done) {
      await deps.prisma.costImport.deleteMany({ where: { id: s.importId } }).catch(() => undefined);
      await deps.prisma.analysisRun.deleteMany({ where: { id: s.analysisRunId } }).catch(() => undefined);
    }
    throw err;
  }
  return done;
}

const round4 = (n: number) => Math.round(n * 10000) / 10000;

/**
 * The run an import creates becomes the subscription's latest, which dashboards, detection and the
 * forecast read: it keeps the earlier run's days the export does not cover (a month-to-date export
 * would otherwise leave one month of history), over the six months an analysis would cover,
 * ending at the later of the two runs' last day.
 */
async function carriedHistory(
  prisma: PrismaClient,
  fromRunId: number,
  parsed: ParsedExport,
): Promise<CarriedHistory> {
  const last = await prisma.historicalCost.aggregate({
    where: { analysisRunId: fromRunId },
    _max: { costDate: true },
  });
  const previousTo = last._max.costDate?.toISOString().slice(0, 10);
  const to = previousTo && previousTo > parsed.to ? previousTo : parsed.to;
  return {
    fromRunId,
    currency: parsed.currency,
    from: historyRange(new Date(`${to}T00:00:00.000Z`), HISTORY_MONTHS).from,
    to,
    skipFrom: parsed.from,
    skipTo: parsed.to,
  };
}

export async function storeImport(
  deps: ImportDeps,
  subscriptionId: string,
  parsed: ParsedExport,
  meta: ImportMeta,
): Promise<ImportSummary> {
  const { prisma } = deps;
  const recordedAt = new Date();
  const previous = await prisma.analysisRun.findFirst({
    where: { subscriptionId },
    orderBy: [{ runDate: 'desc' }, { id: 'desc' }],
    select: { id: true, subscriptionName: true },
  });
  const monthFrom = `${parsed.to.slice(0, 7)}-01`;
  const lines = costDetailLines(parsed.lastMonth);
  let monthTotal = 0;
  for (const r of parsed.lastMonth) monthTotal += r.cost;
  const currency = parsed.currency;
  const saved = await persistRun(
    prisma,
    {
      run: {
        subscriptionId,
        subscriptionName: previous?.subscriptionName ?? subscriptionId,
        runDate: recordedAt,
        totalMonthlyCost: round4(monthTotal),
        totalResourcesAnalyzed: 0,
        currency,
        costQueryType: meta.metric,
        monthSelection: 'current',
        periodFrom: new Date(`${monthFrom}T00:00:00.000Z`),
        periodTo: new Date(`${parsed.to}T00:00:00.000Z`),
        recommendationSource: 'none',
        recommendationError: null,
      },
      resources: [],
      costDetails: costDetailRows(lines, currency, recordedAt),
      historicalCosts: parsed.history.historicalRows(subscriptionId, currency, recordedAt),
      recommendations: [],
      carryHistory: previous ? await carriedHistory(prisma, previous.id, parsed) : undefined,
    },
    { postgresUrl: deps.postgresUrl },
  );
  let importId: number;
  try {
    const row = await prisma.costImport.create({
      data: {
        analysisRunId: saved.runId,
        subscriptionId,
        source: meta.source,
        format: parsed.format,
        location: meta.location ?? null,
        rows: parsed.rows,
        skippedRows: parsed.skippedRows,
        fromDate: new Date(`${parsed.from}T00:00:00.000Z`),
        toDate: new Date(`${parsed.to}T00:00:00.000Z`),
        createdBy: meta.createdBy ?? null,
      },
    });
    importId = row.id;
  } catch (err) {
    await prisma.analysisRun.delete({ where: { id: saved.runId } }).catch(() => undefined);
    throw err;
  }
  const found = await afterRunStored(deps, saved.runId);
  deps.log.info({ subscriptionId, analysisRunId: saved.runId, rows: parsed.rows }, 'cost export imported');
  return {
    analysisRunId: saved.runId,
    importId,
    subscriptionId,
    format: parsed.format,
    costType: meta.metric,
    currency,
    rows: parsed.rows,
    skippedRows: parsed.skippedRows,
    from: parsed.from,
    to: parsed.to,
    rowsWritten: saved.rows,
    newAnomalies: found.length,
  };
}
