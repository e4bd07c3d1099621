import type { PrismaClient } from '../../db/client.js';
import { type AiRecommendation, Prisma } from '../../db/generated/client.js';
import { offsetFree } from './format.js';
import { recommendationOut } from './mappers.js';
import { rawPage } from './raw-page.js';

const NEWEST_FIRST = Prisma.sql`ORDER BY "recordedAt" DESC, id DESC`;

export async function recommendationsByRun(prisma: PrismaClient, runId: number, skip: number, take: number) {
  const from = Prisma.sql`"AiRecommendations" WHERE "analysisRunId" = ${runId}`;
  const { rows, total } = await rawPage<AiRecommendation>(prisma, from, NEWEST_FIRST, skip, take);
  return { rows: rows.map(recommendationOut), total };
}

export async function latestRecommendation(prisma: PrismaClient, runId: number) {
  const [row] = await prisma.$queryRaw<AiRecommendation[]>`
    SELECT * FROM "AiRecommendations" WHERE "analysisRunId" = ${runId} ${NEWEST_FIRST} LIMIT 1`;
  return row ? recommendationOut(row) : null;
}

/** Every recommendation, newest first; `analysisRun` is null instead of the loaded run (W1). */
export async function listRecommendations(prisma: PrismaClient, skip: number, take: number) {
  const { rows, total } = await rawPage<AiRecommendation>(
    prisma,
    Prisma.sql`"AiRecommendations"`,
    NEWEST_FIRST,
    skip,
    take,
  );
  return { rows: rows.map(recommendationOut), total };
}

/**
 * The agent's markdown sometimes arrives with escaped line breaks. Literal `\r\n` is replaced
 * before literal `\n` (the original did it the other way round and left stray `\r`, W19), and
 * real CRLF becomes LF.
 */
export function formatRecommendationText(text: string): string {
  return text.replaceAll('\\r\\n', '\n').replaceAll('\\n', '\n').replaceAll('\r\n', '\n');
}

/** The stored summary, else the first three non-empty lines joined with a space (as the original). */
export function recommendationSummary(r: Pick<AiRecommendation, 'summary' | 'recommendationText'>): string {
  if (r.summary) return r.summary;
  return formatRecommendationText(r.recommendationText)
    .split(/[\r\n]+/)
    .filter((l) => l.length > 0)
    .slice(0, 3)
    .join(' ');
}

export async function formattedRecommendation(prisma: PrismaClient, id: number) {
  const r = await prisma.aiRecommendation.findUnique({ where: { id } });
  if (!r) return null;
  return {
    id: r.id,
    analysisRunId: r.analysisRunId,
    formattedText: formatRecommendationText(r.recommendationText),
    summary: recommendationSummary(r),
    model: r.model,
    recordedAt: offsetFree(r.recordedAt),
  };
}
