import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LEGACY_SCRIPTS_DIR } from './paths.js';

/** The original's idempotent column scripts, in the order they were introduced. */
export const LEGACY_SCRIPTS = ['AddSubscriptionBudget', 'AddSubscriptionInfraSupportCost'] as const;

export interface SqlExecutor {
  $executeRawUnsafe(sql: string): Promise<unknown>;
}

/**
 * Brings a Subscriptions table created before the budget and infra-support columns existed up to
 * date. Each script checks the column is absent before adding it, so running them again is a no-op.
 */
export async function runLegacyColumnScripts(db: SqlExecutor): Promise<void> {
  for (const name of LEGACY_SCRIPTS) {
    const sql = await readFile(path.join(LEGACY_SCRIPTS_DIR, `${name}.sql`), 'utf8');
    await db.$executeRawUnsafe(sql);
  }
}
