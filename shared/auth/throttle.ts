import { sleep } from '../app/sleep.js';
import type { PrismaClient } from '../db/generated/client.js';
import { HttpError } from '../http/problem.js';

/** The window every password-guess count covers. */
export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Default of `Login__MaxFailuresPerClient`: guesses per account and client address in the window. */
export const LOGIN_MAX_FAILURES = 10;

/**
 * What a guess is counted against. Sign-in guesses and User/updatePassword's currentPassword guesses
 * are separate kinds: a wrong current password (made with the account's own token) never slows or
 * blocks the account's sign-in.
 */
export type GuessKind = 'signIn' | 'passwordChange';

export interface ThrottleLimits {
  /** Guesses per account and client address in the window before 429 (the bound a stranger hits). */
  maxFailuresPerClient: number;
  /** Account-wide guesses (every address) in the window after which unknown addresses wait. */
  slowDownAfter: number;
  /** The longest such wait. */
  maxDelaySeconds: number;
  /** How long an address an account signed in from stays known (exempt from the wait). */
  knownAddressDays: number;
}

export interface Admission {
  /** How long this attempt waited before its password was checked (account-wide slow-down). */
  delayedSeconds: number;
}

/** Account-wide failures beyond `slowDownAfter` double the wait every this many. */
const FAILURES_PER_DOUBLING = 10;

/**
 * The wait of an attempt from an address the account never signed in from, given the account's
 * failures in the window: none up to `slowDownAfter`, then 1 s, doubling every 10 more failures, up
 * to `maxDelaySeconds`. It slows a guesser spread over many addresses without ever refusing the
 * right password, which a hard account-wide lockout would do to the owner (a stranger could lock
 * anyone out at will).
 */
export function slowDownSeconds(accountFailures: number, limits: ThrottleLimits): number {
  const beyond = accountFailures - limits.slowDownAfter;
  if (beyond <= 0 || limits.maxDelaySeconds <= 0) return 0;
  return Math.min(limits.maxDelaySeconds, 2 ** Math.floor((beyond - 1) / FAILURES_PER_DOUBLING));
}

interface Key {
  account: string;
  kind: GuessKind;
  clientAddress: string;
}

async function refuseAtLimit(prisma: PrismaClient, key: Key, limit: number, now: number): Promise<void> {
  const recent = await prisma.loginFailure.findMany({
    where: { ...key, createdAt: { gt: new Date(now - LOGIN_WINDOW_MS) } },
    orderBy: { createdAt: 'desc' },
    take: limit,
    select: { createdAt: true },
  });
  if (recent.length < limit) return;
  const oldest = recent[recent.length - 1]!.createdAt.getTime();
  const retryAfter = Math.max(1, Math.ceil((oldest + LOGIN_WINDOW_MS - Date.now()) / 1000));
  const what = key.kind === 'signIn' ? 'sign-in attempts from this address' : 'current password guesses';
  throw new HttpError(429, `Too many failed ${what} for this account; try again later.`, {
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/** Attempts between two sweeps of every account's expired rows, per process (the first sweeps). */
export const PRUNE_EVERY_ATTEMPTS = 256;
const attemptsSincePrune = new WeakMap<object, number>();

/**
 * Expired rows of accounts nobody tries again (a flood of made-up names) would stay forever:
 * the per-account cleanup below only runs when that account is tried. Swept now and then, after
 * the answer, so an attempt never waits for it; known addresses past their days go with them.
 */
function pruneExpired(prisma: PrismaClient, now: number, limits: ThrottleLimits): void {
  const count = attemptsSincePrune.get(prisma) ?? 0;
  attemptsSincePrune.set(prisma, (count + 1) % PRUNE_EVERY_ATTEMPTS);
  if (count !== 0) return;
  const knownSince = new Date(now - limits.knownAddressDays * 86_400_000);
  Promise.all([
    prisma.loginFailure.deleteMany({ where: { createdAt: { lt: new Date(now - LOGIN_WINDOW_MS) } } }),
    prisma.knownSignInAddress.deleteMany({ where: { lastSignInAt: { lt: knownSince } } }),
  ]).catch(() => {
    // Best effort: the next sweep tries again.
  });
}

async function isKnownAddress(prisma: PrismaClient, key: Key, limits: ThrottleLimits, now: number) {
  const row = await prisma.knownSignInAddress.findUnique({
    where: { account_clientAddress: { account: key.account, clientAddress: key.clientAddress } },
    select: { lastSignInAt: true },
  });
  return row !== null && row.lastSignInAt.getTime() > now - limits.knownAddressDays * 86_400_000;
}

/**
 * Counts a password guess before the password is checked, refuses it with 429, or makes it wait.
 *
 * Two bounds (docs/decisions.md, "Password guesses"):
 * - per account AND client address (`maxFailuresPerClient` in 15 minutes, then 429 with Retry-After):
 *   the bound a guesser from one address hits, and nobody else;
 * - per account over every address, for sign-in only: past `slowDownAfter` failures an attempt from
 *   an address the account has not signed in from waits (growing, capped), and is then checked.
 *
 * The attempt is recorded first and the count read after: each insert commits on its own, so the
 * k-th attempt to commit counts at least k rows, and at most `maxFailuresPerClient` attempts per
 * address in a window are ever verified, however many arrive at once and on however many instances
 * share the database. The row stays as the failure record; a right password clears that account and
 * address with `rememberSignIn`.
 */
export async function admitPasswordAttempt(
  prisma: PrismaClient,
  key: Key,
  limits: ThrottleLimits,
): Promise<Admission> {
  const now = Date.now();
  pruneExpired(prisma, now, limits);
  // Already over: refused without writing, so a flood cannot grow the table.
  await refuseAtLimit(prisma, key, limits.maxFailuresPerClient, now);
  await prisma.$transaction([
    // Attempts older than the window no longer count: dropped as new ones arrive.
    prisma.loginFailure.deleteMany({
      where: { account: key.account, createdAt: { lt: new Date(now - LOGIN_WINDOW_MS) } },
    }),
    prisma.loginFailure.create({ data: key }),
  ]);
  await refuseAtLimit(prisma, key, limits.maxFailuresPerClient + 1, now);
  if (key.kind !== 'signIn') return { delayedSeconds: 0 };
  const accountFailures = await prisma.loginFailure.count({
    where: { account: key.account, kind: key.kind, createdAt: { gt: new Date(now - LOGIN_WINDOW_MS) } },
  });
  const wait = slowDownSeconds(accountFailures, limits);
  if (wait === 0 || (await isKnownAddress(prisma, key, limits, now))) return { delayedSeconds: 0 };
  await sleep(wait * 1000);
  return { delayedSeconds: wait };
}

/**
 * After a right password: forgets the guesses counted for this account from this address (a
 * stranger's guesses from elsewhere keep counting) and remembers the address as one the account
 * signs in from, so the account-wide slow-down never applies to it.
 */
export async function rememberSignIn(prisma: PrismaClient, key: Key): Promise<void> {
  await prisma.$transaction([
    prisma.loginFailure.deleteMany({ where: key }),
    prisma.knownSignInAddress.upsert({
      where: { account_clientAddress: { account: key.account, clientAddress: key.clientAddress } },
      create: { account: key.account, clientAddress: key.clientAddress },
      update: { lastSignInAt: new Date() },
    }),
  ]);
}

/** Forgets a right current password's guesses (User/updatePassword). */
export async function clearAttempts(prisma: PrismaClient, key: Key): Promise<void> {
  await prisma.loginFailure.deleteMany({ where: key });
}

/** The limits as the settings give them. */
export function throttleLimits(auth: {
  Login__MaxFailuresPerClient: number;
  Login__SlowDownAfterFailures: number;
  Login__MaxDelaySeconds: number;
  Login__KnownAddressDays: number;
}): ThrottleLimits {
  return {
    maxFailuresPerClient: auth.Login__MaxFailuresPerClient,
    slowDownAfter: auth.Login__SlowDownAfterFailures,
    maxDelaySeconds: auth.Login__MaxDelaySeconds,
    knownAddressDays: auth.Login__KnownAddressDays,
  };
}
