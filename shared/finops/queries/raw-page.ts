import type { PrismaClient } from '../../db/client.js';
import type { Prisma } from '../../db/generated/client.js';
import { pageTotal } from '../../http/paging.js';
import { toCount } from './format.js';

/**
 * A page of rows and how many rows match, in one raw query: the count rides on the rows
 * (`count(*) OVER ()`, as `pageTotal__`); an empty page goes by `pageTotal`'s rule (a page past
 * the end counts on its own). Raw because the run, subscription and recommendation lists answer
 * on every request, and a Prisma model query and its count cost about a millisecond of CPU in the
 * client, several times their SQL.
 * `from` (a table and its WHERE) and `order` are the caller's SQL with bound values.
 */
export async function rawPage<Row>(
  prisma: PrismaClient,
  from: Prisma.Sql,
  order: Prisma.Sql,
  skip: number,
  take: number,
): Promise<{ rows: Row[]; total: number }> {
  const rows = await prisma.$queryRaw<Array<Row & { pageTotal__: bigint }>>`
    SELECT *, count(*) OVER () AS "pageTotal__" FROM ${from} ${order} LIMIT ${take} OFFSET ${skip}`;
  const first = rows[0];
  if (first) return { rows, total: toCount(first.pageTotal__) };
  const total = await pageTotal(rows, skip, take, async () => {
    const [count] = await prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM ${from}`;
    return toCount(count?.n);
  });
  return { rows, total };
}
