import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('API documentation', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    host = await startTestHost({
      queueWorker: false,
      settings: { SwaggerUICredentials__username: 'docs', SwaggerUICredentials__password: 'docs-password' },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('serves an OpenAPI 3.1 document per service generated from the route table', async () => {
    const finops = await api.get('/finops/api/swagger/v1/swagger.json');
    expect(finops.status).toBe(200);
    expect(finops.body.openapi).toBe('3.1.0');
    expect(Object.keys(finops.body.paths)).toContain('/finops/api/Version');
    expect(Object.keys(finops.body.paths).every((p: string) => p.startsWith('/finops/api'))).toBe(true);
    expect(Object.keys(finops.body.paths).some((p: string) => p.includes('swagger'))).toBe(false);
    const auth = await api.get('/auth/api/swagger/v1/swagger.json', {
      headers: { authorization: basic('docs', 'docs-password') },
    });
    expect(auth.status).toBe(200);
    expect(Object.keys(auth.body.paths)).toContain('/auth/api/Version');
  });

  it('serves Swagger UI and its assets', async () => {
    const ui = await api.get('/finops/api/swagger');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('SwaggerUIBundle');
    const css = await api.get('/finops/api/swagger/assets/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/text\/css/);
    expect(isProblem(await api.get('/finops/api/swagger/assets/..%2Fpackage.json'), 404)).toBe(true);
  });

  it('keeps the auth documentation behind the basic-auth credentials', async () => {
    const none = await api.get('/auth/api/swagger');
    expect(isProblem(none, 401)).toBe(true);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
    const wrong = await api.get('/auth/api/swagger', { headers: { authorization: basic('docs', 'nope') } });
    expect(wrong.status).toBe(401);
    const right = await api.get('/auth/api/swagger', {
      headers: { authorization: basic('docs', 'docs-password') },
    });
    expect(right.status).toBe(200);
  });

  it('refuses the auth documentation when no credentials are configured', async () => {
    const open = await startTestHost({ queueWorker: false });
    try {
      const res = await apiClient(open.url).get('/auth/api/swagger/v1/swagger.json', {
        headers: { authorization: basic('', '') },
      });
      expect(isProblem(res, 401)).toBe(true);
    } finally {
      await open.close();
    }
  });

  it('hides the documentation outside Development', async () => {
    host.services.config.isDevelopment = false;
    try {
      expect(isProblem(await api.get('/finops/api/swagger/v1/swagger.json'), 404)).toBe(true);
      expect(isProblem(await api.get('/finops/api/swagger'), 404)).toBe(true);
    } finally {
      host.services.config.isDevelopment = true;
    }
  });
});
