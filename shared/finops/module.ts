import type { InvocationContext, Timer } from '@azure/functions';
import type { CoreServices } from '../app/services.js';

/** The FinOps service's background side: the queue trigger and the weekly timer. */
export interface FinopsModule {
  /** Runs one queued analysis job (queue trigger, batch size 1). Throws to have it retried. */
  handleQueueMessage(message: unknown, context: InvocationContext): Promise<void>;
  /** Enqueues one job per configured subscription (weekly timer). */
  handleWeeklyTimer(timer: Timer, context: InvocationContext): Promise<void>;
  close(): Promise<void>;
}

// Foundation placeholder: the analysis engine (issue #4) replaces this.
export async function createFinopsModule(core: CoreServices): Promise<FinopsModule> {
  return {
    async handleQueueMessage(message, context) {
      core.log.warn({ message, invocationId: context.invocationId }, 'analysis engine not wired yet');
      throw new Error('analysis engine not available');
    },
    async handleWeeklyTimer() {},
    async close() {},
  };
}
