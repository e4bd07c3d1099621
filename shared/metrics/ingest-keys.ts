/**
 * Ingest keys: one or more per cluster, made by an administrator and given to that cluster's agent
 * (INGEST_KEY). Only the key's SHA-256 is stored, so the database never holds a usable key; the
 * key itself is shown once, in the answer that creates it. A key is revoked, not deleted, so the
 * audit trail and the list still name it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { HttpRequest } from '@azure/functions';
import { recordAudit } from '../audit/record.js';
import type { Caller } from '../auth/caller.js';
import type { PrismaClient } from '../db/client.js';
import { pageTotal } from '../http/paging.js';

/** Recognisable in logs and secret scanners; 32 random bytes after it. */
export const KEY_PREFIX = 'fwik_';

/** How long an instance trusts what it looked up about a key; a revocation reaches every instance within this. */
export const KEY_CACHE_MS = 30_000;
const MAX_CACHED_KEYS = 10_000;

export interface IngestKeyInfo {
  id: number;
  clusterName: string;
  prefix: string;
  createdBy: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export class IngestKeys {
  private readonly cache = new Map<string, { key: IngestKeyInfo | undefined; at: number }>();

  constructor(private readonly prisma: PrismaClient) {}

  /** A new key for a cluster: the row (with its hash) and the key, which is not kept anywhere. */
  static generate(): { key: string; hash: string; prefix: string } {
    const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    return { key, hash: hashKey(key), prefix: key.slice(0, KEY_PREFIX.length + 6) };
  }

  /**
   * The key's record, or undefined for an unknown or revoked key. Cached by the key as sent, so a
   * known key costs no hash: an agent's every post carries it, and a SHA-256 per post was ~2 % of a
   * one-object post's host CPU. Only the database must never hold a usable key; this
   * process holds it anyway while it answers the post.
   */
  async verify(key: string, now = Date.now()): Promise<IngestKeyInfo | undefined> {
    const hit = this.cache.get(key);
    if (hit && now - hit.at < KEY_CACHE_MS) return hit.key;
    const row = await this.prisma.metricsIngestKey.findUnique({ where: { keyHash: hashKey(key) } });
    const info = row && !row.revokedAt ? toInfo(row) : undefined;
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
    this.cache.set(key, { key: info, at: now });
    return info;
  }

  /** Makes a key for a cluster and audits it; the answer is the only place the key appears. */
  async create(
    clusterName: string,
    caller: Pick<Caller, 'userId' | 'email'>,
    request: Pick<HttpRequest, 'headers'>,
  ): Promise<IngestKeyInfo & { key: string }> {
    const made = IngestKeys.generate();
    const row = await this.prisma.$transaction(async (tx) => {
      const created = await tx.metricsIngestKey.create({
        data: { clusterName, keyHash: made.hash, prefix: made.prefix, createdBy: caller.email },
      });
      await recordAudit(tx, {
        actor: caller,
        action: 'metricsIngestKey.created',
        target: { type: 'metricsIngestKey', id: created.id },
        details: { clusterName, prefix: made.prefix },
        request,
      });
      return created;
    });
    return { ...toInfo(row), key: made.key };
  }

  /** A page of the keys, newest first (revoked ones too, marked), and how many there are. */
  async list(skip: number, take: number): Promise<{ rows: IngestKeyInfo[]; total: number }> {
    const rows = await this.prisma.metricsIngestKey.findMany({ orderBy: { id: 'desc' }, skip, take });
    const total = await pageTotal(rows, skip, take, () => this.prisma.metricsIngestKey.count());
    return { rows: rows.map(toInfo), total };
  }

  /** Revokes a key (audited); undefined when there is no such key. Revoking twice changes nothing. */
  async revoke(
    id: number,
    caller: Pick<Caller, 'userId' | 'email'>,
    request: Pick<HttpRequest, 'headers'>,
  ): Promise<IngestKeyInfo | undefined> {
    const row = await this.prisma.$transaction(async (tx) => {
      const existing = await tx.metricsIngestKey.findUnique({ where: { id } });
      if (!existing || existing.revokedAt) return existing ?? undefined;
      const revoked = await tx.metricsIngestKey.update({
        where: { id },
        data: { revokedAt: new Date(), revokedBy: caller.email },
      });
      await recordAudit(tx, {
        actor: caller,
        action: 'metricsIngestKey.revoked',
        target: { type: 'metricsIngestKey', id },
        details: { clusterName: existing.clusterName, prefix: existing.prefix },
        request,
      });
      return revoked;
    });
    this.forget();
    return row ? toInfo(row) : undefined;
  }

  /** Forgets what this instance cached (a revocation takes effect here at once). */
  forget(): void {
    this.cache.clear();
  }
}

type KeyRow = {
  id: number;
  clusterName: string;
  prefix: string;
  createdBy: string | null;
  createdAt: Date;
  revokedAt: Date | null;
};

export function toInfo(row: KeyRow): IngestKeyInfo {
  return {
    id: row.id,
    clusterName: row.clusterName,
    prefix: row.prefix,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}
