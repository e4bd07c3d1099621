import { afterAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../shared/app/routes.js';
import { fullPath } from '../../shared/http/route.js';

interface Recorded {
  kind: 'http' | 'storageQueue' | 'timer';
  name: string;
  options: Record<string, unknown>;
}

const recorded = vi.hoisted(() => [] as Recorded[]);

vi.mock('@azure/functions', async (importOriginal) => {
  const real = (await importOriginal()) as { default: Record<string, unknown> };
  const app = {
    setup: () => {},
    http: (name: string, options: Record<string, unknown>) => recorded.push({ kind: 'http', name, options }),
    storageQueue: (name: string, options: Record<string, unknown>) =>
      recorded.push({ kind: 'storageQueue', name, options }),
    timer: (name: string, options: Record<string, unknown>) =>
      recorded.push({ kind: 'timer', name, options }),
  };
  return { ...real, default: { ...real.default, app }, app };
});

describe('Azure Functions registration', () => {
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it('registers one catch-all per service, the queue trigger and the weekly timer', async () => {
    vi.stubEnv('WEBAPP_ENVIRONMENT', 'Development');
    vi.stubEnv('WeeklyAnalysis__Enabled', 'true');
    vi.stubEnv('WeeklyAnalysis__DayOfWeekUtc', 'Wednesday');
    vi.stubEnv('WeeklyAnalysis__HourUtc', '3');
    vi.stubEnv('WeeklyAnalysis__MinuteUtc', '45');
    await import('../../functions/index.js');

    const http = recorded.filter((r) => r.kind === 'http');
    // One catch-all per service: the host's name-ordered, first-match routing cannot pick a
    // wrong route when no two templates overlap; the route table decides inside.
    // The console's files are a third catch-all of their own (GET and HEAD, no route table).
    expect(http.map((r) => [r.name, r.options.route, r.options.authLevel])).toEqual([
      ['auth-api', 'auth/api/{*path}', 'anonymous'],
      ['finops-api', 'finops/api/{*path}', 'anonymous'],
      ['metrics-api', 'metrics/api/{*path}', 'anonymous'],
      ['console', 'console/{*path}', 'anonymous'],
    ]);
    expect(http[3]!.options.methods).toEqual(['GET', 'HEAD']);
    for (const r of http.slice(0, 3)) {
      expect(r.options.methods).toEqual(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
    }
    // Every route of the table is under one of the two templates.
    expect(routes.filter((r) => !/^(auth|finops|metrics)\/api\//.test(`${fullPath(r)}/`))).toEqual([]);

    const queue = recorded.find((r) => r.kind === 'storageQueue');
    expect(queue?.options).toMatchObject({ queueName: 'analysis-jobs', connection: 'AzureWebJobsStorage' });
    const timer = recorded.find((r) => r.kind === 'timer' && r.name === 'weekly-analysis');
    expect(timer?.options.schedule).toBe('0 45 3 * * 3');
    // Abandoned jobs and lost queue messages are looked for every minute, whatever runs.
    const sweeper = recorded.find((r) => r.kind === 'timer' && r.name === 'analysis-job-sweeper');
    expect(sweeper?.options.schedule).toBe('0 */1 * * * *');
    // Metrics partitions are made ahead and dropped past retention every hour.
    const housekeeping = recorded.find((r) => r.kind === 'timer' && r.name === 'metrics-housekeeping');
    expect(housekeeping?.options.schedule).toBe('0 7 * * * *');
    const outbox = recorded.find((r) => r.kind === 'timer' && r.name === 'notification-outbox');
    expect(outbox?.options.schedule).toBe('*/15 * * * * *');
    // Silent clusters and nodes are looked for every minute on every instance.
    const silence = recorded.find((r) => r.kind === 'timer' && r.name === 'metrics-silence');
    expect(silence?.options).toMatchObject({ schedule: '30 * * * * *', runOnStartup: false });
  });

  it('registers no silence timer when Metrics__SilenceAfterMinutes is 0', async () => {
    vi.resetModules();
    recorded.length = 0;
    vi.stubEnv('Metrics__SilenceAfterMinutes', '0');
    await import('../../functions/index.js');
    expect(recorded.filter((r) => r.kind === 'timer' && r.name === 'metrics-silence')).toEqual([]);
    vi.stubEnv('Metrics__SilenceAfterMinutes', '5');
  });

  it('registers the export import timer on CostExports__Schedule when an export container is set', async () => {
    vi.resetModules();
    recorded.length = 0;
    vi.stubEnv('CostExports__ContainerUrl', 'https://exports.blob.core.windows.net/cost-exports');
    vi.stubEnv('CostExports__Schedule', '0 10 */3 * * *');
    await import('../../functions/index.js');
    const timer = recorded.find((r) => r.kind === 'timer' && r.name === 'cost-export-import');
    expect(timer?.options).toMatchObject({ schedule: '0 10 */3 * * *', runOnStartup: false });
  });
});
