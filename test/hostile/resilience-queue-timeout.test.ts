import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createJobQueue } from '../../shared/queue/analysis-queue.js';

// A storage endpoint that accepts connections and never answers.
describe('the analysis queue against a silent storage endpoint', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let port = 0;
  beforeAll(async () => {
    server = createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('gives up on a send after its deadline instead of holding the caller', { timeout: 20_000 }, async () => {
    // The test run's Azurite account, pointed at the silent port.
    const connection = inject('azuriteConnectionString').replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`);
    expect(connection).toContain(`:${port}/`);
    const queue = await createJobQueue({ connectionString: connection }, 'analysis-jobs', 500);
    const started = Date.now();
    const outcome = await Promise.race([
      queue.send({ jobId: 'x' }).then(
        () => 'sent',
        (err: unknown) => err,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000)),
    ]);
    expect(outcome).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
