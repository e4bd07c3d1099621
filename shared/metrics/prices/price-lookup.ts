/**
 * Azure retail price lookups behind two caches: a table every instance shares (entries kept
 * Metrics__AzurePricesCacheMinutes), and a short in-process memo in front of it, so a node post
 * costs no query once a size's price is known. Concurrent lookups of one request share one call;
 * at most UPSTREAM_CONCURRENCY calls to Azure run at once per instance; a failed lookup is not
 * retried for FAILURE_BACKOFF_MS (an unreachable API must not slow every post).
 */
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../db/client.js';
import type { Prisma } from '../../db/generated/client.js';
import {
  PriceApiError,
  type PriceRequest,
  type PriceResponse,
  type RetailPricesClient,
  requestKey,
} from './retail-api.js';

export const MEMO_MS = 5 * 60_000;
export const FAILURE_BACKOFF_MS = 60_000;
export const UPSTREAM_CONCURRENCY = 4;
const MEMO_MAX = 2000;

export class PricesUnavailable extends Error {}

export interface PriceLookup {
  /** The answer for a validated request, from a cache or Azure. Throws PricesUnavailable. */
  get(r: PriceRequest): Promise<PriceResponse>;
  close(): Promise<void>;
}

export function createPriceLookup(deps: {
  prisma: PrismaClient;
  /** undefined: lookups are off (Metrics__AzurePricesBaseUrl empty). */
  client: RetailPricesClient | undefined;
  cacheMinutes: number;
  now?: () => number;
}): PriceLookup {
  const now = deps.now ?? (() => Date.now());
  const memo = new Map<string, { at: number; value: PriceResponse }>();
  const failures = new Map<string, number>();
  const inflight = new Map<string, Promise<PriceResponse>>();
  let running = 0;
  const waiting: Array<() => void> = [];

  async function upstream(r: PriceRequest): Promise<PriceResponse> {
    if (!deps.client) throw new PricesUnavailable('Azure price lookups are turned off on this server.');
    if (running >= UPSTREAM_CONCURRENCY) await new Promise<void>((go) => waiting.push(go));
    running++;
    try {
      return await deps.client.lookup(r);
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  async function load(key: string, hash: string, r: PriceRequest): Promise<PriceResponse> {
    const maxAge = deps.cacheMinutes * 60_000;
    const row = await deps.prisma.azurePriceCache.findUnique({ where: { key: hash } });
    if (row && now() - row.fetchedAt.getTime() < maxAge) return row.response as unknown as PriceResponse;
    const failedAt = failures.get(key);
    if (failedAt !== undefined && now() - failedAt < FAILURE_BACKOFF_MS) {
      // A stale answer beats none while Azure cannot be reached.
      if (row) return row.response as unknown as PriceResponse;
      throw new PricesUnavailable('The Azure Retail Prices API could not be reached; try again in a minute.');
    }
    let value: PriceResponse;
    try {
      value = await upstream(r);
      failures.delete(key);
    } catch (err) {
      failures.set(key, now());
      if (failures.size > MEMO_MAX) failures.delete(failures.keys().next().value as string);
      if (row) return row.response as unknown as PriceResponse;
      if (err instanceof PricesUnavailable) throw err;
      const reason =
        err instanceof PriceApiError ? err.message : 'the Azure Retail Prices API could not be reached';
      throw new PricesUnavailable(`Azure prices are unavailable: ${reason}.`);
    }
    const fetchedAt = new Date(now());
    await deps.prisma.azurePriceCache.upsert({
      where: { key: hash },
      create: { key: hash, response: value as unknown as Prisma.InputJsonValue, fetchedAt },
      update: { response: value as unknown as Prisma.InputJsonValue, fetchedAt },
    });
    // Expired entries of other requests go when the cache is written, bounded to a few rows a time.
    await deps.prisma.$executeRawUnsafe(
      `DELETE FROM "AzurePriceCache" WHERE "key" IN (
         SELECT "key" FROM "AzurePriceCache" WHERE "fetchedAt" < $1::timestamptz LIMIT 50)`,
      new Date(now() - maxAge).toISOString(),
    );
    return value;
  }

  return {
    async get(r) {
      const key = requestKey(r);
      const hit = memo.get(key);
      if (hit && now() - hit.at < Math.min(MEMO_MS, deps.cacheMinutes * 60_000)) return hit.value;
      let pending = inflight.get(key);
      if (!pending) {
        const hash = createHash('sha256').update(key).digest('hex');
        pending = load(key, hash, r).finally(() => inflight.delete(key));
        inflight.set(key, pending);
      }
      const value = await pending;
      memo.set(key, { at: now(), value });
      if (memo.size > MEMO_MAX) memo.delete(memo.keys().next().value as string);
      return value;
    },
    async close() {
      await Promise.allSettled([...inflight.values()]);
      await deps.client?.close();
    },
  };
}
