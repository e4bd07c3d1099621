/**
 * Writes a run all or nothing: the AnalysisRun row and every child row in one transaction, children
 * with createMany in chunks (multi-row INSERTs). A failure rolls everything back, so a failed
 * analysis never leaves a half-written run behind, nor becomes its subscription's latest run.
 * Older runs are not touched (POST /Analysis/cleanup removes them when asked).
 */
import type { Prisma, PrismaClient } from '../../db/generated/client.js';

export const CHUNK_ROWS = 5_000;
/** A large run (10,000 resources, 6 months of history) writes ~600,000 rows: allow it time. */
export const TRANSACTION_TIMEOUT_MS = 30 * 60_000;

type RunData = Omit<Prisma.AnalysisRunUncheckedCreateInput, 'id'>;
type Child<T> = Omit<T, 'analysisRunId' | 'id'>;

export interface RunToPersist {
  run: RunData;
  resources: Iterable<Child<Prisma.ResourceAnalysisCreateManyInput>>;
  costDetails: Iterable<Child<Prisma.CostDetailCreateManyInput>>;
  historicalCosts: Iterable<Child<Prisma.HistoricalCostCreateManyInput>>;
  recommendations: Iterable<Child<Prisma.AiRecommendationCreateManyInput>>;
}

export interface PersistStats {
  runId: number;
  rows: number;
  ms: number;
}

function* chunks<T>(rows: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

export async function persistRun(prisma: PrismaClient, data: RunToPersist): Promise<PersistStats> {
  const started = performance.now();
  let rows = 0;
  const runId = await prisma.$transaction(
    async (tx) => {
      const run = await tx.analysisRun.create({ data: data.run, select: { id: true } });
      const analysisRunId = run.id;
      for (const batch of chunks(data.resources, CHUNK_ROWS)) {
        rows += (await tx.resourceAnalysis.createMany({ data: batch.map((r) => ({ ...r, analysisRunId })) }))
          .count;
      }
      for (const batch of chunks(data.costDetails, CHUNK_ROWS)) {
        rows += (await tx.costDetail.createMany({ data: batch.map((r) => ({ ...r, analysisRunId })) })).count;
      }
      for (const batch of chunks(data.historicalCosts, CHUNK_ROWS)) {
        rows += (await tx.historicalCost.createMany({ data: batch.map((r) => ({ ...r, analysisRunId })) }))
          .count;
      }
      for (const batch of chunks(data.recommendations, CHUNK_ROWS)) {
        rows += (await tx.aiRecommendation.createMany({ data: batch.map((r) => ({ ...r, analysisRunId })) }))
          .count;
      }
      return analysisRunId;
    },
    { timeout: TRANSACTION_TIMEOUT_MS, maxWait: 60_000 },
  );
  return { runId, rows: rows + 1, ms: performance.now() - started };
}
