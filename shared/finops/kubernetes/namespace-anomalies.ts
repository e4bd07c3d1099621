/**
 * Namespace cost as a scope of anomaly detection: after an analysis has collected a subscription's
 * Kubernetes bill, each of its clusters that an agent reports is allocated per namespace over every
 * closed (billed) day, and each namespace's daily series goes through the same detector as the
 * subscription's, resource groups' and services' costs. New anomalies are stored with scope kind
 * `namespace` (named `<cluster>/<namespace>`) and reach the notification channels as the others do.
 * A failure here never fails the analysis.
 */
import type { PrismaClient } from '../../db/client.js';
import { Prisma } from '../../db/generated/client.js';
import { anomalyEvent, enqueueEvents } from '../../notify/events.js';
import type { Logger } from '../../observability/logger.js';
import { type DetectSettings, detectAnomalies } from '../intel/detect.js';
import { allocateCluster, BILL_CLOSE_HOURS, type CostType, knownClusters } from './service.js';
import type { KubernetesUsageSource } from './usage-source.js';

export interface NamespaceAnomalyDeps {
  prisma: PrismaClient;
  log: Logger;
  usage: KubernetesUsageSource;
  settings: DetectSettings;
  costType: CostType;
  sharedNamespaces: string[];
  shareMode: 'weighted' | 'even';
  now?: () => Date;
}

const DAY_MS = 86_400_000;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

export async function detectNamespaceAnomalies(
  deps: NamespaceAnomalyDeps,
  subscriptionId: string,
): Promise<number> {
  try {
    const now = deps.now?.() ?? new Date();
    const clusters = (await knownClusters(deps.prisma, deps.usage)).filter(
      (c) => c.agent && c.managed && c.managed.subscriptionId === subscriptionId.toLowerCase(),
    );
    let found = 0;
    for (const cluster of clusters) {
      const m = cluster.managed!;
      if (!m.firstBilledDay) continue;
      // The last closed day: estimated days would be judged against a retail price, not the bill.
      const lastClosed =
        Math.floor((m.collectedAt.getTime() - BILL_CLOSE_HOURS * 3_600_000) / DAY_MS) * DAY_MS - DAY_MS;
      const from = m.firstBilledDay;
      const to = ymd(Math.min(lastClosed, Date.parse(`${m.lastBilledDay}T00:00:00Z`)));
      if (to < from) continue;
      const answer = await allocateCluster(deps.prisma, deps.usage, {
        cluster,
        from,
        to,
        aggregate: { kind: 'namespace' },
        costType: deps.costType,
        sharedNamespaces: deps.sharedNamespaces,
        shareMode: deps.shareMode,
        now,
        keepDayRows: true,
      });
      const days: string[] = [];
      for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
        days.push(ymd(t));
      const namespaces = new Set<string>();
      for (const rows of answer.dayRows?.values() ?? []) for (const k of rows.keys()) namespaces.add(k);
      const data: Prisma.CostAnomalyCreateManyInput[] = [];
      for (const ns of [...namespaces].sort()) {
        const values = days.map((d) => (answer.dayRows?.get(d)?.get(ns) ?? 0) / 100);
        for (const a of detectAnomalies(values, deps.settings)) {
          data.push({
            subscriptionId: m.subscriptionId,
            scopeKind: 'namespace',
            scopeName: `${cluster.clusterName}/${ns}`,
            kind: a.kind,
            date: new Date(`${days[a.index]}T00:00:00Z`),
            expectedCost: new Prisma.Decimal(a.expected),
            actualCost: new Prisma.Decimal(a.actual),
            impact: new Prisma.Decimal(a.impact),
            currency: answer.currency ?? 'USD',
            severity: a.severity,
          });
        }
      }
      if (!data.length) continue;
      const created = await deps.prisma.$transaction(async (tx) => {
        const rows = await tx.costAnomaly.createManyAndReturn({ data, skipDuplicates: true });
        await enqueueEvents(
          tx,
          rows.map((c) => anomalyEvent({ ...c, impact: Number(c.impact) })),
        );
        return rows;
      });
      found += created.length;
    }
    if (found) deps.log.info({ subscriptionId, newAnomalies: found }, 'namespace cost anomalies found');
    return found;
  } catch (err) {
    deps.log.warn({ subscriptionId, err }, 'namespace anomaly detection failed; the run is stored');
    return 0;
  }
}
