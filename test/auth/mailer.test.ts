import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/index.js';
import { createMailer } from '../../shared/email/mailer.js';
import { createLogger } from '../../shared/observability/logger.js';
import { startTestHost, type TestHost, testSettings } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { PASSWORD, sleep, uniq } from './helpers.js';

interface SendGridCall {
  path: string;
  authorization: string | undefined;
  body: {
    personalizations: { to: { email: string }[] }[];
    from: { email: string; name?: string };
    subject: string;
    content: { type: string; value: string }[];
  };
}

/** A loopback stand-in for the SendGrid v3 API: records POST /v3/mail/send and answers 202. */
async function startSendGrid(): Promise<{
  url: string;
  calls: SendGridCall[];
  failNext: { status?: number };
  server: Server;
}> {
  const calls: SendGridCall[] = [];
  const failNext: { status?: number } = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failNext.status) {
        res.writeHead(failNext.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ message: 'The provided authorization grant is invalid.' }] }));
        failNext.status = undefined;
        return;
      }
      calls.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString()),
      });
      res.writeHead(202);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, failNext, server };
}

const log = createLogger('None');

describe('mail transports', () => {
  let sendgrid: Awaited<ReturnType<typeof startSendGrid>>;
  let host: TestHost;

  beforeAll(async () => {
    sendgrid = await startSendGrid();
    host = await startTestHost({
      queueWorker: false,
      settings: {
        SENDGRID_API_KEY: 'SG.test-key',
        SENDGRID_API_URL: sendgrid.url,
        smtpHost: '127.0.0.1',
        smtpPort: '1',
        smtpFrom: 'alerts@finwatch.example',
      },
    });
  });
  afterAll(async () => {
    await host?.close();
    await new Promise((r) => sendgrid?.server.close(r));
  });

  it('sends through the SendGrid API when SENDGRID_API_KEY is set (welcome email of User/create)', async () => {
    expect(host.services.auth.mailer.kind).toBe('sendgrid');
    const email = `sg-${uniq()}@example.com`;
    const res = await apiClient(host.url).post('/auth/api/User/create', {
      json: { username: `sg-${uniq()}`, userEmail: email, password: PASSWORD, repeatPassword: PASSWORD },
    });
    expect(res.status).toBe(201);
    await host.services.auth.idle();
    const call = sendgrid.calls.find((c) => c.body.personalizations[0]?.to[0]?.email === email);
    expect(call).toBeDefined();
    expect(call!.path).toBe('/v3/mail/send');
    expect(call!.authorization).toBe('Bearer SG.test-key');
    expect(call!.body.from.email).toBe('alerts@finwatch.example');
    expect(call!.body.subject).toBe('finwatch - Account Creation');
    expect(call!.body.content.map((c) => c.type)).toEqual(['text/plain', 'text/html']);
  });

  it('reports a SendGrid refusal to the caller of send()', async () => {
    sendgrid.failNext.status = 401;
    await expect(
      host.services.auth.mailer.send({ to: 'x@example.com', subject: 's', text: 't' }),
    ).rejects.toThrow();
  });

  it('writes .eml files to DATA_DIR/outbox in Development when neither SMTP nor SendGrid is set', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'finwatch-outbox-'));
    try {
      const mailer = createMailer(loadConfig(testSettings({ DATA_DIR: dir })), log);
      expect(mailer.kind).toBe('outbox');
      await mailer.send({ to: 'dev@example.com', subject: 'Hello outbox', text: 'body text' });
      const files = await readdir(path.join(dir, 'outbox'));
      expect(files).toHaveLength(1);
      const eml = await readFile(path.join(dir, 'outbox', files[0]!), 'utf8');
      expect(eml).toMatch(/^To: dev@example.com$/m);
      expect(eml).toMatch(/^Subject: Hello outbox$/m);
      expect(mailer.outbox).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the outbox in memory for an in-memory DATA_DIR, and drops mail in Production without a transport', async () => {
    const dev = createMailer(loadConfig(testSettings()), log);
    await dev.send({ to: 'a@example.com', subject: 's', text: 't' });
    expect(dev.outbox.map((m) => m.to)).toEqual(['a@example.com']);
    const prod = createMailer(
      loadConfig(
        testSettings({
          WEBAPP_ENVIRONMENT: 'Production',
          // The test key is published in the repository, which Production refuses.
          Jwt__Key: `production-${randomBytes(24).toString('hex')}`,
          ConnectionStrings__SqlConnectionString: 'postgresql://u@127.0.0.1:5432/db',
        }),
      ),
      log,
    );
    expect(prod.kind).toBe('none');
    await prod.send({ to: 'a@example.com', subject: 's', text: 't' });
    await sleep(1);
  });
});
