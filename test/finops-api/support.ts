import { fileURLToPath } from 'node:url';
import azf from '@azure/functions';
import type { Settings } from '../../shared/config/index.js';
import type { PrismaClient } from '../../shared/db/client.js';
import { Prisma } from '../../shared/db/generated/client.js';
import type { TestHost } from '../support/host.js';

import type { TestUser } from '../support/users.js';

export { createUser, mintToken, type TestUser } from '../support/users.js';

/**
 * Checks that the host's real auth module accepts the minted token, so every
 * authenticated request of these tests goes through the production token validation and the
 * database's isAdmin flag. (An interim authenticator stood in before the auth module landed.)
 */
export async function ensureAuth(host: TestHost, probe: TestUser): Promise<void> {
  const request = new azf.HttpRequest({
    url: `${host.url}/finops/api/AnalysisRuns`,
    method: 'GET',
    headers: { authorization: `Bearer ${probe.token}` },
  });
  const caller = await host.services.auth.authenticate(request);
  if (caller.userId !== probe.id || caller.isAdmin !== probe.isAdmin) {
    throw new Error(`the auth module resolved ${caller.userId} for ${probe.id}`);
  }
}

// ------------------------------------------------------------------------------------------------
// Fixture runs inserted with Prisma (clearly NOT produced by the analysis engine): realistic rows
// of every child table so every read route has data, with known totals to assert on.

export interface FixtureRunOptions {
  subscriptionId: string;
  subscriptionName: string;
  runDate: Date;
  /** Number of resources (default 24). */
  resources?: number;
  /** Days of history ending the day before runDate (default 10). */
  days?: number;
  recommendations?: number;
}

export const FIXTURE_GROUPS = ['rg-Web', 'rg-data', 'RG-Shared_1'];
export const FIXTURE_TYPES = [
  'microsoft.compute/disks',
  'microsoft.compute/virtualmachines',
  'microsoft.network/publicipaddresses',
  'microsoft.storage/storageaccounts',
];
export const FIXTURE_SERVICES = ['Storage', 'Virtual Machines', 'Bandwidth'];

const day = (d: Date, offset: number) => {
  const x = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  x.setUTCDate(x.getUTCDate() + offset);
  return x;
};

export async function insertFixtureRun(prisma: PrismaClient, o: FixtureRunOptions) {
  const nRes = o.resources ?? 24;
  const days = o.days ?? 10;
  const recorded = o.runDate;
  const groupCost = (g: number, s: number) => new Prisma.Decimal(`${(g + 1) * 10 + s}.1234`);
  let total = new Prisma.Decimal(0);
  for (let g = 0; g < FIXTURE_GROUPS.length; g++)
    for (let s = 0; s < FIXTURE_SERVICES.length; s++) total = total.plus(groupCost(g, s));
  const run = await prisma.analysisRun.create({
    data: {
      subscriptionId: o.subscriptionId,
      subscriptionName: o.subscriptionName,
      runDate: o.runDate,
      createdAt: o.runDate,
      totalMonthlyCost: total,
      totalResourcesAnalyzed: nRes,
      aiModel: 'gpt-test',
      conversationId: 'conv-1',
      reportFilePath: '',
      periodFrom: day(o.runDate, -o.runDate.getUTCDate() + 1),
      periodTo: day(o.runDate, 0),
    },
  });
  await prisma.resourceAnalysis.createMany({
    data: Array.from({ length: nRes }, (_, i) => {
      const g = FIXTURE_GROUPS[i % FIXTURE_GROUPS.length]!;
      const t = FIXTURE_TYPES[i % FIXTURE_TYPES.length]!;
      return {
        analysisRunId: run.id,
        resourceId: `/subscriptions/${o.subscriptionId}/resourceGroups/${g}/providers/${t}/res-${i}`,
        resourceType: t,
        resourceName: i === 0 ? 'odd%name_0' : `res-${String(i).padStart(3, '0')}`,
        resourceGroup: g.toUpperCase(),
        location: 'westeurope',
        propertiesJson: JSON.stringify({ sku: 'Standard' }),
        tagsJson: JSON.stringify({ GAR_ID: `GAR-${g}`, env: i % 2 ? 'prod' : 'dev' }),
        metricsJson: null,
        flags:
          i % 3 === 0
            ? i % 2
              ? 'Unattached disk; Old snapshot'
              : 'Unattached disk'
            : i % 3 === 1
              ? ''
              : null,
        recordedAt: recorded,
      };
    }),
  });
  const costRows: Prisma.CostDetailCreateManyInput[] = [];
  for (let g = 0; g < FIXTURE_GROUPS.length; g++) {
    let gTotal = new Prisma.Decimal(0);
    for (let s = 0; s < FIXTURE_SERVICES.length; s++) {
      gTotal = gTotal.plus(groupCost(g, s));
      costRows.push({
        analysisRunId: run.id,
        costType: 'Service',
        name: FIXTURE_SERVICES[s]!,
        resourceGroup: FIXTURE_GROUPS[g]!.toUpperCase(),
        cost: groupCost(g, s),
        recordedAt: recorded,
      });
    }
    costRows.push({
      analysisRunId: run.id,
      costType: 'ResourceGroup',
      name: FIXTURE_GROUPS[g]!.toUpperCase(),
      resourceGroup: FIXTURE_GROUPS[g]!.toUpperCase(),
      cost: gTotal,
      recordedAt: recorded,
    });
  }
  await prisma.costDetail.createMany({ data: costRows });
  const hist: Prisma.HistoricalCostCreateManyInput[] = [];
  for (let d = days; d >= 1; d--) {
    const costDate = day(o.runDate, -d);
    let dayTotal = new Prisma.Decimal(0);
    for (let g = 0; g < FIXTURE_GROUPS.length; g++) {
      let gTotal = new Prisma.Decimal(0);
      for (let s = 0; s < FIXTURE_SERVICES.length; s++) {
        const c = new Prisma.Decimal(`${g + s + 1}.${String(d).padStart(2, '0')}`);
        gTotal = gTotal.plus(c);
        hist.push({
          analysisRunId: run.id,
          subscriptionId: o.subscriptionId,
          costDate,
          costType: 'Service',
          resourceGroup: FIXTURE_GROUPS[g]!, // raw Azure casing, as the original stored history
          name: FIXTURE_SERVICES[s]!,
          cost: c,
          recordedAt: recorded,
        });
      }
      dayTotal = dayTotal.plus(gTotal);
      hist.push({
        analysisRunId: run.id,
        subscriptionId: o.subscriptionId,
        costDate,
        costType: 'ResourceGroup',
        resourceGroup: FIXTURE_GROUPS[g]!,
        name: null,
        cost: gTotal,
        recordedAt: recorded,
      });
    }
    hist.push({
      analysisRunId: run.id,
      subscriptionId: o.subscriptionId,
      costDate,
      costType: 'Total',
      resourceGroup: null,
      name: null,
      cost: dayTotal,
      recordedAt: recorded,
    });
  }
  await prisma.historicalCost.createMany({ data: hist });
  const nRec = o.recommendations ?? 2;
  for (let i = 0; i < nRec; i++) {
    await prisma.aiRecommendation.create({
      data: {
        analysisRunId: run.id,
        recommendationText: `# Recommendations ${i}\\r\\n- delete disk\\n- resize VM\nline four`,
        summary: i === 0 ? null : `summary ${i}`,
        messageId: `msg-${i}`,
        conversationId: 'conv-1',
        model: 'gpt-test',
        timestamp: 1_700_000_000.5 + i,
        recordedAt: new Date(recorded.getTime() + i * 1000),
      },
    });
  }
  return run;
}

// ------------------------------------------------------------------------------------------------
// Real analyses: settings pointing the analysis engine at the Azure simulator (dev/azure-sim).

export const SIM_CERT_FILE = fileURLToPath(new URL('../../dev/azure-sim/tls/sim-cert.pem', import.meta.url));

export function simulatorSettings(simUrl: string): Settings {
  return {
    Cloud__TenantId: '00000000-0000-0000-0000-0000000000aa',
    Cloud__ClientId: 'finwatch-test',
    Cloud__ClientSecret: 'simulator-secret',
    Cloud__ArmEndpoint: simUrl,
    Cloud__AuthorityHost: simUrl,
    Cloud__CaFile: SIM_CERT_FILE,
    CostQuery__PaceScale: '0',
  };
}
