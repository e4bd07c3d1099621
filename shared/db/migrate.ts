import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { MigrationDirectory } from '@prisma/schema-engine-wasm';
import { openSchemaEngine } from './schema-engine.js';

export interface MigrationSources {
  schemaPath: string;
  migrationsDir: string;
}

export interface MigrateResult {
  applied: string[];
  mode: 'migrations' | 'schema-push';
}

export async function readMigrationDirectories(migrationsDir: string): Promise<MigrationDirectory[]> {
  if (!existsSync(migrationsDir)) return [];
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const dirs = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const out: MigrationDirectory[] = [];
  for (const name of dirs) {
    const file = path.join(migrationsDir, name, 'migration.sql');
    if (!existsSync(file)) continue;
    out.push({
      path: name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: await readFile(file, 'utf8') } },
    });
  }
  return out;
}

async function lockfile(migrationsDir: string) {
  const file = path.join(migrationsDir, 'migration_lock.toml');
  return { path: 'migration_lock.toml', content: existsSync(file) ? await readFile(file, 'utf8') : null };
}

/**
 * Brings the database to the schema: applies pending migrations from prisma/migrations (recorded
 * in _prisma_migrations, as `prisma migrate deploy` does), or pushes the model when the project has
 * no migrations yet. Safe to run on every start: applied migrations are skipped.
 */
export async function migrateDatabase(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  sources: MigrationSources,
  log: (message: string) => void = () => {},
): Promise<MigrateResult> {
  const content = await readFile(sources.schemaPath, 'utf8');
  const { engine, close } = await openSchemaEngine(
    { path: sources.schemaPath, content },
    adapterFactory,
    log,
  );
  try {
    const migrationDirectories = await readMigrationDirectories(sources.migrationsDir);
    if (migrationDirectories.length === 0) {
      await engine.schemaPush({
        force: false,
        schema: { files: [{ path: sources.schemaPath, content }] },
        filters: { externalTables: [], externalEnums: [] },
      });
      return { applied: [], mode: 'schema-push' };
    }
    const out = await engine.applyMigrations({
      migrationsList: {
        baseDir: sources.migrationsDir,
        lockfile: await lockfile(sources.migrationsDir),
        shadowDbInitScript: '',
        migrationDirectories,
      },
      filters: { externalTables: [], externalEnums: [] },
    });
    return { applied: out.appliedMigrationNames, mode: 'migrations' };
  } finally {
    await close();
  }
}

/** SQL that takes the database from the existing migrations to the current schema file. */
export async function diffMigrationSql(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  sources: MigrationSources,
): Promise<string> {
  const content = await readFile(sources.schemaPath, 'utf8');
  const { engine, close } = await openSchemaEngine({ path: sources.schemaPath, content }, adapterFactory);
  try {
    const migrationDirectories = await readMigrationDirectories(sources.migrationsDir);
    const from =
      migrationDirectories.length === 0
        ? ({ tag: 'empty' } as const)
        : ({
            tag: 'migrations',
            baseDir: sources.migrationsDir,
            lockfile: await lockfile(sources.migrationsDir),
            shadowDbInitScript: '',
            migrationDirectories,
          } as const);
    const result = await engine.diff({
      from,
      to: { tag: 'schemaDatamodel', files: [{ path: sources.schemaPath, content }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.stdout ?? '';
  } finally {
    await close();
  }
}
