import { type AuditAction, type ChangeBy, withAudit } from '../../audit/record.js';
import type { Prisma, PrismaClient } from '../../db/generated/client.js';
import { countedPage } from '../../http/paging.js';
import type { Page } from './users.js';

/** Data access of the UserAction, UsersMonitorGroup, UserClusters and UserSubscriptions routes. */

type Db = PrismaClient | Prisma.TransactionClient;
type Paged = { skip: number; take: number };

export interface ActionRow {
  id: number;
  userId: string;
  action: string;
  timeStamp: Date;
}

export async function createAction(prisma: PrismaClient, userId: string, action: string, timeStamp: Date) {
  await prisma.userAction.create({ data: { userId, action, timeStamp } });
}

/** Actions newest first (of one user, or everyone's), one page, with the total. */
export async function listActions(
  prisma: PrismaClient,
  userId: string | undefined,
  page: Paged,
): Promise<Page<ActionRow>> {
  const where = userId === undefined ? {} : { userId };
  return countedPage(
    () => prisma.userAction.findMany({ where, orderBy: [{ timeStamp: 'desc' }, { id: 'desc' }], ...page }),
    page,
    () => prisma.userAction.count({ where }),
  );
}

export interface GroupRow {
  id: string;
  userId: string;
  groupMonitorId: number;
}

const groupSelect = { id: true, userId: true, groupMonitorId: true } as const;

/** A user's monitor groups by group id, one page, with the total. */
export async function groupsOfUser(
  prisma: PrismaClient,
  userId: string,
  page: Paged,
): Promise<Page<GroupRow>> {
  return countedPage(
    () =>
      prisma.userMonitorGroup.findMany({
        where: { userId },
        orderBy: { groupMonitorId: 'asc' },
        select: groupSelect,
        ...page,
      }),
    page,
    () => prisma.userMonitorGroup.count({ where: { userId } }),
  );
}

/** Adds a user to a group; false when it was a member already. */
export async function assignGroup(tx: Db, userId: string, groupMonitorId: number): Promise<boolean> {
  const added = await tx.userMonitorGroup.createMany({
    data: [{ userId, groupMonitorId }],
    skipDuplicates: true,
  });
  return added.count > 0;
}

/** Replaces the groups of `userIds` with `rows`; answers the memberships before. */
export async function replaceGroups(
  tx: Prisma.TransactionClient,
  userIds: string[],
  rows: Array<{ userId: string; groupMonitorId: number }>,
): Promise<Array<{ userId: string; groupMonitorId: number }>> {
  const before = await tx.userMonitorGroup.findMany({
    where: { userId: { in: userIds } },
    select: { userId: true, groupMonitorId: true },
  });
  await tx.userMonitorGroup.deleteMany({ where: { userId: { in: userIds } } });
  await tx.userMonitorGroup.createMany({ data: rows, skipDuplicates: true });
  return before;
}

/** assignGroup with its audit record (none when the user was a member already). */
export function joinGroup(prisma: PrismaClient, userId: string, groupMonitorId: number, by: ChangeBy) {
  return withAudit(
    prisma,
    (tx) => assignGroup(tx, userId, groupMonitorId),
    (added) =>
      added
        ? {
            ...by,
            action: 'monitorGroups.changed',
            target: { type: 'user', id: userId },
            details: { added: groupMonitorId },
          }
        : undefined,
  );
}

/** replaceGroups with one audit record per user: its groups before and after. */
export function setGroups(
  prisma: PrismaClient,
  userIds: string[],
  rows: Array<{ userId: string; groupMonitorId: number }>,
  by: ChangeBy,
) {
  const groupsOf = (userId: string, of: Array<{ userId: string; groupMonitorId: number }>) =>
    [...new Set(of.filter((r) => r.userId === userId).map((r) => r.groupMonitorId))].sort((a, b) => a - b);
  return withAudit(
    prisma,
    (tx) => replaceGroups(tx, userIds, rows),
    (before) =>
      userIds.map((userId) => ({
        ...by,
        action: 'monitorGroups.changed',
        target: { type: 'user', id: userId },
        details: { from: groupsOf(userId, before), to: groupsOf(userId, rows) },
      })),
  );
}

/** removeGroup with its audit record. */
export function emptyGroup(prisma: PrismaClient, groupMonitorId: number, by: ChangeBy) {
  return withAudit(
    prisma,
    (tx) => removeGroup(tx, groupMonitorId),
    (count) => ({
      ...by,
      action: 'monitorGroups.changed',
      target: { type: 'monitorGroup', id: groupMonitorId },
      details: { removedAllUsers: true, count },
    }),
  );
}

/** Removes every user from a group; answers how many memberships there were. */
export async function removeGroup(tx: Db, groupMonitorId: number): Promise<number> {
  return (await tx.userMonitorGroup.deleteMany({ where: { groupMonitorId } })).count;
}

/** A per-user access list's table: clusters by name, subscriptions by id. */
export interface AccessListStore {
  add(tx: Db, userId: string, value: string): Promise<unknown>;
  replace(tx: Db, userId: string, values: string[]): Promise<unknown>;
  /** Every value of a user (audit records of a replace). */
  all(tx: Db, userId: string): Promise<string[]>;
  /** One page of a user's values, with the total. */
  page(prisma: PrismaClient, userId: string, page: Paged): Promise<Page<string>>;
}

export const userClusters: AccessListStore = {
  add: (tx, userId, clusterName) =>
    tx.userCluster.createMany({ data: [{ userId, clusterName }], skipDuplicates: true }),
  async replace(tx, userId, names) {
    await tx.userCluster.deleteMany({ where: { userId } });
    await tx.userCluster.createMany({ data: names.map((clusterName) => ({ userId, clusterName })) });
  },
  all: async (tx, userId) =>
    (await tx.userCluster.findMany({ where: { userId }, orderBy: { clusterName: 'asc' } })).map(
      (r) => r.clusterName,
    ),
  async page(prisma, userId, page) {
    const { rows, total } = await countedPage(
      () => prisma.userCluster.findMany({ where: { userId }, orderBy: { clusterName: 'asc' }, ...page }),
      page,
      () => prisma.userCluster.count({ where: { userId } }),
    );
    return { rows: rows.map((r) => r.clusterName), total };
  },
};

export const userSubscriptions: AccessListStore = {
  add: (tx, userId, subscriptionId) =>
    tx.userSubscription.createMany({ data: [{ userId, subscriptionId }], skipDuplicates: true }),
  async replace(tx, userId, ids) {
    await tx.userSubscription.deleteMany({ where: { userId } });
    await tx.userSubscription.createMany({ data: ids.map((subscriptionId) => ({ userId, subscriptionId })) });
  },
  all: async (tx, userId) =>
    (await tx.userSubscription.findMany({ where: { userId }, orderBy: { subscriptionId: 'asc' } })).map(
      (r) => r.subscriptionId,
    ),
  async page(prisma, userId, page) {
    const { rows, total } = await countedPage(
      () =>
        prisma.userSubscription.findMany({ where: { userId }, orderBy: { subscriptionId: 'asc' }, ...page }),
      page,
      () => prisma.userSubscription.count({ where: { userId } }),
    );
    return { rows: rows.map((r) => r.subscriptionId), total };
  },
};

/** An access list's value added for a user, with its audit record. */
export function addToAccessList(
  prisma: PrismaClient,
  store: AccessListStore,
  action: AuditAction,
  userId: string,
  value: string,
  by: ChangeBy,
) {
  return withAudit(
    prisma,
    (tx) => store.add(tx, userId, value),
    () => ({ ...by, action, target: { type: 'user', id: userId }, details: { added: value } }),
  );
}

/** A user's access list replaced, with its audit record (the values before and after). */
export function replaceAccessList(
  prisma: PrismaClient,
  store: AccessListStore,
  action: AuditAction,
  userId: string,
  values: string[],
  by: ChangeBy,
) {
  return withAudit(
    prisma,
    async (tx) => {
      const before = await store.all(tx, userId);
      await store.replace(tx, userId, values);
      return before;
    },
    (before) => ({
      ...by,
      action,
      target: { type: 'user', id: userId },
      details: { from: before, to: values },
    }),
  );
}
