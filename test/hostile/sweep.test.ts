import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../shared/app/routes.js';
import { buildOpenApiDocument } from '../../shared/http/openapi.js';
import { seedUser, tokenOf } from '../auth/helpers.js';
import { startTestHost, type TestHost } from '../support/host.js';

interface Parameter {
  name: string;
  in: 'path' | 'query';
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, PropertySchema> } }> };
}
interface PropertySchema {
  type?: string | string[];
  format?: string;
}
interface Probe {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  token?: string;
}

const GUID = '0b5c6a1e-1111-4a2b-8c3d-0000000000ff';
/** Values that are wrong for any parameter: NUL, huge, negative, out of range, not a number, long. */
const BAD_PARAMS = [
  '%00',
  'a%00b',
  '-1',
  '-2147483649',
  '2147483648',
  '99999999999999999999999',
  '1e309',
  'NaN',
  'x'.repeat(2000),
  '%ZZ',
  '..%2F..',
];
/** Bodies that are wrong for any route: none, not JSON, wrong shapes. */
const BAD_BODIES = [
  '',
  '{',
  'not json',
  'null',
  '[]',
  '"x"',
  '-1',
  '1e400',
  '{"a":"\\u0000"}',
  `"${'y'.repeat(20_000)}"`,
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
];
/** Per property: wrong types, NUL, huge and negative numbers, long strings. */
const BAD_VALUES: unknown[] = [
  null,
  true,
  {},
  [],
  -1,
  -2147483649,
  2147483648,
  1e308,
  'a\u0000b',
  'z'.repeat(10_000),
  '',
  '2024-99-99',
  // An unpaired UTF-16 surrogate: JSON.stringify writes it as the escape "\ud800".
  'lone \ud800 surrogate',
];

/** A plausible value for a property, so that one bad property at a time reaches the handler. */
function plausible(name: string, schema: PropertySchema): unknown {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return {};
  const n = name.toLowerCase();
  if (schema.format === 'email' || n.includes('email')) return 'someone@example.com';
  if (n.endsWith('id')) return GUID;
  if (n.includes('password')) return 'password-12345';
  if (n.includes('timestamp') || n.includes('date')) return '2024-01-01T00:00:00Z';
  return 'value';
}

function probesOf(doc: { paths: Record<string, Record<string, Operation>> }, tokens: string[]): Probe[] {
  const probes: Probe[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      // Deleting the sweeping administrator would turn the rest of the sweep into 401s.
      if (method === 'delete' && template === '/auth/api/User/delete') continue;
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
      const queryParams = params.filter((p) => p.in === 'query').map((p) => p.name);
      const fill = (bad?: { name: string; value: string }) =>
        template.replace(/\{(\w+)\}/g, (_, name: string) =>
          bad?.name === name ? bad.value : name.toLowerCase().includes('id') ? GUID : 'someone@example.com',
        );
      const add = (p: Omit<Probe, 'method' | 'token'>) => {
        for (const token of tokens) probes.push({ method: method.toUpperCase(), token, ...p });
      };
      for (const name of pathParams) for (const value of BAD_PARAMS) add({ path: fill({ name, value }) });
      for (const name of queryParams)
        for (const value of BAD_PARAMS) add({ path: `${fill()}?${name}=${value}` });
      if (method === 'get' || method === 'delete') {
        // fetch cannot send a GET body; a DELETE may carry one it does not expect.
        if (method === 'delete') add({ path: fill(), body: '{"unexpected":true}' });
        else add({ path: fill() });
        continue;
      }
      for (const body of BAD_BODIES) add({ path: fill(), body });
      add({ path: fill(), body: '{"a":1}', contentType: 'text/plain' });
      add({ path: fill(), body: '<a/>', contentType: 'application/xml' });
      const properties = op.requestBody?.content['application/json']?.schema?.properties ?? {};
      const base = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, plausible(k, v)]));
      for (const property of Object.keys(properties)) {
        for (const value of BAD_VALUES)
          add({ path: fill(), body: JSON.stringify({ ...base, [property]: value }) });
      }
    }
  }
  return probes;
}

// Every route of both OpenAPI documents with malformed input answers 4xx,
// never 5xx (the hostile sweep found 47 × 5xx on 29 routes).
describe('malformed-input sweep of every documented route', () => {
  let host: TestHost;
  let tokens: string[];
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    const admin = await seedUser(host, { isAdmin: true });
    tokens = [tokenOf(host, admin), ''];
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers every malformed request to every service without a 5xx', { timeout: 240_000 }, async () => {
    const probes = [
      ...probesOf(buildOpenApiDocument('auth', routes) as never, tokens),
      ...probesOf(buildOpenApiDocument('finops', routes) as never, tokens),
      ...probesOf(buildOpenApiDocument('metrics', routes) as never, tokens),
      // Signing out everywhere with the sweep's own token would turn the rest of the sweep into 401s.
    ].filter((p) => !(p.token && /\/User\/signOutEverywhere\b/i.test(p.path)));
    expect(probes.length).toBeGreaterThan(2000);
    // Pages a person opens (the password reset page) answer their errors as HTML pages too.
    const htmlPages = new Set<string>();
    for (const service of ['auth', 'finops', 'metrics'] as const) {
      const doc = buildOpenApiDocument(service, routes) as unknown as {
        paths: Record<string, Record<string, { responses?: Record<string, { content?: object }> }>>;
      };
      for (const [path, item] of Object.entries(doc.paths))
        for (const [method, op] of Object.entries(item))
          if (op.responses?.['200']?.content && 'text/html' in op.responses['200'].content)
            htmlPages.add(`${method.toUpperCase()} ${path}`);
    }
    expect(htmlPages.size).toBeGreaterThan(0);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < probes.length) {
        const p = probes[next++]!;
        const headers: Record<string, string> = {};
        if (p.token) headers.authorization = `Bearer ${p.token}`;
        if (p.body !== undefined) headers['content-type'] = p.contentType ?? 'application/json';
        const res = await fetch(`${host.url}${p.path}`, {
          method: p.method,
          headers,
          body: p.body || undefined,
        });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500)
          failures.push(
            `${res.status} ${p.method} ${p.path.slice(0, 120)} ${(p.body ?? '').slice(0, 80)} → ${text.slice(0, 200)}`,
          );
        else if (
          res.status >= 400 &&
          !/application\/problem\+json/.test(res.headers.get('content-type') ?? '') &&
          !(
            htmlPages.has(`${p.method} ${p.path.split('?')[0]}`) &&
            /^text\/html/.test(res.headers.get('content-type') ?? '')
          )
        ) {
          failures.push(`not problem+json: ${res.status} ${p.method} ${p.path.slice(0, 120)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    expect(failures).toEqual([]);
    // Sanity: the sweep reached validation (400), authentication (401) and content negotiation (415).
    expect(statuses.get(400)).toBeGreaterThan(500);
    expect(statuses.get(401)).toBeGreaterThan(500);
    expect(statuses.get(401)).toBeLessThan(probes.length / 2 + 100);
    expect(statuses.get(415)).toBeGreaterThan(10);
  });
});
