import { randomUUID } from 'node:crypto';
import type { InvocationContext } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('local host queue worker', () => {
  let host: TestHost;
  const seen: Array<{ message: unknown; dequeueCount: unknown }> = [];

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: { settings: { visibilityTimeoutMs: 0 }, pollMs: 50 } });
    // The worker calls whatever the FinOps module's queue handler is; replace it to observe.
    host.services.finops.handleQueueMessage = async (message: unknown, context: InvocationContext) => {
      seen.push({ message, dequeueCount: context.triggerMetadata?.dequeueCount });
      if ((message as { fail?: boolean }).fail) throw new Error('handler failed');
    };
  });
  afterAll(async () => {
    await host?.close();
  });

  it('hands a message to the queue handler as parsed JSON and deletes it on success', async () => {
    const id = randomUUID();
    await host.services.queue.send({ id });
    await waitFor(async () => (seen.some((s) => (s.message as { id: string }).id === id) ? true : undefined));
    await host.worker!.idle();
    const peek = await host.services.queue.client().peekMessages({ numberOfMessages: 32 });
    expect(peek.peekedMessageItems).toHaveLength(0);
  });

  it('moves a message to the poison queue after five failed dequeues', async () => {
    const id = randomUUID();
    await host.services.queue.send({ id, fail: true });
    const poisoned = await waitFor(async () => {
      const peek = await host.services.queue.poisonClient().peekMessages({ numberOfMessages: 32 });
      return peek.peekedMessageItems.find((m) => JSON.parse(m.messageText).id === id);
    });
    expect(JSON.parse(poisoned.messageText)).toEqual({ id, fail: true });
    const attempts = seen.filter((s) => (s.message as { id: string }).id === id);
    expect(attempts.map((a) => a.dequeueCount)).toEqual([1, 2, 3, 4, 5]);
    const main = await host.services.queue.client().peekMessages({ numberOfMessages: 32 });
    expect(main.peekedMessageItems).toHaveLength(0);
  });
});
