import { randomUUID } from 'node:crypto';
import azf from '@azure/functions';
import type { QueueClient } from '@azure/storage-queue';
import type { AppServices } from '../shared/app/services.js';
import { sleep } from '../shared/app/sleep.js';
import { withInvocationScope } from '../shared/observability/invocation-scope.js';
import { type QueueHostSettings, readQueueHostSettings } from './host-json.js';

export interface QueueWorker {
  stop(): Promise<void>;
  /** Resolves when the queue is empty and no message is being handled. */
  idle(): Promise<void>;
}

export interface QueueWorkerOptions {
  settings?: Partial<QueueHostSettings>;
  /** Poll interval when the queue is empty, ms (Azure backs off up to maxPollingInterval). */
  pollMs?: number;
  /** While a message runs it stays invisible this long, renewed by the Functions host. */
  leaseMs?: number;
}

function parseMessage(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Drains the analysis queue as the Functions host's queue trigger does with host.json's settings:
 * one message at a time (batchSize 1), deleted on success, made visible again after
 * visibilityTimeout on failure, and moved to `<queue>-poison` once dequeued maxDequeueCount times.
 */
export function startQueueWorker(services: AppServices, options: QueueWorkerOptions = {}): QueueWorker {
  const settings = { ...readQueueHostSettings(), ...options.settings };
  const pollMs = options.pollMs ?? Math.min(500, settings.maxPollingIntervalMs);
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const queue: QueueClient = services.queue.client();
  const poison: QueueClient = services.queue.poisonClient();
  let stopped = false;
  let busy = false;
  let idleWaiters: Array<() => void> = [];
  let wake: (() => void) | undefined;

  const pause = (ms: number) => {
    const woken = new AbortController();
    wake = () => woken.abort();
    return sleep(ms, woken.signal);
  };

  async function handleOne(): Promise<boolean> {
    await queue.createIfNotExists();
    const { receivedMessageItems } = await queue.receiveMessages({
      numberOfMessages: 1,
      visibilityTimeout: Math.ceil(leaseMs / 1000),
    });
    const item = receivedMessageItems[0];
    if (!item) return false;
    busy = true;
    const context = new azf.InvocationContext({
      functionName: 'analysis-queue',
      invocationId: randomUUID(),
      triggerMetadata: {
        id: item.messageId,
        dequeueCount: item.dequeueCount,
        insertionTime: item.insertedOn,
        expirationTime: item.expiresOn,
        popReceipt: item.popReceipt,
      },
    });
    try {
      // As the Functions trigger does: the job's log lines carry this invocation's id.
      await withInvocationScope({ invocationId: context.invocationId }, () =>
        services.finops.handleQueueMessage(parseMessage(item.messageText), context),
      );
      await queue.deleteMessage(item.messageId, item.popReceipt);
    } catch (error) {
      services.log.warn(
        { err: error, messageId: item.messageId, dequeueCount: item.dequeueCount },
        'queue message failed',
      );
      if (item.dequeueCount >= settings.maxDequeueCount) {
        await poison.createIfNotExists();
        await poison.sendMessage(item.messageText);
        await queue.deleteMessage(item.messageId, item.popReceipt);
        services.log.error({ messageId: item.messageId }, 'queue message moved to the poison queue');
      } else {
        await queue.updateMessage(
          item.messageId,
          item.popReceipt,
          undefined,
          Math.ceil(settings.visibilityTimeoutMs / 1000),
        );
      }
    } finally {
      busy = false;
    }
    return true;
  }

  const loop = (async () => {
    while (!stopped) {
      let handled = false;
      try {
        handled = await handleOne();
      } catch (error) {
        services.log.error({ err: error }, 'queue polling failed');
      }
      if (!handled) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const w of waiters) w();
        if (!stopped) await pause(pollMs);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        if (!busy) wake?.();
      });
    },
  };
}
