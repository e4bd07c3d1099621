import { describe, expect, it } from 'vitest';
import {
  MAX_WAIT_MS,
  parseTimeSpan,
  retryWaitMs,
  serverRequestedWait,
} from '../../shared/finops/azure/throttle-policy.js';

const QPU = 'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after';
const TENANT = 'x-ms-ratelimit-microsoft.costmanagement-tenant-retry-after';

describe('serverRequestedWait (pure header parsing)', () => {
  it('reads Retry-After in seconds and as an HTTP date', () => {
    expect(serverRequestedWait([['Retry-After', '7']])).toEqual({ ms: 7000, header: 'retry-after' });
    const now = Date.parse('2026-01-01T00:00:00Z');
    const date = new Date(now + 42_000).toUTCString();
    expect(serverRequestedWait([['retry-after', date]], now)?.ms).toBe(42_000);
  });

  it('reads every x-ms-ratelimit-*-retry-after header and keeps the largest', () => {
    const w = serverRequestedWait([
      ['retry-after', '5'],
      [QPU, '12'],
      [TENANT, '30'],
      ['x-ms-ratelimit-microsoft.costmanagement-entity-retry-after', '3'],
    ]);
    expect(w).toEqual({ ms: 30_000, header: TENANT });
  });

  it('uses Resource Graph resets-after only when the quota is spent', () => {
    expect(
      serverRequestedWait([
        ['x-ms-user-quota-remaining', '0'],
        ['x-ms-user-quota-resets-after', '00:00:04'],
      ]),
    ).toEqual({ ms: 4000, header: 'x-ms-user-quota-resets-after' });
    expect(
      serverRequestedWait([
        ['x-ms-user-quota-remaining', '3'],
        ['x-ms-user-quota-resets-after', '00:00:04'],
      ]),
    ).toBeUndefined();
  });

  it('ignores garbage and unrelated headers', () => {
    expect(
      serverRequestedWait([
        ['retry-after', 'soon'],
        ['x-ms-request-id', 'abc'],
        [QPU, '-1'],
      ]),
    ).toBeUndefined();
  });

  it('parses time spans', () => {
    expect(parseTimeSpan('01:02:03')).toBe(3_723_000);
    expect(parseTimeSpan('1.00:00:00')).toBe(86_400_000);
    expect(parseTimeSpan('9')).toBe(9000);
  });
});

describe('retryWaitMs', () => {
  it('honours the header, clamps to 1 s..300 s, jitter at most 10 % and never past the cap', () => {
    expect(retryWaitMs({ ms: 20_000, header: 'retry-after' }, 1, 0)).toBe(20_000);
    expect(retryWaitMs({ ms: 20_000, header: 'retry-after' }, 1, 0.999)).toBeCloseTo(21_998, 0);
    expect(retryWaitMs({ ms: 0, header: 'retry-after' }, 1, 0)).toBe(1000);
    expect(retryWaitMs({ ms: 3_600_000, header: QPU }, 1, 0.9)).toBe(MAX_WAIT_MS);
  });

  it('backs off exponentially from 15 s without a header, capped', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryWaitMs(undefined, n, 0))).toEqual([
      15_000, 30_000, 60_000, 120_000, 240_000, 300_000,
    ]);
  });
});
