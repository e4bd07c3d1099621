-- Substring search (Resources/.../search) through trigram indexes. pg_trgm ships with PostgreSQL
-- and PGlite, and Azure Database for PostgreSQL creates it once azure.extensions lists PG_TRGM
-- (infra/main.bicep sets it). Where the extension cannot be created, the indexes are skipped with
-- a warning instead of failing every start, and search gives the same answers without them, from
-- the run's rows (docs/decisions.md). The indexes are declared in schema.prisma (type: Gin,
-- ops: raw("gin_trgm_ops")), so later diffs keep them.
-- The blocks write their semicolons as \073 in E'' strings: @prisma/adapter-pg runs a migration
-- statement by statement, split at every semicolon, quoted or not.
DO E'BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm\073
EXCEPTION WHEN OTHERS THEN
  RAISE WARNING ''finwatch: pg_trgm cannot be created (%), substring search runs without its indexes'', SQLERRM\073
END';

DO E'BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = ''pg_trgm'') THEN
    CREATE INDEX "ResourceAnalyses_resourceName_trgm_idx" ON "ResourceAnalyses" USING GIN ("resourceName" gin_trgm_ops)\073
    CREATE INDEX "ResourceAnalyses_resourceGroup_trgm_idx" ON "ResourceAnalyses" USING GIN ("resourceGroup" gin_trgm_ops)\073
    CREATE INDEX "ResourceAnalyses_resourceType_trgm_idx" ON "ResourceAnalyses" USING GIN ("resourceType" gin_trgm_ops)\073
  END IF\073
END';
