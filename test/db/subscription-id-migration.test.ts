import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../shared/db/client.js';
import { migratedPgliteTemplate } from '../support/pglite-template.js';

const MIGRATION = '20261127190000_lower_case_subscription_ids';
const UPPER = 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE';
const LOWER = UPPER.toLowerCase();

/**
 * A database written before subscription ids were lower-cased on the way in holds them as clients
 * typed them. The migration lowers them in every table, so the plain comparisons of the queries
 * find them; it never fails over a row whose lower-case twin exists.
 */
describe('the migration that lower-cases stored subscription ids', () => {
  it('lowers the id in every table that holds one, keeping a row that has a twin', async () => {
    const db = await openDatabase({ dataDir: 'memory://', initialDataDir: await migratedPgliteTemplate() });
    try {
      const p = db.prisma;
      await p.$executeRawUnsafe(`DELETE FROM "_prisma_migrations" WHERE migration_name = '${MIGRATION}'`);
      const run = await p.analysisRun.create({
        data: {
          subscriptionId: ` ${UPPER}`,
          subscriptionName: 'old',
          runDate: new Date('2026-01-02T00:00:00Z'),
          totalMonthlyCost: 1,
          totalResourcesAnalyzed: 0,
          periodFrom: new Date('2026-01-01'),
          periodTo: new Date('2026-01-31'),
        },
      });
      await p.historicalCost.create({
        data: {
          analysisRunId: run.id,
          subscriptionId: UPPER,
          costDate: new Date('2026-01-01T00:00:00Z'),
          costType: 'Daily',
          cost: 1,
          recordedAt: new Date(),
        },
      });
      await p.analysisJob.create({ data: { subscriptionId: UPPER } });
      await p.costImport.create({
        data: {
          analysisRunId: run.id,
          subscriptionId: UPPER,
          source: 'http',
          format: 'focus',
          rows: 1,
          skippedRows: 0,
          fromDate: new Date('2026-01-01'),
          toDate: new Date('2026-01-01'),
        },
      });
      await p.notificationChannel.create({
        data: { name: 'c', kind: 'email', target: 'a@example.test', subscriptionId: UPPER },
      });
      await p.wasteSuppression.create({
        data: {
          subscriptionId: UPPER,
          resourceId: 'r',
          code: 'X',
          kind: 'dismissed',
          reason: 'r',
          createdBy: 'me',
        },
      });
      await p.wasteExclusion.create({
        data: {
          subscriptionId: UPPER,
          kind: 'resourceGroup',
          resourceGroup: 'RG',
          reason: 'r',
          createdBy: 'me',
        },
      });
      await p.subscription.create({ data: { subscriptionId: UPPER, description: 'upper' } });
      const anomaly = {
        scopeKind: 'subscription',
        scopeName: LOWER,
        kind: 'spike',
        date: new Date('2026-01-01'),
        expectedCost: 1,
        actualCost: 2,
        impact: 1,
        severity: 'low',
      };
      await p.costAnomaly.create({ data: { ...anomaly, subscriptionId: UPPER } });
      // A twin already in lower case: the upper-case row stays rather than break the unique key.
      await p.costAnomaly.create({ data: { ...anomaly, subscriptionId: LOWER, kind: 'drop' } });
      await p.costAnomaly.create({ data: { ...anomaly, subscriptionId: UPPER, kind: 'drop' } });

      expect((await db.migrate()).applied).toEqual([MIGRATION]);

      const ids = async (table: string) =>
        (
          await p.$queryRawUnsafe<Array<{ subscriptionId: string }>>(
            `SELECT "subscriptionId" FROM "${table}" ORDER BY id`,
          )
        ).map((r) => r.subscriptionId);
      for (const table of [
        'AnalysisRuns',
        'HistoricalCosts',
        'CostImports',
        'NotificationChannels',
        'WasteSuppressions',
        'WasteExclusions',
        'Subscriptions',
      ]) {
        expect(await ids(table), table).toEqual([LOWER]);
      }
      expect((await p.analysisJob.findMany()).map((j) => j.subscriptionId)).toEqual([LOWER]);
      expect(await ids('CostAnomalies')).toEqual([LOWER, LOWER, UPPER]);
    } finally {
      await db.close();
    }
  }, 60_000);
});
