import { readFile, writeFile } from 'node:fs/promises';
import { inject } from 'vitest';
import { createPGlite } from '../../shared/db/client.js';
import { migrateDatabase } from '../../shared/db/migrate.js';
import { MIGRATION_SOURCES } from '../../shared/db/paths.js';

/**
 * Writes a migrated PGlite data directory (a dumpDataDir tarball) to `file`. Made once per run in
 * global setup: a fresh PGlite runs initdb, seconds of CPU, and every test host used to pay it.
 */
export async function writeMigratedPgliteTemplate(file: string): Promise<void> {
  const pglite = await createPGlite('memory://');
  try {
    const { PrismaPGlite } = await import('pglite-prisma-adapter');
    await migrateDatabase(new PrismaPGlite(pglite), MIGRATION_SOURCES);
    const dump = await pglite.dumpDataDir('none');
    await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await pglite.close();
  }
}

let template: Promise<Blob> | undefined;

/** The run's migrated PGlite data directory, read once per test process. */
export function migratedPgliteTemplate(): Promise<Blob> {
  template ??= readFile(inject('pgliteTemplateFile')).then((bytes) => new Blob([bytes]));
  return template;
}
