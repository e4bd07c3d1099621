/**
 * The AI recommendation agent, called as the original called it: POST {AI__ApiUrl} with the key in the header
 * named by AI__ApiKeyHeaderName and the body { input: <prompt> }; the answer's output.content is the
 * markdown recommendation, with conversation_id, model and message_id. Timeout AI__TimeoutSeconds
 * (600 s) per attempt; up to 3 attempts on a timeout, a network error, 429 or 5xx, waiting
 * Retry-After (capped at 60 s) or 2 s × 2^(n−1) between them, scaled by CostQuery__PaceScale.
 */

import { sleep as realSleep } from '../../app/sleep.js';
import { type Clock, systemClock } from './clock.js';

export interface AiSettings {
  url: string;
  apiKey: string | undefined;
  headerName: string;
  timeoutMs: number;
  paceScale: number;
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
  /** The clock a Retry-After date is counted from. */
  now?: Clock;
}

export interface AiAnswer {
  content: string;
  conversationId: string;
  model: string;
  messageId: string;
  attempts: number;
}

export class AiStepError extends Error {
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'AiStepError';
  }
}

export const AI_MAX_ATTEMPTS = 3;
const BASE_WAIT_MS = 2_000;
const MAX_WAIT_MS = 60_000;

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/** Reads the agent's answer: output.content (string, or an array of text parts), plus the ids. */
export function parseAiAnswer(body: unknown): Omit<AiAnswer, 'attempts'> | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const output = b.output as Record<string, unknown> | undefined;
  let content: unknown = output && typeof output === 'object' ? output.content : undefined;
  if (Array.isArray(content)) {
    content = content
      .map((p) => (typeof p === 'string' ? p : str((p as Record<string, unknown>)?.text)))
      .join('');
  }
  if (typeof content !== 'string' || content.trim() === '') return undefined;
  return {
    content,
    conversationId: str(b.conversation_id),
    model: str(b.model),
    messageId: str(b.message_id),
  };
}

function retryAfterMs(res: Response, now: Date): number | undefined {
  const v = res.headers.get('retry-after');
  if (!v) return undefined;
  const s = Number(v);
  if (Number.isFinite(s)) return s * 1000;
  const d = Date.parse(v);
  return Number.isNaN(d) ? undefined : Math.max(0, d - now.getTime());
}

export async function requestRecommendation(settings: AiSettings, prompt: string): Promise<AiAnswer> {
  const maxAttempts = settings.maxAttempts ?? AI_MAX_ATTEMPTS;
  const sleep = settings.sleep ?? realSleep;
  let lastReason = 'no attempt made';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    let retryable = false;
    let wait: number | undefined;
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    const signal = settings.signal ? AbortSignal.any([timeout, settings.signal]) : timeout;
    try {
      const res = await fetch(settings.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(settings.apiKey ? { [settings.headerName]: settings.apiKey } : {}),
        },
        body: JSON.stringify({ input: prompt }),
        signal,
      });
      const text = await res.text();
      if (res.ok) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new AiStepError('The AI agent answered with a body that is not JSON.', attempt);
        }
        const answer = parseAiAnswer(parsed);
        if (!answer) throw new AiStepError('The AI agent answered without output.content.', attempt);
        return { ...answer, attempts: attempt };
      }
      lastReason = `HTTP ${res.status}`;
      retryable = res.status === 429 || res.status >= 500;
      wait = retryAfterMs(res, (settings.now ?? systemClock)());
      if (!retryable) throw new AiStepError(`The AI agent answered ${lastReason}.`, attempt);
    } catch (err) {
      if (err instanceof AiStepError) throw err;
      if (settings.signal?.aborted) throw err;
      const e = err as { name?: string; cause?: { code?: string } };
      if (timeout.aborted || e.name === 'TimeoutError') {
        lastReason = `timed out after ${Math.round(settings.timeoutMs / 1000)} s`;
      } else {
        lastReason = `network error (${e.cause?.code ?? e.name ?? 'unknown'})`;
      }
      retryable = true;
    }
    if (!retryable || attempt === maxAttempts) break;
    const ms = Math.min(MAX_WAIT_MS, wait ?? BASE_WAIT_MS * 2 ** (attempt - 1)) * settings.paceScale;
    if (ms > 0) await sleep(ms);
  }
  throw new AiStepError(`The AI agent failed after ${maxAttempts} attempts: ${lastReason}.`, maxAttempts);
}
