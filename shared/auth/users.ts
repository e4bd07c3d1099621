import { randomBytes } from 'node:crypto';
import { GUID } from '../config/fields.js';
import type { Prisma, PrismaClient, User } from '../db/generated/client.js';
import { MAX_EMAIL_CHARS } from '../http/limits.js';
import { DEFAULT_CACHE_BOUNDS, TtlCache } from './cache.js';

export type UserRow = User;

/** Advisory lock key of changes that may remove an administrator. */
const ADMIN_LOCK_KEY = 7_305_001;

/** The wire shape of every "user" answer (the original's UserDto). */
export interface UserDto {
  id: string;
  username: string;
  email: string;
  isAdmin: boolean;
}

export const toUserDto = (u: UserRow): UserDto => ({
  id: u.id,
  username: u.username,
  email: u.email,
  isAdmin: u.isAdmin,
});

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function isUniqueViolation(e: unknown, field?: string): boolean {
  const err = e as { code?: string; meta?: { target?: unknown; driverAdapterError?: unknown } };
  if (err?.code !== 'P2002') return false;
  if (!field) return true;
  return JSON.stringify(err.meta ?? {})
    .toLowerCase()
    .includes(field.toLowerCase());
}

/**
 * Users with a short-lived lookup cache (CacheSettings__CacheProvider=Memory). Every change made
 * through this store clears the cache; other instances see a change within the TTL.
 */
/**
 * How long user lookups are cached (CacheSettings__CacheProvider=Memory), and so how long another
 * instance may still accept a token revoked elsewhere.
 */
export const USER_CACHE_SECONDS = 5;

export class UserStore {
  readonly #prisma: PrismaClient;
  readonly #cache: TtlCache<UserRow | null>;

  /** `now`: the clock cached lookups expire by (TtlCache's; tests move it). */
  constructor(
    prisma: PrismaClient,
    cacheEnabled: boolean,
    ttlMs = USER_CACHE_SECONDS * 1000,
    now?: () => number,
  ) {
    this.#prisma = prisma;
    this.#cache = new TtlCache<UserRow | null>(ttlMs, DEFAULT_CACHE_BOUNDS, cacheEnabled, now);
  }

  invalidate(): void {
    this.#cache.clear();
  }

  /** What the lookup cache holds (entries and estimated bytes), for tests and diagnostics. */
  get cacheUsage(): { entries: number; bytes: number } {
    return { entries: this.#cache.size, bytes: this.#cache.bytes };
  }

  /** Forgets one user's cached lookups (by id and by any email it had), and an email's miss. */
  forget(id: string, email?: string): void {
    this.#cache.delete(`id:${id.toLowerCase()}`);
    if (email) this.#cache.delete(`email:${normalizeEmail(email)}`);
    this.#cache.deleteWhere((u) => u?.id === id);
  }

  async byId(id: string): Promise<UserRow | null> {
    if (!GUID.test(id)) return null;
    const key = `id:${id.toLowerCase()}`;
    const hit = this.#cache.get(key);
    if (hit !== undefined) return hit;
    const user = await this.#prisma.user.findUnique({ where: { id } });
    this.#cache.set(key, user);
    return user;
  }

  async byEmail(email: string): Promise<UserRow | null> {
    // No stored email is longer (the routes refuse longer ones); nothing to look up or cache.
    if (email.length > MAX_EMAIL_CHARS + 2) return null;
    const key = `email:${normalizeEmail(email)}`;
    const hit = this.#cache.get(key);
    if (hit !== undefined) return hit;
    const user = await this.#prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
    this.#cache.set(key, user);
    return user;
  }

  async byUsername(username: string): Promise<UserRow | null> {
    return this.#prisma.user.findFirst({ where: { username: { equals: username, mode: 'insensitive' } } });
  }

  /**
   * Creates a user. A taken email answers the existing row when `existingOk`; a taken username
   * gets a short suffix when `uniqueUsername` (directory users, whose name is not chosen).
   */
  async create(
    data: {
      email: string;
      username: string;
      passwordHash?: string | null;
      isAdmin?: boolean;
      uniqueUsername?: boolean;
    },
    /** The transaction to create it in (with its audit record); the caller forgets after commit. */
    db: Pick<Prisma.TransactionClient, 'user'> = this.#prisma,
  ): Promise<UserRow> {
    const email = normalizeEmail(data.email);
    let username = data.username.trim();
    for (let attempt = 0; ; attempt++) {
      try {
        const user = await db.user.create({
          data: { email, username, passwordHash: data.passwordHash ?? null, isAdmin: data.isAdmin ?? false },
        });
        this.forget(user.id, email);
        return user;
      } catch (e) {
        if (data.uniqueUsername && attempt < 3 && isUniqueViolation(e, 'username')) {
          username = `${data.username.trim()}-${randomBytes(3).toString('hex')}`;
          continue;
        }
        throw e;
      }
    }
  }

  async update(
    id: string,
    data: Partial<
      Pick<UserRow, 'username' | 'email' | 'isAdmin' | 'passwordHash' | 'credentialsChangedAt' | 'lastLogon'>
    >,
    db: Pick<Prisma.TransactionClient, 'user'> = this.#prisma,
  ): Promise<UserRow> {
    const user = await db.user.update({ where: { id }, data });
    this.forget(id, user.email);
    return user;
  }

  async delete(id: string): Promise<void> {
    await this.#prisma.user.delete({ where: { id } });
    this.forget(id);
  }

  /**
   * Runs a change that might remove an administrator (demotion, deletion) under a database-wide
   * advisory lock, and refuses it when the user is the last administrator: two concurrent
   * requests on two instances cannot both remove "one of two" admins.
   */
  async keepingAnAdmin<T>(
    id: string,
    change: (tx: Prisma.TransactionClient) => Promise<T>,
  ): Promise<T | 'last-admin'> {
    const result = await this.#prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(${ADMIN_LOCK_KEY})) AS l`;
      const user = await tx.user.findUnique({ where: { id }, select: { isAdmin: true } });
      if (user?.isAdmin && (await tx.user.count({ where: { isAdmin: true } })) <= 1)
        return 'last-admin' as const;
      return change(tx);
    });
    this.forget(id);
    return result;
  }

  adminCount(): Promise<number> {
    return this.#prisma.user.count({ where: { isAdmin: true } });
  }
}
