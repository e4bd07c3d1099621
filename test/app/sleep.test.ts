import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../shared/app/sleep.js';

/**
 * Real timers: the waits are a millisecond, or end by an abort, so nothing here depends on how
 * fast the machine is (node:timers/promises is not replaced by fake timers).
 */
describe('sleep, the one wait of the host', () => {
  it('leaves no abort listener on a host-lifetime signal once a wait is over', async () => {
    const host = new AbortController();
    for (let i = 0; i < 50; i++) await sleep(1, host.signal);
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
  });

  it('ends a wait early, without an error, when the signal aborts, and leaves no listener', async () => {
    const host = new AbortController();
    const wait = sleep(3_600_000, host.signal);
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(1);
    host.abort();
    await expect(wait).resolves.toBeUndefined();
    // An aborted signal: no wait at all.
    await expect(sleep(3_600_000, host.signal)).resolves.toBeUndefined();
  });

  it('waits without a signal', async () => {
    const before = process.hrtime.bigint();
    await sleep(5);
    expect(Number(process.hrtime.bigint() - before) / 1e6).toBeGreaterThanOrEqual(4);
  });
});
