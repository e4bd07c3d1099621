import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startErrorTracking } from '../src/sentry.js';

const base = {
  CLUSTER_NAME: 'c1',
  METRICS_API_URL: 'http://127.0.0.1:9/metrics',
  NAMESPACES_TO_WATCH: 'shop',
};

describe('error tracking', () => {
  it('stays off without SENTRY_DSN', async () => {
    expect(await startErrorTracking(loadConfig(base))).toBeUndefined();
  });

  it('sends errors to the DSN with ENVIRONMENT when SENTRY_DSN is set', async () => {
    const envelopes: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        envelopes.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const tracking = await startErrorTracking(
        loadConfig({ ...base, SENTRY_DSN: `http://publickey@127.0.0.1:${port}/42`, ENVIRONMENT: 'Staging' }),
      );
      expect(tracking).toBeDefined();
      tracking?.report('listing pods failed', new Error('etcd timeout'));
      await tracking?.close();
      const all = envelopes.join('\n');
      expect(all).toContain('etcd timeout');
      expect(all).toContain('"environment":"Staging"');
    } finally {
      server.close();
    }
  });
});
