/**
 * Throttling and transient-failure retry shared by every Azure client of this layer.
 *
 * Why our own policy: the SDK's retry (core-rest-pipeline's defaultRetryPolicy, ms-rest-js's
 * throttlingRetryPolicy/exponentialRetryPolicy) honours `Retry-After` only, not the cost API's
 * `x-ms-ratelimit-microsoft.costmanagement-*-retry-after` headers nor Resource Graph's
 * `x-ms-user-quota-*`. The clients are built with the SDK's retry REMOVED (see clients.ts), so a
 * throttled request is retried by this policy alone and never twice.
 *
 * Rules: on 429, 502, 503, 504 (and on network errors without a response) wait the LARGEST of
 * `Retry-After` and every `x-ms-ratelimit-*-retry-after` (and Resource Graph's resets-after when its
 * quota is spent), clamped to 1 s – 300 s, plus up to 10 % jitter (never above the cap); with no such
 * header, 15 s × 2^(n−1), also capped. At most 10 attempts. Every wait is multiplied by paceScale
 * (0: no waiting at all).
 */
import type { PipelinePolicy, PipelineResponse } from '@azure/core-rest-pipeline';
import type {
  HttpOperationResponse,
  RequestPolicy,
  RequestPolicyFactory,
  WebResourceLike,
} from '@azure/ms-rest-js';

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
export const MAX_ATTEMPTS = 10;
export const MIN_WAIT_MS = 1_000;
export const MAX_WAIT_MS = 300_000;
export const BASE_BACKOFF_MS = 15_000;
export const JITTER_FRACTION = 0.1;

export type HeaderPairs = Iterable<readonly [string, string]>;

export interface ServerWait {
  ms: number;
  /** The header that asked for the longest wait. */
  header: string;
}

const RATE_LIMIT_RETRY_AFTER = /^x-ms-ratelimit-.+-retry-after$/i;

function parseSeconds(value: string): number | undefined {
  const t = value.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  return Number(t) * 1000;
}

/** hh:mm:ss (optionally d.hh:mm:ss) → ms. */
export function parseTimeSpan(value: string): number | undefined {
  const m = /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(value.trim());
  if (!m) return parseSeconds(value);
  const [, d, h, min, s] = m;
  return ((Number(d ?? 0) * 24 + Number(h)) * 3600 + Number(min) * 60 + Number(s)) * 1000;
}

/**
 * Pure: the wait the server asks for, in ms — the largest of `Retry-After` (seconds or HTTP date),
 * `retry-after-ms`, every `x-ms-ratelimit-*-retry-after` (seconds), and `x-ms-user-quota-resets-after`
 * when `x-ms-user-quota-remaining` is 0. Undefined when no header asks for one.
 */
export function serverRequestedWait(
  headers: HeaderPairs,
  nowMs: number = Date.now(),
): ServerWait | undefined {
  let best: ServerWait | undefined;
  let quotaSpent = false;
  let quotaReset: number | undefined;
  const consider = (ms: number | undefined, header: string) => {
    if (ms === undefined || !Number.isFinite(ms) || ms < 0) return;
    if (!best || ms > best.ms) best = { ms, header };
  };
  for (const [rawName, value] of headers) {
    const name = rawName.toLowerCase();
    if (name === 'retry-after') {
      const seconds = parseSeconds(value);
      if (seconds !== undefined) consider(seconds, name);
      else {
        const date = Date.parse(value);
        if (!Number.isNaN(date)) consider(Math.max(0, date - nowMs), name);
      }
    } else if (name === 'retry-after-ms' || name === 'x-ms-retry-after-ms') {
      const ms = Number(value.trim());
      consider(Number.isNaN(ms) ? undefined : ms, name);
    } else if (RATE_LIMIT_RETRY_AFTER.test(name)) {
      consider(parseSeconds(value), name);
    } else if (name === 'x-ms-user-quota-remaining') {
      quotaSpent = Number(value.trim()) <= 0;
    } else if (name === 'x-ms-user-quota-resets-after') {
      quotaReset = parseTimeSpan(value);
    }
  }
  if (quotaSpent) consider(quotaReset, 'x-ms-user-quota-resets-after');
  return best;
}

/**
 * Pure: how long to wait (ms, before paceScale) before attempt `attempt + 1`, after attempt
 * `attempt` (1-based) failed. `random` in [0, 1) drives the jitter.
 */
export function retryWaitMs(server: ServerWait | undefined, attempt: number, random: number): number {
  const base = server
    ? Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, server.ms))
    : Math.min(MAX_WAIT_MS, BASE_BACKOFF_MS * 2 ** Math.max(0, attempt - 1));
  return Math.min(MAX_WAIT_MS, base + base * JITTER_FRACTION * random);
}

/** pino-shaped (object first, then message): a pino Logger fits as it is. */
export interface RetryLogger {
  info(meta: Record<string, unknown>, msg: string): void;
  warn(meta: Record<string, unknown>, msg: string): void;
  debug(meta: Record<string, unknown>, msg: string): void;
}

export interface ThrottleConfig {
  paceScale: number;
  sleep: (ms: number) => Promise<void>;
  random?: () => number;
  logger?: RetryLogger;
  maxAttempts?: number;
  /** For logs: which API this client talks to. */
  api: string;
}

interface ResponseView {
  status: number;
  headers: HeaderPairs;
}

const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ECONNABORTED',
  'ESOCKETTIMEDOUT',
  'REQUEST_SEND_ERROR',
]);

function isTransientError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { name?: string; code?: string; statusCode?: number; response?: unknown };
  if (e.name === 'AbortError') return false;
  return e.statusCode === undefined && e.code !== undefined && TRANSIENT_CODES.has(e.code);
}

/** The retry loop, independent of the HTTP stack. Returns the last response (maybe still a 429). */
export async function sendWithRetry<R>(
  send: () => Promise<R>,
  view: (response: R) => ResponseView,
  cfg: ThrottleConfig,
  what: string,
): Promise<R> {
  const maxAttempts = cfg.maxAttempts ?? MAX_ATTEMPTS;
  const random = cfg.random ?? Math.random;
  const pause = async (ms: number) => {
    const scaled = ms * cfg.paceScale;
    if (scaled > 0) await cfg.sleep(scaled);
  };
  for (let attempt = 1; ; attempt++) {
    let response: R;
    try {
      response = await send();
    } catch (err) {
      if (attempt >= maxAttempts || !isTransientError(err)) throw err;
      const wait = retryWaitMs(undefined, attempt, random());
      cfg.logger?.warn(
        { what, attempt, waitMs: wait * cfg.paceScale },
        `${cfg.api}: network error, retrying`,
      );
      await pause(wait);
      continue;
    }
    const v = view(response);
    const server = serverRequestedWait(v.headers);
    if (RETRYABLE_STATUSES.has(v.status)) {
      if (attempt >= maxAttempts) {
        cfg.logger?.warn({ what, status: v.status }, `${cfg.api}: giving up after ${attempt} attempts`);
        return response;
      }
      const wait = retryWaitMs(server, attempt, random());
      cfg.logger?.warn(
        { what, attempt, header: server?.header ?? null, waitMs: wait * cfg.paceScale },
        `${cfg.api}: HTTP ${v.status}, waiting before retry`,
      );
      await pause(wait);
      continue;
    }
    if (v.status < 400 && server?.header === 'x-ms-user-quota-resets-after') {
      // Resource Graph: the quota is spent; wait for its window before the next query may go.
      const wait = Math.min(MAX_WAIT_MS, server.ms);
      cfg.logger?.info(
        { what, waitMs: wait * cfg.paceScale },
        `${cfg.api}: quota spent, waiting for it to reset`,
      );
      await pause(wait);
    }
    return response;
  }
}

function pipelineHeaders(response: PipelineResponse): HeaderPairs {
  return response.headers;
}

export const THROTTLE_POLICY_NAME = 'finwatchThrottlePolicy';

/** The policy for core-rest-pipeline clients (cost management, subscriptions). */
export function throttlePolicy(cfg: ThrottleConfig): PipelinePolicy {
  return {
    name: THROTTLE_POLICY_NAME,
    sendRequest: (request, next) =>
      sendWithRetry(
        () => next(request),
        (r) => ({ status: r.status, headers: pipelineHeaders(r) }),
        cfg,
        `${request.method} ${new URL(request.url).pathname}`,
      ),
  };
}

/**
 * The same policy for ms-rest-js clients (arm-resourcegraph 4.x is built on ms-rest-js). It sits first
 * in the factory list, so every attempt passes the signing policy again; ms-rest-js's deserialization
 * policy turns error statuses into thrown RestErrors, so those are caught and looked at too.
 */
export function throttleRequestPolicyFactory(cfg: ThrottleConfig): RequestPolicyFactory {
  type Outcome = { response: HttpOperationResponse; error?: unknown };
  return {
    create: (nextPolicy: RequestPolicy): RequestPolicy => ({
      sendRequest: async (request: WebResourceLike): Promise<HttpOperationResponse> => {
        const outcome = await sendWithRetry<Outcome>(
          async () => {
            try {
              return { response: await nextPolicy.sendRequest(request.clone()) };
            } catch (error) {
              const response = (error as { response?: HttpOperationResponse }).response;
              if (response && typeof response.status === 'number') return { response, error };
              throw error;
            }
          },
          (o) => ({ status: o.response.status, headers: Object.entries(o.response.headers.rawHeaders()) }),
          cfg,
          `${request.method} ${new URL(request.url).pathname}`,
        );
        if (outcome.error !== undefined) throw outcome.error;
        return outcome.response;
      },
    }),
  };
}
