import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_ENTRY, buildFunctions } from '../../scripts/build.js';
import { REPO_ROOT, runStub, type StubResult } from './stub.js';

// npm run build makes the repository a Functions project: the host loads package.json's `main`.
describe('npm run build', () => {
  let main: string;
  let loaded: StubResult;

  beforeAll(async () => {
    main = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { main: string }).main;
    await buildFunctions();
    loaded = await runStub(path.join(REPO_ROOT, main), {
      requests: [
        { function: 'auth-api', url: 'http://localhost/auth/api/Version', params: { path: 'Version' } },
        {
          function: 'finops-api',
          url: 'http://localhost/finops/api/Subscriptions',
          params: { path: 'Subscriptions' },
        },
      ],
    });
  }, 120_000);

  it('writes the entry package.json names as main', () => {
    expect(main).toBe(BUILD_ENTRY);
    expect(existsSync(path.join(REPO_ROOT, main))).toBe(true);
  });

  it('registers the HTTP functions, the queue trigger and the timers when the Functions worker loads it', () => {
    expect(loaded.importError).toBeUndefined();
    expect(loaded.programmingModel?.name).toBe('@azure/functions');
    expect(loaded.functions.map((f) => f.name).sort()).toEqual(
      [
        'analysis-job-sweeper',
        'analysis-queue',
        'auth-api',
        'console',
        'finops-api',
        'metrics-api',
        'metrics-housekeeping',
        'metrics-silence',
        'notification-outbox',
        'weekly-analysis',
      ].sort(),
    );
  });

  it('answers from the built entry, with the database behind it (401 from the token check)', () => {
    const [version, subscriptions] = loaded.responses;
    expect(version).toMatchObject({ status: 200 });
    expect(subscriptions).toMatchObject({ status: 401 });
  });
});
