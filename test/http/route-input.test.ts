import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routes } from '../../shared/app/routes.js';
import { intText, subscriptionId } from '../../shared/http/fields.js';
import { queryObject, validateInput } from '../../shared/http/input.js';
import { buildOpenApiDocument } from '../../shared/http/openapi.js';
import { pagingQuery } from '../../shared/http/paging.js';
import { HttpError } from '../../shared/http/problem.js';
import { seedUser, tokenOf } from '../auth/helpers.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';

const SUB = '4B1D3C8E-2F7A-4C1B-9E3D-0A5B6C7D8E9F';

describe('route input: query values', () => {
  const schema = pagingQuery.extend({
    tags: z.array(z.string()).optional(),
    subscriptionId: subscriptionId(),
  });

  it('matches names case-insensitively, keeps the first value, and collects lists', () => {
    const q = new URLSearchParams('SubscriptionID=a&subscriptionId=b&tags=x&TAGS=y&page=2&unknown=1');
    // The exact-case spelling wins over another case, whatever the order.
    expect(queryObject(schema, q)).toEqual({ subscriptionId: 'b', tags: ['x', 'y'], page: '2' });
    expect(queryObject(schema, new URLSearchParams('page=1&page=9'))).toEqual({ page: '1' });
  });

  it('parses strings into the schema types, lower-casing a subscription id', async () => {
    const out = await validateInput(
      { query: schema },
      {},
      { query: new URLSearchParams(`subscriptionId=${SUB}&pageSize=50`) },
      async () => undefined,
    );
    expect(out.query).toEqual({ subscriptionId: SUB.toLowerCase(), pageSize: 50 });
  });

  it('answers 400 naming the field in the one message style', async () => {
    const attempt = validateInput(
      { params: z.object({ id: intText(1, 10) }) },
      { id: '11' },
      { query: new URLSearchParams() },
      async () => undefined,
    );
    await expect(attempt).rejects.toBeInstanceOf(HttpError);
    await expect(attempt).rejects.toMatchObject({ status: 400, detail: 'id must be at most 10' });
  });
});

describe('route input through the host (GET /finops/api/Anomalies)', () => {
  let host: TestHost;
  let token: string;
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    token = tokenOf(host, await seedUser(host, { isAdmin: true }));
  });
  afterAll(async () => {
    await host?.close();
  });

  it.each([
    ['subscriptionId=nope', 'subscriptionId must be a GUID'],
    ['from=2026-02-30', 'from is not a day of the calendar'],
    ['to=yesterday', 'to must be a date in the form YYYY-MM-DD'],
    ['pageSize=0', 'pageSize must be at least 1'],
    ['status=closed', 'status must be one of "open", "acknowledged"'],
  ])('%s is a 400: %s', async (query, message) => {
    const res = await apiClient(host.url).get(`/finops/api/Anomalies?${query}`, { token });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((res.body as { message: string }).message).toBe(message);
  });

  it('an unauthenticated caller gets 401 before any validation', async () => {
    const res = await apiClient(host.url).get('/finops/api/Anomalies?subscriptionId=nope');
    expect(res.status).toBe(401);
  });

  it('accepts the id in any case and names of any case', async () => {
    const res = await apiClient(host.url).get(`/finops/api/Anomalies?SUBSCRIPTIONID=${SUB}&PageSize=5`, {
      token,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-page-size')).toBe('5');
  });
});

describe('the OpenAPI document shows the schemas that validate', () => {
  it("documents the Anomalies query parameters from the route's input", () => {
    const doc = buildOpenApiDocument('finops', routes) as unknown as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema: unknown }[] }>>;
    };
    const params = doc.paths['/finops/api/Anomalies']!.get!.parameters ?? [];
    expect(
      params
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['from', 'page', 'pageSize', 'status', 'subscriptionId', 'to'].sort());
    const status = params.find((p) => p.name === 'status')!.schema as { enum?: string[] };
    expect(status.enum).toEqual(['open', 'acknowledged']);
    const sub = params.find((p) => p.name === 'subscriptionId')!.schema as { pattern?: string };
    expect(sub.pattern).toBeDefined();
  });
});
