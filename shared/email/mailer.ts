import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MailService } from '@sendgrid/mail';
import nodemailer from 'nodemailer';
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../observability/logger.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export type MailTransportKind = 'sendgrid' | 'smtp' | 'outbox' | 'none';

export interface Mailer {
  readonly kind: MailTransportKind;
  /** Sends one message; throws when the transport refuses it. */
  send(message: MailMessage): Promise<void>;
  /** In-memory outbox (Development with DATA_DIR=memory://): what would have been sent. */
  readonly outbox: (MailMessage & { from: string; at: Date })[];
  close(): Promise<void>;
}

const DEFAULT_FROM = 'finwatch <no-reply@finwatch.local>';

/**
 * The mail transport, chosen from the settings: the SendGrid API when SENDGRID_API_KEY is set,
 * SMTP when smtpHost is set, else (Development only) an outbox folder under DATA_DIR.
 */
export function createMailer(config: AppConfig, log: Logger): Mailer {
  const s = config.auth;
  const from = s.smtpFrom ?? DEFAULT_FROM;
  const outbox: Mailer['outbox'] = [];

  if (s.SENDGRID_API_KEY) {
    // One MailService per module (the package's default export is a process-wide singleton).
    const service = new MailService();
    service.setApiKey(s.SENDGRID_API_KEY);
    if (s.SENDGRID_API_URL) {
      (
        service as unknown as { client: { setDefaultRequest(k: string, v: string): void } }
      ).client.setDefaultRequest('baseUrl', s.SENDGRID_API_URL.replace(/\/+$/, ''));
    }
    service.setTimeout(15_000);
    return {
      kind: 'sendgrid',
      outbox,
      async send(m) {
        await service.send({
          to: m.to,
          from,
          subject: m.subject,
          text: m.text,
          ...(m.html ? { html: m.html } : {}),
        });
      },
      async close() {},
    };
  }

  if (s.smtpHost) {
    const implicitTls = s.enableSsl && s.smtpPort === 465;
    const transport = nodemailer.createTransport({
      host: s.smtpHost,
      port: s.smtpPort,
      // enableSsl as .NET's SmtpClient: implicit TLS on 465, STARTTLS required elsewhere.
      secure: implicitTls,
      requireTLS: s.enableSsl && !implicitTls,
      ignoreTLS: !s.enableSsl,
      ...(s.smtpUsername ? { auth: { user: s.smtpUsername, pass: s.smtpPassword ?? '' } } : {}),
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 30_000,
    });
    return {
      kind: 'smtp',
      outbox,
      async send(m) {
        await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html });
      },
      async close() {
        transport.close();
      },
    };
  }

  if (config.isDevelopment) {
    const dataDir = config.platform.DATA_DIR;
    const inMemory = dataDir.startsWith('memory://');
    const dir = path.join(dataDir, 'outbox');
    const writer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    return {
      kind: 'outbox',
      outbox,
      async send(m) {
        outbox.push({ ...m, from, at: new Date() });
        if (inMemory) return;
        const info = await writer.sendMail({
          from,
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
        });
        await mkdir(dir, { recursive: true });
        const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.eml`;
        await writeFile(path.join(dir, name), info.message as Buffer);
        log.info({ file: path.join(dir, name), to: m.to, subject: m.subject }, 'email written to the outbox');
      },
      async close() {},
    };
  }

  return {
    kind: 'none',
    outbox,
    async send(m) {
      log.warn(
        { subject: m.subject },
        'no email transport configured (smtpHost or SENDGRID_API_KEY); email dropped',
      );
    },
    async close() {},
  };
}
