import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type LocalHost, type LocalHostOptions, startLocalHost } from '../../dev/host.js';
import { type AppConfig, loadConfig, type Settings } from '../../shared/config/index.js';
import { createLogger } from '../../shared/observability/logger.js';
import { createPostgresDatabase, USE_POSTGRES_EVERYWHERE } from './databases.js';
import { migratedPgliteTemplate } from './pglite-template.js';

export const TEST_JWT_KEY = 'test-signing-key-0123456789-0123456789-abcdef';

export interface TestHostOptions extends Partial<Omit<LocalHostOptions, 'config'>> {
  settings?: Settings;
  /** pglite (default) or postgres (a fresh database on FINWATCH_TEST_PG_URL). */
  database?: 'pglite' | 'postgres';
  /**
   * An in-memory PGlite that runs initdb and every migration, as a user's first start does,
   * instead of starting from the run's migrated copy (test/support/pglite-template.ts).
   */
  freshDatabase?: boolean;
}

export interface TestHost extends LocalHost {
  config: AppConfig;
  settings: Settings;
}

/** Settings every test host starts from: Development, in-memory PGlite, Azurite, no timer (tests that need one ask for it). */
export function testSettings(overrides: Settings = {}): Settings {
  return {
    WEBAPP_ENVIRONMENT: 'Development',
    DATA_DIR: 'memory://',
    AzureWebJobsStorage: inject('azuriteConnectionString'),
    AnalysisQueue__Name: `jobs-${randomBytes(5).toString('hex')}`,
    Jwt__Key: TEST_JWT_KEY,
    Jwt__Issuers: 'finwatch-test,other-issuer',
    Jwt__Audiences: 'finwatch-test,other-audience',
    WeeklyAnalysis__Enabled: 'false',
    CostQuery__PaceScale: '0',
    // No test reaches Azure: price tests point this at the simulator.
    Metrics__AzurePricesBaseUrl: 'off',
    Logging__LogLevel__Default: process.env.FINWATCH_TEST_LOG ?? 'None',
    ...overrides,
  };
}

/** A local host on a free port with its own database and queue; close() tears all of it down. */
export async function startTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const settings = testSettings(options.settings);
  let drop: (() => Promise<void>) | undefined;
  const database = options.database ?? (USE_POSTGRES_EVERYWHERE ? 'postgres' : 'pglite');
  if (database === 'postgres' && !settings.ConnectionStrings__SqlConnectionString) {
    const db = await createPostgresDatabase();
    settings.ConnectionStrings__SqlConnectionString = db.url;
    drop = db.drop;
  }
  const config = loadConfig(settings);
  const { settings: _s, database: _d, freshDatabase, ...rest } = options;
  const onTemplate =
    database === 'pglite' &&
    !freshDatabase &&
    !settings.ConnectionStrings__SqlConnectionString &&
    config.platform.DATA_DIR.startsWith('memory://');
  const host = await startLocalHost({
    config,
    weeklyTimer: false,
    exportTimer: false,
    ...rest,
    servicesOptions: {
      log: createLogger(settings.Logging__LogLevel__Default),
      ...(onTemplate ? { initialDataDir: await migratedPgliteTemplate() } : {}),
      ...rest.servicesOptions,
    },
  });
  return {
    ...host,
    config,
    settings,
    async close() {
      await host.close();
      await drop?.();
    },
  };
}

/**
 * Options of a second instance of the app beside `first`: its database and queue, and no
 * migrations (the first host applied them), over the given options.
 */
export function sharingWith(first: TestHost, options: TestHostOptions = {}): TestHostOptions {
  return {
    ...options,
    settings: {
      ...options.settings,
      ConnectionStrings__SqlConnectionString: first.settings.ConnectionStrings__SqlConnectionString!,
      AnalysisQueue__Name: first.settings.AnalysisQueue__Name!,
    },
    servicesOptions: { ...options.servicesOptions, skipMigrations: true },
  };
}
