import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { HttpResponseInit } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSettingsSchema } from '../../shared/config/auth.js';
import { consoleConfig } from '../../shared/console/config.js';
import { serveConsole } from '../../shared/console/static.js';

const INDEX =
  '<!doctype html><html><body><div id="root"></div><script type="module" src="/console/assets/index-abc123.js"></script></body></html>';
const SCRIPT = 'console.log("the console");'.repeat(20);

function header(r: HttpResponseInit, name: string): string | undefined {
  const h = r.headers as Record<string, string>;
  return Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];
}

function text(r: HttpResponseInit): string {
  return Buffer.from(r.body as Uint8Array).toString('utf8');
}

/** The console's files answered as a browser (and a careless or hostile client) would ask for them. */
describe('console files at /console', () => {
  let dir: string;
  let outside: string;
  const get = (pathname: string, acceptEncoding?: string) =>
    serveConsole({ method: 'GET', pathname, acceptEncoding }, dir);

  beforeAll(() => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'console-'));
    dir = path.join(root, 'console');
    outside = path.join(root, 'secret.txt');
    mkdirSync(path.join(dir, 'assets'), { recursive: true });
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
    writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), SCRIPT);
    writeFileSync(path.join(dir, 'assets', 'index-abc123.js.gz'), gzipSync(SCRIPT));
    writeFileSync(outside, 'not for the web');
  });
  afterAll(() => rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('answers index.html at /console, /console/ and any deep link, never cached, with a CSP without inline script', async () => {
    for (const p of ['/console', '/console/', '/console/waste', '/console/anomalies/12?x=1'.split('?')[0]!]) {
      const r = await get(p);
      expect(r.status, p).toBe(200);
      expect(text(r)).toBe(INDEX);
      expect(header(r, 'content-type')).toBe('text/html; charset=utf-8');
      expect(header(r, 'cache-control')).toBe('no-store');
      const csp = header(r, 'content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(header(r, 'x-frame-options')).toBe('DENY');
    }
  });

  it('serves hashed assets cached for a year, gzip to clients that accept it', async () => {
    const plain = await get('/console/assets/index-abc123.js');
    expect(plain.status).toBe(200);
    expect(text(plain)).toBe(SCRIPT);
    expect(header(plain, 'cache-control')).toBe('public, max-age=31536000, immutable');
    expect(header(plain, 'content-type')).toBe('text/javascript; charset=utf-8');
    expect(header(plain, 'content-encoding')).toBeUndefined();

    const gz = await get('/console/assets/index-abc123.js', 'br, gzip, deflate');
    expect(header(gz, 'content-encoding')).toBe('gzip');
    expect(Number(header(gz, 'content-length'))).toBeLessThan(SCRIPT.length);
    // q=0 means "not gzip".
    const refused = await get('/console/assets/index-abc123.js', 'gzip;q=0');
    expect(header(refused, 'content-encoding')).toBeUndefined();
  });

  it('serves other top-level files revalidated, and 404s a missing asset instead of answering the page', async () => {
    const icon = await get('/console/favicon.svg');
    expect(icon.status).toBe(200);
    expect(header(icon, 'cache-control')).toBe('no-cache');
    const stale = await get('/console/assets/index-old999.js');
    expect(stale.status).toBe(404);
    expect(header(stale, 'content-type')).toContain('application/problem+json');
  });

  it('refuses path traversal, encoded or not, without reading outside the folder', async () => {
    for (const p of [
      '/console/../secret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/assets/%2E%2E/%2E%2E/secret.txt',
      '/console/..%2fsecret.txt',
      '/console/..%5csecret.txt',
      '/console/assets/%00.js',
      '/console/%E0%A4%A',
    ]) {
      const r = await get(p);
      expect(r.status, p).toBe(400);
      expect(text(r)).not.toContain('not for the web');
    }
  });

  it('answers HEAD without a body, and 405 with Allow for other methods', async () => {
    const head = await serveConsole({ method: 'HEAD', pathname: '/console/waste' }, dir);
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
    expect(header(head, 'content-length')).toBe(String(Buffer.byteLength(INDEX)));
    const post = await serveConsole({ method: 'POST', pathname: '/console/' }, dir);
    expect(post.status).toBe(405);
    expect(header(post, 'allow')).toBe('GET, HEAD');
  });

  it('says how to build the console when it is not built', async () => {
    const r = await serveConsole({ method: 'GET', pathname: '/console/' }, path.join(dir, 'nothing-here'));
    expect(r.status).toBe(503);
    expect(text(r)).toContain('npm run build');
  });

  it('offers directory sign-in only when the directory is configured, and lets the page reach it alone', async () => {
    const auth = (settings: Record<string, string>) => authSettingsSchema.parse(settings);
    const none = await serveConsole({ method: 'GET', pathname: '/console/config.json' }, dir);
    expect(none.status).toBe(200);
    expect(header(none, 'cache-control')).toBe('no-store');
    expect(JSON.parse(text(none))).toEqual({ directory: null });
    expect(consoleConfig(auth({ CloudAd__TenantId: 'contoso.onmicrosoft.com' }))).toEqual({
      directory: null,
    });
    expect(header(await get('/console/'), 'content-security-policy')).toContain("connect-src 'self';");

    const settings = {
      CloudAd__TenantId: 'contoso.onmicrosoft.com',
      CloudAd__ClientId: '2c4f6a8b-1d3e-4f5a-8b7c-9d0e1f2a3b4c',
    };
    const config = consoleConfig(auth(settings));
    expect(config).toEqual({
      directory: {
        authority: 'https://login.microsoftonline.com/contoso.onmicrosoft.com',
        clientId: '2c4f6a8b-1d3e-4f5a-8b7c-9d0e1f2a3b4c',
        scopes: ['api://2c4f6a8b-1d3e-4f5a-8b7c-9d0e1f2a3b4c/access_as_user'],
        knownAuthorities: ['login.microsoftonline.com'],
      },
    });
    const served = await serveConsole({ method: 'GET', pathname: '/console/config.json' }, dir, config);
    expect(JSON.parse(text(served))).toEqual(config);
    const page = await serveConsole({ method: 'GET', pathname: '/console/waste' }, dir, config);
    expect(header(page, 'content-security-policy')).toContain(
      "connect-src 'self' https://login.microsoftonline.com;",
    );
    expect(
      consoleConfig(
        auth({
          ...settings,
          CloudAd__Instance: 'https://login.microsoftonline.us',
          Console__DirectoryClientId: 'spa-client',
          Console__DirectoryScopes: 'api://finwatch/access_as_user, offline_access',
        }),
      ).directory,
    ).toEqual({
      authority: 'https://login.microsoftonline.us/contoso.onmicrosoft.com',
      clientId: 'spa-client',
      scopes: ['api://finwatch/access_as_user', 'offline_access'],
      knownAuthorities: ['login.microsoftonline.us'],
    });
    expect(consoleConfig(auth({ ...settings, Console__DirectorySignIn: 'false' }))).toEqual({
      directory: null,
    });
  });
});
