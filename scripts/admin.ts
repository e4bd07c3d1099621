// npm run admin -- grant <email> [--reset-credentials] | revoke <email> | list
// Administrator rights set directly in the database the app uses: the PostgreSQL server of
// ConnectionStrings__SqlConnectionString when it is set (environment or local.settings.json), else
// the local PGlite under DATA_DIR (stop `npm start` first: PGlite serves one process at a time).
// On Azure: run it from the deployed app's console, or from any machine that reaches the database,
// with the app's connection string (docs/deploy.md, "Administrators").
import { ADMIN_COMMAND_USAGE, runAdminCommand } from '../shared/auth/admin-command.js';
import { readSettings } from '../shared/config/index.js';
import { isPostgresUrl, openDatabase, pgliteDataDir } from '../shared/db/client.js';

const argv = process.argv.slice(2);
if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
  console.log(ADMIN_COMMAND_USAGE);
  process.exit(argv.length === 0 ? 2 : 0);
}
const settings = readSettings();
const connectionString = settings.ConnectionStrings__SqlConnectionString?.trim() || undefined;
if (connectionString && !isPostgresUrl(connectionString)) {
  console.error('ConnectionStrings__SqlConnectionString is not a postgres:// or postgresql:// URL');
  process.exit(2);
}
const dataDir = pgliteDataDir(settings.DATA_DIR?.trim() || './data');
console.error(
  connectionString
    ? 'database: PostgreSQL (ConnectionStrings__SqlConnectionString)'
    : `database: PGlite in ${dataDir}`,
);
const db = await openDatabase({ connectionString, dataDir });
try {
  await db.migrate();
  const result = await runAdminCommand(db.prisma, argv);
  for (const line of result.lines) (result.code === 0 ? console.log : console.error)(line);
  process.exitCode = result.code;
} finally {
  await db.prisma.$disconnect();
  await db.close();
}
