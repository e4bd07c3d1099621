import type { PrismaClient } from '../db/generated/client.js';
import { HttpError } from '../http/problem.js';

/** Password guesses per account allowed within the window before 429. */
export const LOGIN_MAX_FAILURES = 10;
export const LOGIN_WINDOW_MS = 15 * 60_000;

async function refuseAtLimit(
  prisma: PrismaClient,
  account: string,
  limit: number,
  now: number,
): Promise<void> {
  const recent = await prisma.loginFailure.findMany({
    where: { account, createdAt: { gt: new Date(now - LOGIN_WINDOW_MS) } },
    orderBy: { createdAt: 'desc' },
    take: limit,
    select: { createdAt: true },
  });
  if (recent.length < limit) return;
  const oldest = recent[recent.length - 1]!.createdAt.getTime();
  const retryAfter = Math.max(1, Math.ceil((oldest + LOGIN_WINDOW_MS - Date.now()) / 1000));
  throw new HttpError(429, 'Too many failed sign-in attempts for this account; try again later.', {
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/** Attempts between two sweeps of every account's expired rows, per process (the first sweeps). */
export const PRUNE_EVERY_ATTEMPTS = 256;
const attemptsSincePrune = new WeakMap<object, number>();

/**
 * Expired rows of accounts nobody tries again (a flood of made-up names) would stay forever:
 * the per-account cleanup below only runs when that account is tried. Swept now and then, after
 * the answer, so an attempt never waits for it.
 */
function pruneExpired(prisma: PrismaClient, now: number): void {
  const count = attemptsSincePrune.get(prisma) ?? 0;
  attemptsSincePrune.set(prisma, (count + 1) % PRUNE_EVERY_ATTEMPTS);
  if (count !== 0) return;
  prisma.loginFailure
    .deleteMany({ where: { createdAt: { lt: new Date(now - LOGIN_WINDOW_MS) } } })
    .catch(() => {
      // Best effort: the next sweep tries again.
    });
}

/**
 * Counts a password guess for an account before the password is checked, or refuses it with 429.
 *
 * The attempt is recorded first and the count read after: each insert commits on its own, so the
 * k-th attempt to commit counts at least k rows, and at most LOGIN_MAX_FAILURES attempts in a
 * window are ever verified, however many arrive at once and on however many instances share the
 * database. Reading before writing (as it was) let 30 parallel guesses all through.
 * The row stays as the failure record; a right password clears the account with `clearAttempts`.
 */
export async function admitPasswordAttempt(prisma: PrismaClient, account: string): Promise<void> {
  const now = Date.now();
  pruneExpired(prisma, now);
  // Already over: refused without writing, so a flood cannot grow the table.
  await refuseAtLimit(prisma, account, LOGIN_MAX_FAILURES, now);
  await prisma.$transaction([
    // Attempts older than the window no longer count: dropped as new ones arrive.
    prisma.loginFailure.deleteMany({
      where: { account, createdAt: { lt: new Date(now - LOGIN_WINDOW_MS) } },
    }),
    prisma.loginFailure.create({ data: { account } }),
  ]);
  await refuseAtLimit(prisma, account, LOGIN_MAX_FAILURES + 1, now);
}

/** Forgets an account's counted attempts after a right password. */
export async function clearAttempts(prisma: PrismaClient, ...accounts: string[]): Promise<void> {
  await prisma.loginFailure.deleteMany({ where: { account: { in: accounts } } });
}
