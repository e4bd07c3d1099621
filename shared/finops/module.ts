import type { InvocationContext, Timer } from '@azure/functions';
import type { CoreServices } from '../app/services.js';
import { AnalysisEngine, type EngineOptions } from './engine/engine.js';

/** The FinOps service's background side: the queue trigger and the weekly timer. */
export interface FinopsModule {
  /** Runs one queued analysis job (queue trigger, batch size 1). Throws to have it retried. */
  handleQueueMessage(message: unknown, context: InvocationContext): Promise<void>;
  /** Enqueues one job per configured (and onboarded) subscription (weekly timer). */
  handleWeeklyTimer(timer: Timer, context: InvocationContext): Promise<void>;
  /** The analysis engine: jobs, the gate, start routes, cleanup, settings. */
  engine: AnalysisEngine;
  close(): Promise<void>;
}

export async function createFinopsModule(
  core: CoreServices,
  options: EngineOptions = {},
): Promise<FinopsModule> {
  const engine = new AnalysisEngine(core, options);
  engine.start();
  return {
    engine,
    handleQueueMessage: (message, context) => engine.handleQueueMessage(message, context),
    async handleWeeklyTimer(timer, context) {
      core.log.info(
        { invocationId: context.invocationId, isPastDue: timer.isPastDue },
        'weekly analysis timer',
      );
      await engine.enqueueWeekly();
    },
    close: () => engine.close(),
  };
}
