/** The analysis queue's wire side: what a message carries, and how many deliveries it gets. */
import { GUID } from '../../config/fields.js';
import type { JobSource } from './jobs.js';
import type { MonthSelection } from './period.js';

/** host.json maxDequeueCount: the attempt after which a failing message goes to the poison queue. */
export const MAX_DEQUEUE_COUNT = 5;

export interface QueueMessage {
  jobId?: string;
  subscriptionId: string;
  monthSelection: MonthSelection;
  source?: JobSource;
}

/** A queue message's object, from an object or JSON text; undefined when it is neither. */
export function messageObject(message: unknown): Record<string, unknown> | undefined {
  let m = message;
  if (typeof m === 'string') {
    try {
      m = JSON.parse(m);
    } catch {
      return undefined;
    }
  }
  return m && typeof m === 'object' ? (m as Record<string, unknown>) : undefined;
}

/** Parses a queue message (object or JSON text); undefined when it is not one of ours. */
export function parseQueueMessage(message: unknown): QueueMessage | undefined {
  const o = messageObject(message);
  if (!o) return undefined;
  // A message is a way in like a request: its id is lowered here, as the routes lower theirs.
  const subscriptionId = typeof o.subscriptionId === 'string' ? o.subscriptionId.trim().toLowerCase() : '';
  if (!GUID.test(subscriptionId)) return undefined;
  const monthSelection = o.monthSelection === 'previous' ? 'previous' : 'current';
  const jobId = typeof o.jobId === 'string' ? o.jobId : undefined;
  const source = o.source === 'weekly' ? 'weekly' : 'async';
  return { subscriptionId, monthSelection, source, ...(jobId ? { jobId } : {}) };
}
