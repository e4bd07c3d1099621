import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Azurite, startAzurite } from '../../dev/azurite.js';

const run = promisify(execFile);
const SUB = '5e1eb5b0-1313-4a13-9d13-0000000000e1';
const TENANT = '00000000-0000-4000-8000-00000000e1e1';
const IDENTITY_HEADER = 'finwatch-test-identity-header';
// The Azure simulator's self-signed loopback certificate serves Azurite's HTTPS here too.
const CERT = fileURLToPath(new URL('../../dev/azure-sim/tls/sim-cert.pem', import.meta.url));
const KEY = fileURLToPath(new URL('../../dev/azure-sim/tls/sim-key.pem', import.meta.url));
const CHILD = fileURLToPath(new URL('./mi-blob-child.ts', import.meta.url));

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/**
 * The managed identity endpoint App Service gives a process (IDENTITY_ENDPOINT/IDENTITY_HEADER,
 * api-version 2019-08-01), on loopback: it records each token request and answers an Entra ID
 * shaped access token for `audience` (Azurite checks issuer, audience and lifetime, not the signature).
 */
function identityEndpoint() {
  const requests: Array<{ method: string; url: URL; header: string | undefined }> = [];
  let audience = 'https://storage.azure.com';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const header = req.headers['x-identity-header'] as string | undefined;
    requests.push({ method: req.method ?? '', url, header });
    if (header !== IDENTITY_HEADER) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"wrong header"}');
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const token = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url({
      aud: audience,
      iss: `https://sts.windows.net/${TENANT}/`,
      iat: now - 60,
      nbf: now - 60,
      exp: now + 3600,
      oid: '00000000-0000-4000-8000-0000000000aa',
      tid: TENANT,
    })}.c2lnbmF0dXJl`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        access_token: token,
        expires_on: String(now + 3600),
        resource: url.searchParams.get('resource'),
        token_type: 'Bearer',
        client_id: '00000000-0000-4000-8000-0000000000bb',
      }),
    );
  });
  return {
    requests,
    setAudience: (a: string) => {
      audience = a;
    },
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/msi/token`),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('blob imports with the app managed identity (App Service identity endpoint, Azurite OAuth over HTTPS)', () => {
  let azurite: Azurite;
  const identity = identityEndpoint();
  let endpoint: string;

  /** The import in a process of its own, with the platform's environment set before it starts. */
  async function importInChild(): Promise<Record<string, unknown>> {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_EXTRA_CA_CERTS: CERT,
      IDENTITY_ENDPOINT: endpoint,
      IDENTITY_HEADER,
      MI_CHILD_CONNECTION: azurite.connectionString,
      MI_CHILD_SUBSCRIPTION: SUB,
    };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD], { env, timeout: 60_000 });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  }

  beforeAll(async () => {
    endpoint = await identity.listen();
    azurite = await startAzurite({ service: 'blob', tls: { cert: CERT, key: KEY }, oauth: true });
  }, 60_000);
  afterAll(async () => {
    await azurite?.stop();
    await identity.close();
  });

  it('reads the export run with a token from the identity endpoint, which Azurite accepts', async () => {
    const result = await importInChild();
    expect(result).toEqual({ ok: true, files: 2, rows: 15, from: '2026-09-01', to: '2026-09-15' });
    // The token request has App Service's shape: the storage resource, the API version, the secret header.
    expect(identity.requests.length).toBeGreaterThan(0);
    for (const r of identity.requests) {
      expect(r.method).toBe('GET');
      expect(r.url.pathname).toBe('/msi/token');
      expect(r.url.searchParams.get('resource')).toBe('https://storage.azure.com');
      expect(r.url.searchParams.get('api-version')).toBe('2019-08-01');
      expect(r.header).toBe(IDENTITY_HEADER);
    }
  });

  it('fails naming the storage answer (403, as Azure Storage refuses a token) when the token is for another audience', async () => {
    identity.setAudience('https://management.azure.com');
    const result = await importInChild();
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      /^Cannot read https:\/\/127\.0\.0\.1:\d+\/devstoreaccount1\/mi-exports: the storage account answered 403\.$/,
    );
  });
});
