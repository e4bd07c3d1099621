import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the schema and migrations live: the repository's prisma/ folder in development, or a
 * prisma/ folder beside the deployed bundle. FINWATCH_PRISMA_DIR overrides both.
 */
function findPrismaDir(): string {
  if (process.env.FINWATCH_PRISMA_DIR) return process.env.FINWATCH_PRISMA_DIR;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'prisma', 'schema.prisma');
    if (existsSync(candidate)) return path.join(dir, 'prisma');
    dir = path.dirname(dir);
  }
  return path.resolve('prisma');
}

const prismaDir = findPrismaDir();

export const MIGRATION_SOURCES = {
  schemaPath: path.join(prismaDir, 'schema.prisma'),
  migrationsDir: path.join(prismaDir, 'migrations'),
};

/** The original's idempotent column scripts, for databases created before those columns. */
export const LEGACY_SCRIPTS_DIR = path.join(prismaDir, 'scripts');
