import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import jwt from 'jsonwebtoken';
import { hashPassword, PASSWORD_HASH_OPTIONS } from '../../shared/auth/passwords.js';
import type { UserRow } from '../../shared/auth/users.js';
import { TEST_JWT_KEY, type TestHost } from '../support/host.js';

export const PASSWORD = 'correct horse battery';
let sharedHash: Promise<string> | undefined;

/** One argon2id hash of PASSWORD, reused for every seeded user (keeps tests fast). */
export function passwordHash(): Promise<string> {
  sharedHash ??= hashPassword(PASSWORD);
  return sharedHash;
}

let lowCostHash: Promise<string> | undefined;

/**
 * PASSWORD hashed with argon2id at its lowest cost (1 MiB, one pass): a check against it takes a
 * millisecond instead of the production cost's 60-90 ms, several hundred on a loaded machine.
 * For tests that make a hundred wrong guesses and count answers, not time; the stored hash
 * carries its parameters, so the app verifies it as it would any older hash.
 */
function lowCostPasswordHash(): Promise<string> {
  lowCostHash ??= argon2.hash(PASSWORD, { ...PASSWORD_HASH_OPTIONS, memoryCost: 1024, timeCost: 1 });
  return lowCostHash;
}

export const uniq = () => randomBytes(4).toString('hex');

/**
 * A user written straight to the database, with PASSWORD unless `password: false`; hashed at the
 * production cost unless `lowCostHash` (lowCostPasswordHash).
 */
export async function seedUser(
  host: TestHost,
  o: { email?: string; username?: string; isAdmin?: boolean; password?: boolean; lowCostHash?: boolean } = {},
): Promise<UserRow> {
  const id = uniq();
  const hash = o.lowCostHash ? lowCostPasswordHash() : passwordHash();
  return host.services.auth.users.create({
    email: o.email ?? `user-${id}@example.com`,
    username: o.username ?? `user-${id}`,
    isAdmin: o.isAdmin ?? false,
    passwordHash: o.password === false ? null : await hash,
  });
}

export const tokenOf = (host: TestHost, user: UserRow) => host.services.auth.issueToken(user);

/** An own-style token with chosen claims, key and options (forgeries and edge cases). */
export function forgeToken(
  user: Pick<UserRow, 'id' | 'email' | 'username'>,
  o: { key?: string; issuer?: string; audience?: string; iat?: number; exp?: number; nbf?: number } = {},
): string {
  const now = Math.floor(Date.now() / 1000);
  const iat = o.iat ?? now;
  return jwt.sign(
    {
      id: user.id,
      givenname: user.username,
      surname: user.username,
      emailaddress: user.email,
      isAdmin: 'True',
      sub: user.id,
      email: user.email,
      iat,
      nbf: o.nbf ?? iat,
      exp: o.exp ?? iat + 3600,
    },
    o.key ?? TEST_JWT_KEY,
    { algorithm: 'HS256', issuer: o.issuer ?? 'finwatch-test', audience: o.audience ?? 'finwatch-test' },
  );
}

/** An unsigned token (`alg: none`) claiming to be the user, as an administrator. */
export function algNoneToken(user: Pick<UserRow, 'id' | 'email' | 'username'>): string {
  const now = Math.floor(Date.now() / 1000);
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'none', typ: 'JWT' })}.${enc({
    id: user.id,
    sub: user.id,
    email: user.email,
    emailaddress: user.email,
    isAdmin: 'True',
    iss: 'finwatch-test',
    aud: 'finwatch-test',
    iat: now,
    exp: now + 3600,
  })}.`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
