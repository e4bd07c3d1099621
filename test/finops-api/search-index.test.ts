// Substring search (Resources/.../search) is served by the pg_trgm trigram indexes on a realistic
// table, on PGlite and PostgreSQL, and still answers where the server refuses the extension.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type PrismaClient } from '../../shared/db/client.js';
import { condition, findResources } from '../../shared/finops/queries/resources.js';
import {
  createPostgresDatabase,
  openMigratedDatabase,
  TEST_DATABASES,
  TEST_PG_URL,
} from '../support/databases.js';

const TYPES = [
  'Microsoft.Compute/virtualMachines',
  'Microsoft.Compute/disks',
  'Microsoft.Network/publicIPAddresses',
  'Microsoft.Network/networkInterfaces',
  'Microsoft.Storage/storageAccounts',
  'Microsoft.Web/sites',
  'Microsoft.Sql/servers/databases',
  'Microsoft.KeyVault/vaults',
];

/** `runs` runs of `resources` resources each (names, groups and types as Azure has them), analysed. */
async function seed(prisma: PrismaClient, runs: number, resources: number) {
  await prisma.$executeRawUnsafe(
    `INSERT INTO "AnalysisRuns" ("subscriptionId","subscriptionName","runDate","totalMonthlyCost","totalResourcesAnalyzed",
       "aiModel","conversationId","reportFilePath","createdAt","periodFrom","periodTo")
     SELECT 'sub-search', 'Search', now()::timestamp - make_interval(days => g), 1, ${resources}, 'm', 'c', '',
            now()::timestamp, now()::date, now()::date
     FROM generate_series(1, ${runs}) g`,
  );
  await prisma.$executeRawUnsafe(
    `INSERT INTO "ResourceAnalyses" ("analysisRunId","resourceType","resourceName","resourceGroup","propertiesJson","tagsJson","flags","recordedAt")
     SELECT r.id, (ARRAY['${TYPES.join("','")}'])[1 + g % ${TYPES.length}],
            (ARRAY['vm','disk','pip','nic','st','app','sqldb','kv'])[1 + g % 8] || '-' ||
              (ARRAY['prod','dev','test'])[1 + g % 3] || '-weu-' || lpad(g::text, 5, '0'),
            'RG-' || (ARRAY['WEB','DATA','SHARED','NETWORK','AKS-NODES'])[1 + g % 5] || '-' || (g % 37),
            props.json, '{"env":"prod","owner":"team-' || (g % 7) || '"}', '', r."runDate"
     FROM "AnalysisRuns" r, generate_series(1, ${resources}) g,
       -- About the size of a virtual machine's properties as Resource Graph returns them.
       (SELECT '{"hardwareProfile":{"vmSize":"Standard_D2s_v3"},"provisioningState":"Succeeded",' ||
               '"storageProfile":' || repeat('{"osDisk":{"caching":"ReadWrite","diskSizeGB":128}}', 12) || '}' AS json) props`,
  );
  // One name with LIKE's special characters, in the last run.
  await prisma.$executeRawUnsafe(
    `INSERT INTO "ResourceAnalyses" ("analysisRunId","resourceType","resourceName","resourceGroup","recordedAt")
     SELECT max(id), 'Microsoft.Web/sites', 'odd\\name_50%', 'RG-WEB-1', now() FROM "AnalysisRuns"`,
  );
  await prisma.$executeRawUnsafe('ANALYZE "ResourceAnalyses"');
  const [run] = await prisma.$queryRaw<Array<{ id: number }>>`SELECT max(id) AS id FROM "AnalysisRuns"`;
  return run!.id;
}

/** The plan PostgreSQL chooses for the search's own WHERE clause, as text. */
async function searchPlan(prisma: PrismaClient, runId: number, term: string) {
  const rows = await prisma.$queryRaw<Array<{ 'QUERY PLAN': unknown }>>`EXPLAIN (FORMAT JSON)
    SELECT id FROM "ResourceAnalyses" WHERE "analysisRunId" = ${runId} ${condition({ kind: 'search', term }, true)}`;
  return JSON.stringify(rows[0]!['QUERY PLAN']);
}

describe.each(TEST_DATABASES)('substring search on %s', (_name, kind) => {
  let prisma: PrismaClient;
  let close: () => Promise<void>;
  let runId: number;

  beforeAll(async () => {
    ({ prisma, close } = await openMigratedDatabase(kind));
    // PostgreSQL: a realistic table (12 runs of 10,000, the bench's run size), for the planner's choice. PGlite: the answers.
    runId = kind === 'postgres' ? await seed(prisma, 12, 10_000) : await seed(prisma, 3, 2_000);
  }, 180_000);
  afterAll(async () => {
    await close?.();
  });

  it.runIf(kind === 'postgres')(
    'reads a selective term through the trigram indexes of name, group and type',
    async () => {
      const plan = await searchPlan(prisma, runId, 'prod-weu-0123');
      expect(plan).toContain('ResourceAnalyses_resourceName_trgm_idx');
      expect(plan).toContain('ResourceAnalyses_resourceGroup_trgm_idx');
      expect(plan).toContain('ResourceAnalyses_resourceType_trgm_idx');
      expect(plan).not.toContain('Seq Scan');
    },
  );

  it('answers what a plain case-insensitive substring test answers', async () => {
    for (const term of ['PROD-weu-0123', 'rg-data-1', 'publicip', 'vm-']) {
      const found = await findResources(prisma, runId, { kind: 'search', term }, 0, 5_000);
      const [plain] = await prisma.$queryRaw<
        Array<{ n: bigint }>
      >`SELECT count(*) AS n FROM "ResourceAnalyses"
        WHERE "analysisRunId" = ${runId} AND (strpos(lower("resourceName"), ${term.toLowerCase()}) > 0
          OR strpos(lower("resourceGroup"), ${term.toLowerCase()}) > 0 OR strpos(lower("resourceType"), ${term.toLowerCase()}) > 0)`;
      expect(found.total, term).toBe(Number(plain!.n));
      expect(found.rows, term).toHaveLength(Number(plain!.n));
    }
  });

  it.each([
    ['odd\\', 1],
    ['_50%', 1],
    ['%', 1],
    ['e_5', 1],
    ['ODD\\NAME', 1],
    ['odd_name', 0],
    ['\\\\', 0],
  ])('takes %s literally (%i match)', async (term, n) => {
    const found = await findResources(prisma, runId, { kind: 'search', term }, 0, 10);
    expect(found.rows.map((r) => r.resourceName)).toEqual(n ? ['odd\\name_50%'] : []);
  });
});

describe.runIf(TEST_PG_URL)('the search migration on a server that refuses pg_trgm', () => {
  let prisma: PrismaClient | undefined;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    // Azure refuses CREATE EXTENSION for an extension missing from azure.extensions; an event
    // trigger refuses it the same way here.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query(`CREATE FUNCTION refuse_extensions() RETURNS event_trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'extension "pg_trgm" is not allow-listed for users'; END $$`);
    await c.query(`CREATE EVENT TRIGGER refuse_extensions ON ddl_command_start
      WHEN TAG IN ('CREATE EXTENSION') EXECUTE FUNCTION refuse_extensions()`);
    await c.end();
    const opened = await openDatabase({ connectionString: db.url, dataDir: 'memory://' });
    prisma = opened.prisma;
    close = async () => {
      await opened.close();
      await db.drop();
    };
    await opened.migrate();
  }, 180_000);
  afterAll(async () => {
    await close?.();
  });

  it('applies every migration without the trigram indexes, and search still answers', async () => {
    const indexes = await prisma!.$queryRaw<Array<{ indexname: string }>>`
      SELECT indexname FROM pg_indexes WHERE tablename = 'ResourceAnalyses' AND indexname LIKE '%trgm%'`;
    expect(indexes).toEqual([]);
    const runId = await seed(prisma!, 2, 500);
    const found = await findResources(prisma!, runId, { kind: 'search', term: 'odd\\name' }, 0, 10);
    expect(found.rows.map((r) => r.resourceName)).toEqual(['odd\\name_50%']);
    expect(found.total).toBe(1);
  });
});
