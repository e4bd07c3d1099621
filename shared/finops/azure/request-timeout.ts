/**
 * A deadline on every Azure request attempt. The SDK clients wait forever by default (request.timeout
 * 0, and core-rest-pipeline's own timeout stops at the response headers), so a silent API would hold
 * the analysis gate for as long as it stayed silent. The deadline aborts the attempt, headers and
 * body alike, through the request's abort signal; the throttle policy around it does not retry an
 * abort, so the analysis fails with a clear reason and its queue message is retried later.
 */
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import type {
  HttpOperationResponse,
  RequestPolicy,
  RequestPolicyFactory,
  WebResourceLike,
} from '@azure/ms-rest-js';

/** What both SDK stacks accept as a request's abort signal. */
interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export const REQUEST_TIMEOUT_POLICY_NAME = 'finwatchRequestTimeout';

export class AzureRequestTimedOut extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${Math.round(ms / 1000)} s`);
    this.name = 'AzureRequestTimedOut';
  }
}

/** Runs `send` with a signal that aborts at the deadline or when `outer` aborts. */
async function withDeadline<T>(
  outer: AbortSignalLike | undefined,
  ms: number,
  what: string,
  send: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ms);
  const onOuterAbort = () => controller.abort();
  if (outer?.aborted) controller.abort();
  outer?.addEventListener('abort', onOuterAbort);
  try {
    return await send(controller.signal);
  } catch (err) {
    if (timedOut) throw new AzureRequestTimedOut(what, ms);
    throw err;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

const describe = (method: string, url: string) => `${method} ${new URL(url).host}${new URL(url).pathname}`;

/** For core-rest-pipeline clients (cost management, subscriptions) and the credential's token calls. */
export function requestTimeoutPolicy(ms: number): PipelinePolicy {
  return {
    name: REQUEST_TIMEOUT_POLICY_NAME,
    sendRequest: (request, next) => {
      const outer = request.abortSignal;
      return withDeadline(outer, ms, describe(request.method, request.url), (signal) => {
        request.abortSignal = signal;
        return next(request).finally(() => {
          request.abortSignal = outer;
        });
      });
    },
  };
}

/** The same for ms-rest-js clients (Resource Graph). */
export function requestTimeoutPolicyFactory(ms: number): RequestPolicyFactory {
  return {
    create: (nextPolicy: RequestPolicy): RequestPolicy => ({
      sendRequest: (request: WebResourceLike): Promise<HttpOperationResponse> =>
        withDeadline(request.abortSignal, ms, describe(request.method, request.url), (signal) => {
          const attempt = request.clone();
          // ms-rest-js's own AbortSignalLike type predates the DOM one; it only listens for 'abort'.
          attempt.abortSignal = signal as unknown as WebResourceLike['abortSignal'];
          return nextPolicy.sendRequest(attempt);
        }),
    }),
  };
}
