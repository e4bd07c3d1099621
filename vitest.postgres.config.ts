import { defineConfig } from 'vitest/config';
import base, { GLOBAL_SETUP } from './vitest.config.js';

/**
 * `npm run test:postgres`: the files run a second time with every test host on the PostgreSQL server
 * (FINWATCH_TEST_DB=postgres), after `npm test` ran the whole suite on PGlite.
 *
 * The rule (docs/decisions.md, "The PostgreSQL pass"): a file is here when its tests read or write
 * the app's tables through a host whose database the pass switches: analyses and their writes,
 * the finops queries, users, tokens and reset codes, the end-to-end flow. It is not here when
 * `npm test` already runs it on PostgreSQL (TEST_DATABASES, `database: 'postgres'`, *-postgres
 * files), when it pins PGlite, or when it touches no table or only checks HTTP shape (docs, CORS,
 * access log, mail transports, route matrices, Swagger gate, the browser page, pure units), nor
 * when its time is waiting out a timer over SQL another file here runs (analysis-start-bound: 45 s
 * of back-off and bound, the same job and run writes as analysis-sync and analysis-async). A file
 * whose tests split between the two (`npm run admin` on the PGlite folder beside the admin command
 * on the test host's database) is split in two, the PGlite half left out.
 */
export const POSTGRES_PASS = [
  // The admin command's grant and revoke (transaction, advisory lock) on the server.
  'test/auth/admin-command.test.ts',
  'test/auth/behaviour.test.ts',
  'test/auth/email-reset.test.ts',
  // The auth list queries (raw SQL for a group's distinct push tokens) and their counts.
  'test/auth/list-paging.test.ts',
  'test/auth/reset-requests.test.ts',
  'test/auth/sessions.test.ts',
  'test/e2e/platform-flow.test.ts',
  'test/finops-api/cached-answers.test.ts',
  'test/finops-api/contract-e2e.test.ts',
  'test/finops-api/history-recs-dashboard.test.ts',
  'test/finops-api/kept-pages.test.ts',
  'test/finops-api/resources-costs.test.ts',
  'test/finops-api/streaming.test.ts',
  'test/finops-api/subscription-id-case.test.ts',
  'test/finops-api/subscriptions-runs.test.ts',
  'test/finops-engine/ai-step.test.ts',
  'test/finops-engine/analysis-async.test.ts',
  'test/finops-engine/analysis-sync.test.ts',
  'test/finops-engine/waste-catalogue.test.ts',
  'test/finops-engine/waste-lifecycle.test.ts',
  'test/finops-intel/import-history.test.ts',
  // Concurrency on a pool of connections (PGlite has one): job sweeps, admin writes. (Parallel
  // logins: login-throttle runs its guesses on two instances sharing a PostgreSQL database in npm test.)
  // jsonb (the audit details) refuses an unpaired surrogate on PostgreSQL: refused at the edge.
  'test/hostile/lone-surrogates.test.ts',
  'test/hostile/mobile-key-and-admins.test.ts',
  'test/hostile/resilience-lost-jobs.test.ts',
  // Node state under row locks, alerts and the outbox, cluster prices (raw SQL the app runs on both).
  'test/metrics/alerts.test.ts',
  'test/metrics/prices.test.ts',
  'test/metrics/silence.test.ts',
  'test/kubernetes-cost/metrics-store.test.ts',
  'test/kubernetes-cost/namespace-anomalies.test.ts',
  'test/kubernetes-cost/routes.test.ts',
  // Metrics ingest and reads through the host (the store suite runs on both databases itself).
  'test/metrics/ingest.test.ts',
  'test/metrics/read-routes.test.ts',
];

// None of these mocks a module: they share their worker's modules (isolate: false), as in npm test.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    projects: undefined,
    isolate: false,
    globalSetup: [GLOBAL_SETUP],
    include: POSTGRES_PASS,
  },
});
