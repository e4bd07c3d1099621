import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface QueueHostSettings {
  batchSize: number;
  maxDequeueCount: number;
  /** Delay before a failed message is visible again, ms. */
  visibilityTimeoutMs: number;
  maxPollingIntervalMs: number;
}

function timespanMs(value: string | undefined, fallback: number): number {
  const m = /^(\d+):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(value ?? '');
  if (!m) return fallback;
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000;
}

/** The queue settings of host.json, so the local host drains the queue as Azure would. */
export function readQueueHostSettings(): QueueHostSettings {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'host.json');
  const host = JSON.parse(readFileSync(file, 'utf8')) as {
    extensions?: { queues?: Record<string, unknown> };
  };
  const q = host.extensions?.queues ?? {};
  return {
    batchSize: Number(q.batchSize ?? 16),
    maxDequeueCount: Number(q.maxDequeueCount ?? 5),
    visibilityTimeoutMs: timespanMs(q.visibilityTimeout as string | undefined, 0),
    maxPollingIntervalMs: timespanMs(q.maxPollingInterval as string | undefined, 60_000),
  };
}
