import { Writable } from 'node:stream';
import { createClientLogger } from '@azure/logger';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { routeAzureSdkLogs } from '../../shared/observability/azure-sdk-logs.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { log: pino({ level: 'trace' }, stream), lines };
}

const flush = () => new Promise((r) => setImmediate(r));

afterEach(() => routeAzureSdkLogs('None', pino({ level: 'silent' })));

describe('the identity log level setting', () => {
  it("writes the Azure SDK's warnings into the service log and leaves out its info lines at Warning", async () => {
    const { log, lines } = capture();
    routeAzureSdkLogs('Warning', log);
    const sdk = createClientLogger('identity');
    sdk.warning('token refresh failed, retrying');
    sdk.info('token acquired');
    await flush();
    expect(lines.map((l) => [l.component, l.level, l.msg])).toEqual([
      ['azure-sdk', 40, expect.stringContaining('token refresh failed, retrying')],
    ]);
  });

  it('silences the Azure SDK at None', async () => {
    const { log, lines } = capture();
    routeAzureSdkLogs('None', log);
    createClientLogger('identity').error('boom');
    await flush();
    expect(lines).toEqual([]);
  });
});
