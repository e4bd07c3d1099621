import { describe, expect, it } from 'vitest';
import { HistoricalByService, HistoricalCost } from '../../shared/finops/contract/schemas.js';
import { compileSerializer } from '../../shared/finops/contract/serialize.js';

const row = {
  id: 41,
  analysisRunId: 7,
  subscriptionId: 'sub "quoted" \\ back',
  costDate: '2026-05-04T00:00:00',
  costType: 'ResourceGroup' as const,
  resourceGroup: 'RG-ÅRHUS',
  name: 'line\nbreak\u0001',
  cost: 12.345,
  currency: 'EUR',
  recordedAt: '2026-05-04T12:11:31.123',
  tags: { env: 'prod', 'cost-center': 'a"b' },
  analysisRun: null,
  infraSupportCost: 400,
};

describe('answers serialized by the contract schemas', () => {
  it('writes a history row as the text a client parses back to the same row, members in contract order', () => {
    const text = compileSerializer(HistoricalCost)(row);
    expect(JSON.parse(text)).toEqual(row);
    expect(Object.keys(JSON.parse(text))).toEqual([
      'id',
      'analysisRunId',
      'subscriptionId',
      'costDate',
      'costType',
      'resourceGroup',
      'name',
      'cost',
      'currency',
      'recordedAt',
      'tags',
      'analysisRun',
      'infraSupportCost',
    ]);
    expect(HistoricalCost.parse(JSON.parse(text))).toEqual(row);
  });

  it('writes null tags and a null group as null, never as {} or ""', () => {
    const text = compileSerializer(HistoricalCost)({ ...row, tags: null, resourceGroup: null, name: null });
    expect(text).toContain('"resourceGroup":null,"name":null,');
    expect(text).toContain('"tags":null,"analysisRun":null,');
  });

  it('leaves out members the contract does not name', () => {
    const extra = {
      date: '2026-05-04T00:00:00',
      service: 'VMs',
      resourceGroup: null,
      cost: 1,
      currency: 'USD',
    };
    const text = compileSerializer(HistoricalByService)({ ...extra, secret: 'x' } as typeof extra);
    expect(text).toBe(
      '{"date":"2026-05-04T00:00:00","service":"VMs","resourceGroup":null,"cost":1,"currency":"USD"}',
    );
  });
});
