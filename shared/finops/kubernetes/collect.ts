/**
 * The analysis's Kubernetes step: for each AKS cluster of the subscription, the daily cost per
 * resource of the cluster resource and of its node resource group, as actual and as amortized cost
 * (two Cost Management queries per subscription with clusters, none without), stored for the
 * allocation. A failure here never fails the analysis: the run is stored; the next run collects again.
 */
import type { PrismaClient } from '../../db/client.js';
import type { Logger } from '../../observability/logger.js';
import type { AzureAccess, AzureResource, ResourceDayCost } from '../azure/index.js';
import { type BillRow, saveClusterBill } from './bill-store.js';
import { billKindOf, discoverClusters } from './discover.js';

/** Days of bill each analysis collects again (Azure revises the last days of a bill for a while). */
export const BILL_DAYS = 31;

export interface CollectDeps {
  azure: AzureAccess;
  prisma: PrismaClient;
  log: Logger;
  now?: () => Date;
}

const ymd = (d: Date) => d.toISOString().slice(0, 10);

export async function collectKubernetesBill(
  deps: CollectDeps,
  subscriptionId: string,
  resources: readonly AzureResource[],
): Promise<number> {
  const plans = discoverClusters(subscriptionId, resources);
  if (plans.length === 0 || !deps.azure.dailyCostByResource) return 0;
  try {
    const now = deps.now?.() ?? new Date();
    const to = ymd(now);
    const from = ymd(new Date(now.getTime() - (BILL_DAYS - 1) * 86_400_000));
    const groups = [...new Set(plans.flatMap((p) => [p.resourceGroup, p.nodeResourceGroup]))];
    const query = deps.azure.dailyCostByResource.bind(deps.azure);
    const actual = await query(subscriptionId, from, to, 'ActualCost', groups);
    const amortized = await query(subscriptionId, from, to, 'AmortizedCost', groups);
    for (const plan of plans) {
      const rows = new Map<string, BillRow>();
      const take = (list: ResourceDayCost[], which: 'actualCost' | 'amortizedCost') => {
        for (const r of list) {
          const kind = billKindOf(plan, r.resourceId);
          if (!kind || !r.date) continue;
          const key = `${r.date}|${r.resourceId}`;
          let row = rows.get(key);
          if (!row) {
            row = {
              day: r.date,
              resourceId: r.resourceId,
              kind,
              actualCost: 0,
              amortizedCost: 0,
              quantity: null,
              currency: r.currency,
            };
            rows.set(key, row);
          }
          row[which] += r.cost;
          if (r.quantity !== null) row.quantity = Math.max(row.quantity ?? 0, r.quantity);
        }
      };
      take(actual, 'actualCost');
      take(amortized, 'amortizedCost');
      await saveClusterBill(deps.prisma, plan, [...rows.values()], from, to, now);
    }
    deps.log.info({ subscriptionId, clusters: plans.length }, 'kubernetes bill collected');
    return plans.length;
  } catch (err) {
    deps.log.warn({ subscriptionId, err }, 'kubernetes bill collection failed; the run is stored');
    return 0;
  }
}
