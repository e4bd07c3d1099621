// npm run db:legacy-scripts
// Runs the original's idempotent column scripts (prisma/scripts) on the configured database: for a
// Subscriptions table created by the original before its budget and infra-support columns existed.
// Each script adds its column only when it is missing, so running them again changes nothing.
import { loadConfig } from '../shared/config/index.js';
import { openDatabase } from '../shared/db/client.js';
import { LEGACY_SCRIPTS, runLegacyColumnScripts } from '../shared/db/legacy-scripts.js';

const config = loadConfig();
const db = await openDatabase({
  connectionString: config.platform.ConnectionStrings__SqlConnectionString,
  dataDir: config.platform.DATA_DIR.startsWith('memory://')
    ? 'memory://'
    : `${config.platform.DATA_DIR.replace(/\/$/, '')}/pglite`,
});
try {
  const [table] = await db.prisma.$queryRawUnsafe<Array<{ found: boolean }>>(
    `SELECT to_regclass('"Subscriptions"') IS NOT NULL AS found`,
  );
  if (table?.found) {
    await runLegacyColumnScripts(db.prisma);
    console.log(`ran ${LEGACY_SCRIPTS.join(', ')}`);
  } else {
    console.log('no Subscriptions table in this database: nothing to bring up to date');
  }
} finally {
  await db.close();
}
