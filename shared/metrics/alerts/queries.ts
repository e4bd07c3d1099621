/**
 * Reads and writes behind the MetricsAlert, MetricsNotification and cluster-prices routes. Every
 * read takes the caller's visible clusters (undefined: all) and is bounded by the paging rule.
 */
import type { PrismaClient } from '../../db/client.js';
import { Prisma } from '../../db/generated/client.js';
import { countedPage } from '../../http/paging.js';

export interface AlertFilter {
  clusters: string[] | undefined;
  clusterName?: string | undefined;
  nodeName?: string | undefined;
  since: Date;
}

/** The original's MetricsAlert, plus `kind`. timeStamp is the UTC wall clock without a zone, as it answered. */
export interface AlertOut {
  id: number;
  nodeName: string;
  clusterName: string;
  timeStamp: string;
  status: boolean;
  message: string | null;
  kind: string;
}

function alertWhere(f: AlertFilter): Prisma.MetricsAlertWhereInput {
  const cluster: Prisma.StringFilter | string | undefined =
    f.clusterName !== undefined ? f.clusterName : f.clusters ? { in: f.clusters } : undefined;
  return {
    ...(cluster !== undefined ? { clusterName: cluster } : {}),
    ...(f.nodeName !== undefined ? { nodeName: f.nodeName } : {}),
    timeStamp: { gte: f.since },
  };
}

export async function listAlerts(
  prisma: PrismaClient,
  f: AlertFilter,
  skip: number,
  take: number,
): Promise<{ rows: AlertOut[]; total: number }> {
  if (f.clusters?.length === 0) return { rows: [], total: 0 };
  const where = alertWhere(f);
  const { rows, total } = await countedPage(
    () =>
      prisma.metricsAlert.findMany({ where, orderBy: [{ timeStamp: 'desc' }, { id: 'desc' }], skip, take }),
    { skip, take },
    () => prisma.metricsAlert.count({ where }),
  );
  return {
    rows: rows.map((r) => ({
      id: r.id,
      nodeName: r.nodeName,
      clusterName: r.clusterName,
      timeStamp: r.timeStamp.toISOString().replace('Z', ''),
      status: r.status,
      message: r.message,
      kind: r.kind,
    })),
    total,
  };
}

export async function listClusterNotifications(
  prisma: PrismaClient,
  clusterName: string,
): Promise<Array<{ clusterName: string; notificationId: number }>> {
  return prisma.metricsNotification.findMany({
    where: { clusterName },
    orderBy: { notificationId: 'asc' },
    select: { clusterName: true, notificationId: true },
  });
}

export type AddOutcome = 'added' | 'exists' | 'noChannel';

/**
 * Maps a cluster to a channel. ON CONFLICT DO NOTHING (createMany skipDuplicates) makes a
 * concurrent duplicate an 'exists', never a key violation; a channel deleted meanwhile is a
 * foreign-key failure, answered as 'noChannel'.
 */
export async function addClusterNotification(
  prisma: PrismaClient,
  clusterName: string,
  notificationId: number,
): Promise<AddOutcome> {
  const channel = await prisma.notificationChannel.findUnique({
    where: { id: notificationId },
    select: { id: true },
  });
  if (!channel) return 'noChannel';
  try {
    const r = await prisma.metricsNotification.createMany({
      data: [{ clusterName, notificationId }],
      skipDuplicates: true,
    });
    return r.count ? 'added' : 'exists';
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2003') return 'noChannel';
    throw err;
  }
}

export async function removeClusterNotification(
  prisma: PrismaClient,
  clusterName: string,
  notificationId: number,
): Promise<number> {
  return (await prisma.metricsNotification.deleteMany({ where: { clusterName, notificationId } })).count;
}

export interface PriceFilter {
  clusters: string[] | undefined;
  clusterName?: string | undefined;
  nodeName?: string | undefined;
  region?: string | undefined;
  instanceType?: string | undefined;
  since: Date;
}

/** The original's ClusterPriceDto. */
export interface ClusterPriceOut {
  timestamp: string;
  clusterName: string;
  nodeName: string;
  region: string | null;
  instanceType: string | null;
  operatingSystem: string | null;
  cloudProvider: string | null;
  currencyCode: string;
  unitPrice: number;
  retailPrice: number;
  meterName: string;
  productName: string;
  skuName: string;
  serviceName: string;
  armRegionName: string;
  effectiveStartDate: string;
}

/**
 * Prices in effect during the window: the rows written in it and, for each node that reported in
 * it, the row in effect when it began (rows are written on change only, so a steady price has no
 * row inside a short window). Raw SQL: DISTINCT ON and a union Prisma's query API does not express.
 */
const PRICES_IN_WINDOW = `
  WITH f AS (
    SELECT * FROM "MetricsClusterPrices" p
     WHERE ($1::text[] IS NULL OR p."clusterName" = ANY($1::text[]))
       AND ($2::text IS NULL OR p."clusterName" = $2::text)
       AND ($3::text IS NULL OR p."nodeName" = $3::text)
       AND ($4::text IS NULL OR p."region" = $4::text)
       AND ($5::text IS NULL OR p."instanceType" = $5::text)
  ), carried AS (
    SELECT DISTINCT ON (f."clusterName", f."nodeName") f.*
      FROM f JOIN "MetricsNodeStates" s
        ON s."clusterName" = f."clusterName" AND s."nodeName" = f."nodeName" AND s."lastSeenAt" >= $6::timestamptz
     WHERE f."timestamp" < $6::timestamptz
     ORDER BY f."clusterName", f."nodeName", f."timestamp" DESC, f.id DESC
  ), w AS (
    SELECT * FROM f WHERE f."timestamp" >= $6::timestamptz
    UNION ALL SELECT * FROM carried
  )`;

export async function listClusterPrices(
  prisma: PrismaClient,
  f: PriceFilter,
  skip: number,
  take: number,
): Promise<{ rows: ClusterPriceOut[]; total: number }> {
  if (f.clusters?.length === 0) return { rows: [], total: 0 };
  const params = [
    f.clusters ?? null,
    f.clusterName ?? null,
    f.nodeName ?? null,
    f.region ?? null,
    f.instanceType ?? null,
    f.since.toISOString(),
  ];
  const [rows, count] = await Promise.all([
    prisma.$queryRawUnsafe<Array<Record<string, unknown>>>(
      `${PRICES_IN_WINDOW} SELECT * FROM w ORDER BY "timestamp" DESC, id DESC OFFSET $7 LIMIT $8`,
      ...params,
      skip,
      take,
    ),
    prisma.$queryRawUnsafe<Array<{ n: bigint | number }>>(
      `${PRICES_IN_WINDOW} SELECT count(*) AS n FROM w`,
      ...params,
    ),
  ]);
  const iso = (v: unknown) => new Date(v as string | Date).toISOString();
  return {
    rows: rows.map((r) => ({
      timestamp: iso(r.timestamp),
      clusterName: r.clusterName as string,
      nodeName: r.nodeName as string,
      region: (r.region as string | null) ?? null,
      instanceType: (r.instanceType as string | null) ?? null,
      operatingSystem: (r.operatingSystem as string | null) ?? null,
      cloudProvider: (r.cloudProvider as string | null) ?? null,
      currencyCode: r.currencyCode as string,
      unitPrice: Number(r.unitPrice),
      retailPrice: Number(r.retailPrice),
      meterName: r.meterName as string,
      productName: r.productName as string,
      skuName: r.skuName as string,
      serviceName: r.serviceName as string,
      armRegionName: r.armRegionName as string,
      effectiveStartDate: iso(r.effectiveStartDate),
    })),
    total: Number(count[0]?.n ?? 0),
  };
}

/** Alerts deleted per pass at most: the timer runs every minute, so a backlog drains without a long statement. */
export const EXPIRE_BATCH = 10_000;

/** Deletes alerts older than `before` (a bounded batch; raw SQL for the LIMIT Prisma's deleteMany lacks). */
export async function deleteExpiredAlerts(prisma: PrismaClient, before: Date): Promise<number> {
  return prisma.$executeRawUnsafe(
    `DELETE FROM "MetricsAlerts" WHERE id IN (
       SELECT id FROM "MetricsAlerts" WHERE "timeStamp" < $1::timestamp LIMIT ${EXPIRE_BATCH})`,
    before.toISOString().replace('Z', ''),
  );
}
