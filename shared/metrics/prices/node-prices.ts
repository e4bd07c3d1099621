/**
 * Cluster prices from node records: an Azure node's size and region give its hourly retail price,
 * and a price row is written only when a node's price changes (a new node, another size, Azure's
 * price moving), not on every post. The change is a compare-and-set on the node's stored price
 * under the cluster's row lock (the lock order of every metrics-state transaction), so two
 * instances write one row.
 *
 * Raw SQL: the conditional set-based update over arrays (unnest) with RETURNING.
 */
import type { PrismaClient } from '../../db/client.js';
import { normalizeCluster } from '../records.js';
import type { PriceLookup } from './price-lookup.js';
import { nodePrice, type PriceItem, priceRequestSchema } from './retail-api.js';

export interface NodePriceRecord {
  nodeName: string;
  collectedAt: Date;
  cloudProvider?: string | null;
  region?: string | null;
  instanceType?: string | null;
  operatingSystem?: string | null;
}

const AZURE = new Set(['azure', 'aks']);

/** Writes the price rows of nodes whose price changed; returns how many. */
export async function updateNodePrices(
  prisma: PrismaClient,
  lookup: PriceLookup,
  clusterName: string,
  records: NodePriceRecord[],
  now: Date,
): Promise<number> {
  const cluster = normalizeCluster(clusterName);
  const latest = new Map<string, NodePriceRecord>();
  for (const r of records) {
    if (!AZURE.has((r.cloudProvider ?? '').trim().toLowerCase())) continue;
    if (!r.region?.trim() || !r.instanceType?.trim() || !r.nodeName) continue;
    const seen = latest.get(r.nodeName);
    if (!seen || seen.collectedAt < r.collectedAt) latest.set(r.nodeName, r);
  }
  if (!cluster || !latest.size) return 0;

  const wanted: Array<{ record: NodePriceRecord; key: string; item: PriceItem; os: string }> = [];
  const byKey = new Map<string, Promise<PriceItem | undefined>>();
  for (const r of latest.values()) {
    const os = /windows/i.test(r.operatingSystem ?? '') ? 'Windows' : 'Linux';
    const request = priceRequestSchema.safeParse({
      currencyCode: 'USD',
      serviceName: 'Virtual Machines',
      armSkuName: r.instanceType!.trim(),
      armRegionName: r.region!.trim(),
      type: 'Consumption',
      operatingSystem: os,
    });
    if (!request.success) continue;
    const key = `${request.data.armRegionName}|${request.data.armSkuName}|${os}`;
    let item = byKey.get(key);
    if (!item) {
      item = lookup.get(request.data).then((res) => nodePrice(res.Items));
      byKey.set(key, item);
    }
    const found = await item;
    if (found) wanted.push({ record: r, key, item: found, os });
  }
  if (!wanted.length) return 0;

  const stored = new Map(
    (
      await prisma.metricsNodeState.findMany({
        where: { clusterName: cluster, nodeName: { in: wanted.map((w) => w.record.nodeName) } },
        select: { nodeName: true, priceKey: true, retailPrice: true },
      })
    ).map((s) => [s.nodeName, s]),
  );
  const changed = wanted
    .filter((w) => {
      const s = stored.get(w.record.nodeName);
      return s && (s.priceKey !== w.key || s.retailPrice !== w.item.retailPrice);
    })
    .sort((a, b) => (a.record.nodeName < b.record.nodeName ? -1 : 1));
  if (!changed.length) return 0;

  return prisma.$transaction(async (tx) => {
    await tx.$queryRawUnsafe(
      `SELECT 1 FROM "MetricsClusterStates" WHERE "clusterName" = $1 FOR UPDATE`,
      cluster,
    );
    const won = new Set(
      (
        await tx.$queryRawUnsafe<Array<{ nodeName: string }>>(
          `UPDATE "MetricsNodeStates" s SET "priceKey" = u.k, "retailPrice" = u.p
             FROM unnest($2::text[], $3::text[], $4::double precision[]) AS u(n, k, p)
            WHERE s."clusterName" = $1 AND s."nodeName" = u.n
              AND (s."priceKey" IS DISTINCT FROM u.k OR s."retailPrice" IS DISTINCT FROM u.p)
            RETURNING s."nodeName"`,
          cluster,
          changed.map((c) => c.record.nodeName),
          changed.map((c) => c.key),
          changed.map((c) => c.item.retailPrice),
        )
      ).map((r) => r.nodeName),
    );
    const rows = changed.filter((c) => won.has(c.record.nodeName));
    if (!rows.length) return 0;
    await tx.metricsClusterPrice.createMany({
      data: rows.map(({ record, item, os }) => ({
        timestamp: now,
        clusterName: cluster,
        nodeName: record.nodeName,
        region: record.region!.trim(),
        instanceType: record.instanceType!.trim(),
        operatingSystem: os,
        cloudProvider: record.cloudProvider!.trim(),
        currencyCode: item.currencyCode || 'USD',
        unitPrice: item.unitPrice,
        retailPrice: item.retailPrice,
        meterName: item.meterName,
        productName: item.productName,
        skuName: item.skuName,
        serviceName: item.serviceName,
        armRegionName: item.armRegionName,
        effectiveStartDate: Number.isNaN(Date.parse(item.effectiveStartDate))
          ? new Date(0)
          : new Date(item.effectiveStartDate),
      })),
    });
    return rows.length;
  });
}
