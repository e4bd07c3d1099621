import { describe, expect, it } from 'vitest';
import type { AzureResource } from '../../shared/finops/azure/index.js';
import { runRateFactor } from '../../shared/finops/engine/flag-step.js';
import { computeFlags, estimateSaving } from '../../shared/finops/engine/flags.js';
import { buildInventory } from '../../shared/finops/engine/inventory.js';

const now = new Date('2026-11-22T00:00:00Z');
const res = (
  type: string,
  name: string,
  props: Record<string, unknown> = {},
  group = 'rg-a',
): AzureResource => ({
  id: `/subscriptions/s1/resourceGroups/${group}/providers/${type}/${name}`,
  name,
  type,
  resourceGroup: group,
  location: 'westeurope',
  sku: null,
  kind: null,
  managedBy: null,
  tags: {},
  properties: props,
});

describe('rules that need the whole snapshot', () => {
  const pool = res('microsoft.sql/servers/elasticpools', 'srv/pool');
  const gateway = res('microsoft.network/virtualnetworkgateways', 'gw');
  const group: AzureResource = {
    ...res('microsoft.resources/subscriptions/resourcegroups', 'rg-empty'),
    id: '/subscriptions/s1/resourceGroups/rg-empty',
  };
  const snapshot = res('microsoft.compute/snapshots', 'snap', {
    timeCreated: '2026-11-20T00:00:00Z',
    creationData: {
      sourceResourceId: '/subscriptions/s1/resourceGroups/rg-a/providers/Microsoft.Compute/disks/gone',
    },
  });

  it('do not fire without the snapshot-wide inventory (a lone resource cannot be judged)', () => {
    for (const r of [pool, gateway, group, snapshot]) expect(computeFlags(r, 1, now)).toEqual([]);
  });

  it('fire with it, and a snapshot of a disk in another subscription is never judged gone', () => {
    const inventory = buildInventory([pool, gateway, snapshot]);
    const codes = (r: AzureResource) => computeFlags(r, 1, { now, inventory }).map((f) => f.code);
    expect(codes(pool)).toEqual(['EmptySqlElasticPool']);
    expect(codes(gateway)).toEqual(['VnetGatewayWithoutConnections']);
    expect(codes(group)).toEqual(['EmptyResourceGroup']);
    expect(codes(snapshot)).toEqual(['SnapshotSourceDiskGone']);
    const foreign = res('microsoft.compute/snapshots', 'snap2', {
      timeCreated: '2026-11-20T00:00:00Z',
      creationData: {
        sourceResourceId: '/subscriptions/s2/resourceGroups/rg/providers/Microsoft.Compute/disks/d',
      },
    });
    expect(codes(foreign)).toEqual([]);
  });
});

describe('saving estimates', () => {
  it('project the cost of the period to a month: days in the month over the days covered', () => {
    expect(runRateFactor('2026-11-01', '2026-11-10')).toBe(3);
    expect(runRateFactor('2026-02-01', '2026-02-28')).toBe(1);
    expect(runRateFactor('2026-01-01', '2026-01-31')).toBe(1);
  });

  it('follow the model of the rule: run-rate, a fraction, or nothing', () => {
    const r = res('microsoft.compute/disks', 'd');
    const ctx = { now, runRateFactor: 3 };
    expect(estimateSaving({ kind: 'runRate' }, r, 10, ctx)).toBe(30);
    expect(estimateSaving({ kind: 'fraction', fraction: 0.6 }, r, 10, ctx)).toBe(18);
    expect(estimateSaving({ kind: 'none' }, r, 10, ctx)).toBe(0);
    expect(estimateSaving({ kind: 'runRate' }, r, undefined, ctx)).toBe(0);
    const sqlVm = res('microsoft.sqlvirtualmachine/sqlvirtualmachines', 'sql', {
      virtualMachineResourceId:
        '/subscriptions/s1/resourceGroups/rg-a/providers/Microsoft.Compute/virtualMachines/VM1',
    });
    const costOf = (id: string) => (id.endsWith('/virtualmachines/vm1') ? 20 : undefined);
    expect(
      estimateSaving({ kind: 'fraction', fraction: 0.5, of: 'linkedVm' }, sqlVm, 0, { ...ctx, costOf }),
    ).toBe(30);
  });
});
