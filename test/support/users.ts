import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { PrismaClient } from '../../shared/db/client.js';
import { TEST_JWT_KEY } from './host.js';

/** Users for tests: rows written straight to the database, with tokens the real auth module accepts. */
export interface TestUser {
  id: string;
  email: string;
  token: string;
  isAdmin: boolean;
}

/**
 * An own HS256 token as the auth service issues them, for a user row inserted directly; the real
 * auth module validates it like any token it issued.
 */
export function mintToken(user: { id: string; email: string; isAdmin: boolean; username: string }): string {
  return jwt.sign(
    {
      id: user.id,
      email: user.email,
      emailaddress: user.email,
      givenname: user.username,
      surname: '',
      isAdmin: user.isAdmin ? 'True' : 'False',
    },
    TEST_JWT_KEY,
    {
      algorithm: 'HS256',
      issuer: 'finwatch-test',
      audience: 'finwatch-test',
      subject: user.id,
      expiresIn: '1h',
    },
  );
}

/** What a plain user is given, as an administrator would assign it (UserSubscriptions, UserClusters). */
export interface Assignments {
  subscriptions?: readonly string[];
  clusters?: readonly string[];
}

async function assign(prisma: PrismaClient, userId: string, a: Assignments): Promise<void> {
  if (a.subscriptions?.length) {
    await prisma.userSubscription.createMany({
      data: a.subscriptions.map((subscriptionId) => ({ userId, subscriptionId })),
    });
  }
  if (a.clusters?.length) {
    await prisma.userCluster.createMany({ data: a.clusters.map((clusterName) => ({ userId, clusterName })) });
  }
}

/** A new user with a unique name and a token, and the subscriptions and clusters assigned to it. */
export async function createUser(
  prisma: PrismaClient,
  isAdmin: boolean,
  assignments: Assignments = {},
): Promise<TestUser> {
  const tag = randomUUID().slice(0, 8);
  const row = await prisma.user.create({
    data: { username: `finops-${tag}`, email: `finops-${tag}@example.test`, isAdmin },
  });
  await assign(prisma, row.id, assignments);
  return {
    id: row.id,
    email: row.email,
    isAdmin,
    token: mintToken({ id: row.id, email: row.email, isAdmin, username: row.username }),
  };
}

/**
 * The two callers a stubbed authenticator resolves its fixed tokens to. UUIDs, as real user ids are:
 * the audit trail stores the actor's id in a uuid column.
 */
export const STUB_ADMIN = {
  id: '00000000-0000-4000-8000-000000000001',
  email: 'admin@example.com',
  username: 'admin',
  isAdmin: true,
} as const;
export const STUB_USER = {
  id: '00000000-0000-4000-8000-000000000002',
  email: 'user@example.com',
  username: 'user',
  isAdmin: false,
} as const;

/** The user rows behind the stubbed callers, for routes that read a caller's assignments. */
export async function seedStubCallers(prisma: PrismaClient): Promise<void> {
  await prisma.user.createMany({
    data: [STUB_USER, STUB_ADMIN].map(({ id, email, username, isAdmin }) => ({
      id,
      email,
      username,
      isAdmin,
    })),
  });
}
