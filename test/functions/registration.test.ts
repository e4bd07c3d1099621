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

  it('registers every route of the table with its method and template, the queue trigger and the weekly timer', async () => {
    vi.stubEnv('WEBAPP_ENVIRONMENT', 'Development');
    vi.stubEnv('WeeklyAnalysis__Enabled', 'true');
    vi.stubEnv('WeeklyAnalysis__DayOfWeekUtc', 'Wednesday');
    vi.stubEnv('WeeklyAnalysis__HourUtc', '3');
    vi.stubEnv('WeeklyAnalysis__MinuteUtc', '45');
    await import('../../functions/index.js');

    const http = recorded.filter((r) => r.kind === 'http');
    for (const route of routes) {
      const reg = http.find((r) => r.name === route.name);
      expect(reg, route.name).toBeDefined();
      expect(reg!.options.methods).toEqual([route.method]);
      expect(reg!.options.route).toBe(fullPath(route));
      expect(reg!.options.authLevel).toBe('anonymous');
    }
    // Function names must be unique for the host to accept them.
    expect(new Set(http.map((r) => r.name)).size).toBe(http.length);
    expect(http.map((r) => r.options.route)).toEqual(
      expect.arrayContaining(['auth/api/{*rest}', 'finops/api/{*rest}']),
    );

    const queue = recorded.find((r) => r.kind === 'storageQueue');
    expect(queue?.options).toMatchObject({ queueName: 'analysis-jobs', connection: 'AzureWebJobsStorage' });
    const timer = recorded.find((r) => r.kind === 'timer' && r.name === 'weekly-analysis');
    expect(timer?.options.schedule).toBe('0 45 3 * * 3');
    // Abandoned jobs and lost queue messages are looked for every minute, whatever runs.
    const sweeper = recorded.find((r) => r.kind === 'timer' && r.name === 'analysis-job-sweeper');
    expect(sweeper?.options.schedule).toBe('0 */1 * * * *');
    const outbox = recorded.find((r) => r.kind === 'timer' && r.name === 'notification-outbox');
    expect(outbox?.options.schedule).toBe('*/15 * * * * *');
  });
});
