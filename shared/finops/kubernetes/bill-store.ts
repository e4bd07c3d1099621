/**
 * The Kubernetes bill in the database: the AKS clusters found by the analyses and the daily cost of
 * each of their resources, actual and amortized.
 */
import type { PrismaClient } from '../../db/client.js';
import type { BillKind, ClusterDisk, ClusterPlan, ClusterPool } from './discover.js';

export interface BillRow {
  /** yyyy-MM-dd. */
  day: string;
  resourceId: string;
  kind: BillKind;
  actualCost: number;
  amortizedCost: number;
  quantity: number | null;
  currency: string;
}

export interface StoredCluster {
  id: string;
  subscriptionId: string;
  name: string;
  resourceGroup: string;
  nodeResourceGroup: string;
  location: string;
  tier: string | null;
  pools: ClusterPool[];
  disks: ClusterDisk[];
  collectedAt: Date;
  firstBilledDay: string | null;
  lastBilledDay: string | null;
}

const dayDate = (d: string) => new Date(`${d}T00:00:00Z`);
const ymd = (d: Date) => d.toISOString().slice(0, 10);

/** Replaces the cluster's bill over from..to (the days a collection covered) and its description. */
export async function saveClusterBill(
  prisma: PrismaClient,
  plan: ClusterPlan,
  rows: BillRow[],
  from: string,
  to: string,
  collectedAt: Date,
): Promise<void> {
  const cluster = {
    subscriptionId: plan.subscriptionId,
    name: plan.name,
    resourceGroup: plan.resourceGroup,
    nodeResourceGroup: plan.nodeResourceGroup,
    location: plan.location,
    tier: plan.tier,
    pools: plan.pools as unknown as object,
    disks: plan.disks as unknown as object,
    collectedAt,
  };
  await prisma.$transaction([
    prisma.kubernetesManagedCluster.upsert({
      where: { id: plan.id },
      create: { id: plan.id, ...cluster },
      update: cluster,
    }),
    prisma.kubernetesBilledCost.deleteMany({
      where: { clusterId: plan.id, day: { gte: dayDate(from), lte: dayDate(to) } },
    }),
    prisma.kubernetesBilledCost.createMany({
      data: rows.map((r) => ({
        clusterId: plan.id,
        day: dayDate(r.day),
        resourceId: r.resourceId,
        kind: r.kind,
        actualCost: r.actualCost,
        amortizedCost: r.amortizedCost,
        quantity: r.quantity,
        currency: r.currency,
        collectedAt,
      })),
    }),
  ]);
}

/** The clusters of these subscriptions (undefined: all), with their first and last billed day. */
export async function listBilledClusters(
  prisma: PrismaClient,
  subscriptionIds?: string[],
): Promise<StoredCluster[]> {
  const clusters = await prisma.kubernetesManagedCluster.findMany({
    where: subscriptionIds ? { subscriptionId: { in: subscriptionIds.map((s) => s.toLowerCase()) } } : {},
    orderBy: { id: 'asc' },
  });
  if (clusters.length === 0) return [];
  const spans = await prisma.kubernetesBilledCost.groupBy({
    by: ['clusterId'],
    where: { clusterId: { in: clusters.map((c) => c.id) } },
    _min: { day: true },
    _max: { day: true },
  });
  const span = new Map(spans.map((s) => [s.clusterId, s]));
  return clusters.map((c) => ({
    id: c.id,
    subscriptionId: c.subscriptionId,
    name: c.name,
    resourceGroup: c.resourceGroup,
    nodeResourceGroup: c.nodeResourceGroup,
    location: c.location,
    tier: c.tier,
    pools: c.pools as unknown as ClusterPool[],
    disks: c.disks as unknown as ClusterDisk[],
    collectedAt: c.collectedAt,
    firstBilledDay: span.get(c.id)?._min.day ? ymd(span.get(c.id)!._min.day!) : null,
    lastBilledDay: span.get(c.id)?._max.day ? ymd(span.get(c.id)!._max.day!) : null,
  }));
}

/** The cluster's billed rows from..to inclusive, as numbers. */
export async function billRows(
  prisma: PrismaClient,
  clusterId: string,
  from: string,
  to: string,
): Promise<BillRow[]> {
  const rows = await prisma.kubernetesBilledCost.findMany({
    where: { clusterId, day: { gte: dayDate(from), lte: dayDate(to) } },
    orderBy: [{ day: 'asc' }, { resourceId: 'asc' }],
  });
  return rows.map((r) => ({
    day: ymd(r.day),
    resourceId: r.resourceId,
    kind: r.kind as BillKind,
    actualCost: Number(r.actualCost),
    amortizedCost: Number(r.amortizedCost),
    quantity: r.quantity === null ? null : Number(r.quantity),
    currency: r.currency,
  }));
}

/** The currency of the cluster's newest billed row (null: never billed). */
export async function billCurrency(prisma: PrismaClient, clusterId: string): Promise<string | null> {
  const row = await prisma.kubernetesBilledCost.findFirst({
    where: { clusterId },
    orderBy: { day: 'desc' },
    select: { currency: true },
  });
  return row?.currency ?? null;
}
