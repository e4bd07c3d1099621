import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  groupOf,
  ImportError,
  mapColumns,
  rowDay,
  subscriptionOf,
} from '../../shared/finops/imports/columns.js';
import { parseCostExport } from '../../shared/finops/imports/parse.js';

describe('cost export columns', () => {
  it('reads the day of ISO dates, date-times with offsets and the EA MM/dd/yyyy form', () => {
    expect(rowDay('2026-10-14')).toBe('2026-10-14');
    expect(rowDay('2026-10-14T00:00:00Z')).toBe('2026-10-14');
    expect(rowDay('2026-10-14T00:00:00.0000000Z')).toBe('2026-10-14');
    expect(rowDay('2026-10-14T23:30:00-02:00')).toBe('2026-10-15');
    expect(rowDay('10/14/2026')).toBe('2026-10-14');
    expect(rowDay('2026-02-30')).toBeUndefined();
    expect(rowDay('14.10.2026')).toBeUndefined();
  });

  it('takes BilledCost for actual cost and EffectiveCost for amortized cost from a FOCUS header', () => {
    const header = ['ChargePeriodStart', 'BilledCost', 'EffectiveCost', 'x_ResourceGroupName'];
    expect(mapColumns(header, 'ActualCost')).toMatchObject({ format: 'focus', cost: 1, resourceGroup: 3 });
    expect(mapColumns(header, 'AmortizedCost')).toMatchObject({ format: 'focus', cost: 2 });
  });

  it('reads the cost details header in either spelling and refuses an unknown one', () => {
    expect(
      mapColumns(
        ['SubscriptionId', 'ResourceGroup', 'Date', 'MeterCategory', 'CostInBillingCurrency'],
        'ActualCost',
      ),
    ).toMatchObject({
      format: 'costDetails',
      date: 2,
      cost: 4,
      service: 3,
      resourceGroup: 1,
      subscription: 0,
    });
    expect(mapColumns(['date', 'costInBillingCurrency', 'resourceGroupName'], 'ActualCost')).toMatchObject({
      resourceGroup: 2,
    });
    expect(() => mapColumns(['a', 'b'], 'ActualCost')).toThrow(ImportError);
  });

  it('finds the resource group in a resource id and the subscription in a SubAccountId', () => {
    expect(groupOf('', '/subscriptions/x/resourceGroups/rg-web/providers/a/b/c')).toBe('rg-web');
    expect(groupOf('rg-data', '/subscriptions/x/resourceGroups/rg-web/providers/a/b/c')).toBe('rg-data');
    expect(subscriptionOf('/subscriptions/5E1EB5B0-1313-4A13-9D13-000000000013')).toBe(
      '5e1eb5b0-1313-4a13-9d13-000000000013',
    );
  });
});

describe('streamed export parsing', () => {
  const SUB = '5e1eb5b0-1313-4a13-9d13-000000000013';
  const csv =
    'ChargePeriodStart,BilledCost,BillingCurrency,ServiceName,x_ResourceGroupName\n2026-10-01T00:00:00Z,1.5,EUR,Storage,rg-a\n2026-10-01T00:00:00Z,2,EUR,Storage,rg-a\n2026-10-02T00:00:00Z,3,EUR,VM,rg-b\n';

  it('reads the same rows from plain and gzip bodies split anywhere', async () => {
    const gz = gzipSync(csv);
    const pieces = [gz.subarray(0, 5), gz.subarray(5, 17), gz.subarray(17)];
    const plain = await parseCostExport(Readable.from([Buffer.from(csv)]), SUB, 'ActualCost');
    const zipped = await parseCostExport(Readable.from(pieces), SUB, 'ActualCost');
    for (const p of [plain, zipped]) {
      expect(p).toMatchObject({ rows: 3, currency: 'EUR', from: '2026-10-01', to: '2026-10-02' });
      expect(p.lastMonth.sort((a, b) => a.cost - b.cost)).toEqual([
        { resourceGroup: 'RG-B', serviceName: 'VM', cost: 3 },
        { resourceGroup: 'RG-A', serviceName: 'Storage', cost: 3.5 },
      ]);
    }
  });

  it('refuses a second currency and a broken gzip body', async () => {
    const mixed = `${csv}2026-10-03T00:00:00Z,1,USD,VM,rg-b\n`;
    await expect(
      parseCostExport(Readable.from([Buffer.from(mixed)]), SUB, 'ActualCost'),
    ).rejects.toMatchObject({ status: 422, line: 5 });
    const broken = gzipSync(csv).subarray(0, 20);
    await expect(parseCostExport(Readable.from([broken]), SUB, 'ActualCost')).rejects.toMatchObject({
      status: 400,
    });
  });
});
