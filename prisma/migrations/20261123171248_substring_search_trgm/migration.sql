-- Substring search (Resources/.../search) through trigram indexes. pg_trgm ships with PostgreSQL
-- and PGlite; Azure Database for PostgreSQL creates it once `azure.extensions` lists PG_TRGM
-- (infra/main.bicep sets it). Where the extension cannot be created (a server that does not
-- allow-list it), the indexes are skipped with a warning rather than failing every start: the
-- search gives the same answers without them, reading the run's rows (docs/decisions.md).
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE WARNING 'finwatch: pg_trgm cannot be created (%); substring search runs without its indexes', SQLERRM;
END $$;

-- Declared in schema.prisma (type: Gin, ops: raw("gin_trgm_ops")), so later diffs keep them.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    -- CreateIndex
    CREATE INDEX "ResourceAnalyses_resourceName_trgm_idx" ON "ResourceAnalyses" USING GIN ("resourceName" gin_trgm_ops);
    -- CreateIndex
    CREATE INDEX "ResourceAnalyses_resourceGroup_trgm_idx" ON "ResourceAnalyses" USING GIN ("resourceGroup" gin_trgm_ops);
    -- CreateIndex
    CREATE INDEX "ResourceAnalyses_resourceType_trgm_idx" ON "ResourceAnalyses" USING GIN ("resourceType" gin_trgm_ops);
  END IF;
END $$;
