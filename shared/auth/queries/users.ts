import { type ChangeBy, withAudit } from '../../audit/record.js';
import type { Prisma, PrismaClient } from '../../db/generated/client.js';
import { countedPage } from '../../http/paging.js';
import type { UserRow } from '../users.js';

/** Data access of the User routes: users, their device tokens. */

type Db = PrismaClient | Prisma.TransactionClient;

export interface Page<T> {
  rows: T[];
  total: number;
}

/** Users by user name (of one monitor group when `groupId` is given), one page, with the total. */
export async function listUsers(
  prisma: PrismaClient,
  page: { skip: number; take: number },
  groupId?: number,
): Promise<Page<UserRow>> {
  const where = groupId === undefined ? {} : { monitorGroups: { some: { groupMonitorId: groupId } } };
  return countedPage(
    () => prisma.user.findMany({ where, orderBy: [{ username: 'asc' }, { id: 'asc' }], ...page }),
    page,
    () => prisma.user.count({ where }),
  );
}

export function countUsers(prisma: PrismaClient): Promise<number> {
  return prisma.user.count();
}

export async function deleteUserRow(tx: Db, id: string): Promise<void> {
  await tx.user.delete({ where: { id } });
}

export function updateUserRow(
  tx: Db,
  id: string,
  data: Pick<UserRow, 'username' | 'email' | 'isAdmin'>,
): Promise<UserRow> {
  return tx.user.update({ where: { id }, data });
}

/** addDeviceToken with its audit record (none when the user had the token already). */
export function addDeviceTokenOf(prisma: PrismaClient, userId: string, deviceToken: string, by: ChangeBy) {
  return withAudit(
    prisma,
    (tx) => addDeviceToken(tx, userId, deviceToken),
    (added) =>
      added
        ? {
            ...by,
            action: 'deviceToken.added',
            target: { type: 'user', id: userId },
            // A token's tail identifies it to a person without storing a push credential.
            details: { deviceTokenEnd: deviceToken.slice(-6) },
          }
        : undefined,
  );
}

/**
 * A successful sign-in: the user's lastLogon and its audit record together; answers the row as
 * it is now.
 */
export function recordSignIn(
  prisma: PrismaClient,
  user: Pick<UserRow, 'id' | 'email'>,
  at: Date,
  details: Record<string, unknown>,
  request: ChangeBy['request'],
): Promise<UserRow> {
  return withAudit(
    prisma,
    (tx) => tx.user.update({ where: { id: user.id }, data: { lastLogon: at } }),
    () => ({
      actor: { userId: user.id, email: user.email },
      action: 'signIn.succeeded',
      target: { type: 'user', id: user.id },
      details,
      request,
    }),
  );
}

/** Adds a device token to a user; false when the user already had it. */
export async function addDeviceToken(tx: Db, userId: string, deviceToken: string): Promise<boolean> {
  const added = await tx.userDeviceToken.createMany({
    data: [{ userId, deviceToken }],
    skipDuplicates: true,
  });
  return added.count > 0;
}

/** A user's device tokens in the order they were added, one page, with the total. */
export async function deviceTokensOfUser(
  prisma: PrismaClient,
  userId: string,
  page: { skip: number; take: number },
): Promise<Page<string>> {
  const { rows, total } = await countedPage(
    () =>
      prisma.userDeviceToken.findMany({
        where: { userId },
        orderBy: { id: 'asc' },
        select: { deviceToken: true },
        ...page,
      }),
    page,
    () => prisma.userDeviceToken.count({ where: { userId } }),
  );
  return { rows: rows.map((r) => r.deviceToken), total };
}

/**
 * The distinct device tokens of a monitor group's users (two users on one device share a token),
 * in the order first added, one page, with the total. Raw SQL: Prisma has no count of distinct
 * values, and DISTINCT ON keeps each token's first row for the order.
 */
export async function deviceTokensOfGroup(
  prisma: PrismaClient,
  groupId: number,
  page: { skip: number; take: number },
): Promise<Page<string>> {
  const [rows, counted] = await Promise.all([
    prisma.$queryRaw<Array<{ deviceToken: string }>>`
      SELECT "deviceToken" FROM (
        SELECT DISTINCT ON (t."deviceToken") t."deviceToken", t.id
        FROM "UserDeviceTokens" t JOIN "UsersMonitorGroup" g ON g."userId" = t."userId"
        WHERE g."groupMonitorId" = ${groupId}
        ORDER BY t."deviceToken", t.id
      ) first ORDER BY id OFFSET ${page.skip} LIMIT ${page.take}`,
    prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(DISTINCT t."deviceToken")::int AS n
      FROM "UserDeviceTokens" t JOIN "UsersMonitorGroup" g ON g."userId" = t."userId"
      WHERE g."groupMonitorId" = ${groupId}`,
  ]);
  return { rows: rows.map((r) => r.deviceToken), total: counted[0]?.n ?? 0 };
}
