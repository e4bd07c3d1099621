import { createHash, randomBytes } from 'node:crypto';
import type { HttpRequest } from '@azure/functions';
import type { AppServices } from '../app/services.js';
import { type AuditActor, type AuditEntry, withAudit } from '../audit/record.js';
import type { AppConfig } from '../config/index.js';
import type { Prisma } from '../db/generated/client.js';
import { clientAddressOf } from '../http/client.js';
import { escapeHtml } from '../http/html.js';
import { HttpError } from '../http/problem.js';
import { normalizeEmail, type UserRow } from './users.js';

export const RESET_CODE_TTL_MS = 30 * 60_000;
const MAX_LIVE_RESET_CODES = 3;
const RATE_WINDOW_MS = 60 * 60_000;
/** Where the auth service serves its own reset page. */
export const RESET_PAGE_PATH = '/auth/api/ResetPassword';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Writes a new password hash in a transaction: older tokens stop working, sign-in failures reset. */
async function writePassword(tx: Prisma.TransactionClient, user: UserRow, passwordHash: string) {
  const updated = await tx.user.update({
    where: { id: user.id },
    data: { passwordHash, credentialsChangedAt: new Date() },
  });
  await tx.loginFailure.deleteMany({
    where: { account: { in: [user.email, user.username.toLowerCase()] } },
  });
  return updated;
}

/** Changes a user's password and records who did it, in one transaction. */
export async function changePassword(
  services: AppServices,
  user: UserRow,
  newPassword: string,
  audit: { actor: AuditActor; request?: HttpRequest },
): Promise<UserRow> {
  const passwordHash = await services.auth.passwords.hash(newPassword);
  const updated = await withAudit(
    services.prisma,
    (tx) => writePassword(tx, user, passwordHash),
    () => ({ ...audit, action: 'password.changed', target: { type: 'user', id: user.id } }),
  );
  services.auth.users.forget(user.id, updated.email);
  return updated;
}

/** The user whose live (unused, unexpired) reset code this is, or null. Spends nothing. */
export async function liveResetCode(
  services: AppServices,
  email: string,
  code: string,
): Promise<{ user: UserRow; codeId: number } | null> {
  const user = await services.auth.users.byEmail(email);
  if (!user || !code) return null;
  const row = await services.prisma.passwordResetCode.findFirst({
    where: { userId: user.id, codeHash: sha256(code), usedAt: null, expiresAt: { gt: new Date() } },
    select: { id: true },
  });
  return row ? { user, codeId: row.id } : null;
}

/**
 * Spends a reset code and sets the new password, with its audit record, in one transaction; every
 * other live code of the account is spent too. 'invalid' when the code is unknown, expired or
 * spent (of two concurrent confirmations only one wins).
 */
export async function confirmReset(
  services: AppServices,
  input: { email: string; code: string; newPassword: string },
  request?: HttpRequest,
): Promise<'ok' | 'invalid'> {
  const live = await liveResetCode(services, input.email, input.code);
  if (!live) return 'invalid';
  const { user } = live;
  const passwordHash = await services.auth.passwords.hash(input.newPassword);
  const now = new Date();
  const updated = await withAudit(
    services.prisma,
    async (tx) => {
      const burnt = await tx.passwordResetCode.updateMany({
        where: { id: live.codeId, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      if (burnt.count !== 1) return null;
      await tx.passwordResetCode.updateMany({
        where: { userId: user.id, usedAt: null },
        data: { usedAt: now },
      });
      return writePassword(tx, user, passwordHash);
    },
    // A code another confirmation spent first changes nothing, so nothing is recorded.
    (u) =>
      u
        ? {
            actor: { userId: user.id, email: user.email },
            action: 'password.reset',
            target: { type: 'user', id: user.id },
            request,
          }
        : undefined,
  );
  if (!updated) return 'invalid';
  services.auth.users.forget(user.id, updated.email);
  return 'ok';
}

/**
 * The link of a reset email: PasswordReset__LinkUrl, else the own page under PUBLIC_BASE_URL, else on
 * WEBSITE_HOSTNAME, else (in Development only) on the address the request came to. Never the Host header in Production: a
 * forged Host would send the code to someone else's site. Undefined: the email carries the code only.
 */
export function resetLink(
  config: AppConfig,
  requestUrl: string,
  email: string,
  code: string,
): string | undefined {
  let base = config.auth.PasswordReset__LinkUrl;
  if (!base && config.platform.PUBLIC_BASE_URL)
    base = `${config.platform.PUBLIC_BASE_URL.replace(/\/+$/, '')}${RESET_PAGE_PATH}`;
  if (!base && config.auth.WEBSITE_HOSTNAME)
    base = `https://${config.auth.WEBSITE_HOSTNAME}${RESET_PAGE_PATH}`;
  if (!base && config.isDevelopment) base = new URL(RESET_PAGE_PATH, requestUrl).toString();
  if (!base) return undefined;
  const url = new URL(base);
  url.searchParams.set('email', email);
  url.searchParams.set('code', code);
  return url.toString();
}

/**
 * 429 when the email (known or not) or the client address asked too often in the last hour; the
 * request is counted otherwise. Both count every email alike, so the answer says nothing about
 * whether an account exists.
 */
export async function countResetRequest(services: AppServices, email: string, request: HttpRequest) {
  const { prisma, config } = services;
  const address = clientAddressOf(request);
  const account = normalizeEmail(email);
  const since = new Date(Date.now() - RATE_WINDOW_MS);
  const [byEmail, byClient] = await Promise.all([
    prisma.passwordResetRequest.findMany({
      where: { email: account, createdAt: { gt: since } },
      orderBy: { createdAt: 'asc' },
      select: { createdAt: true },
    }),
    prisma.passwordResetRequest.findMany({
      where: { clientAddress: address, createdAt: { gt: since } },
      orderBy: { createdAt: 'asc' },
      select: { createdAt: true },
    }),
  ]);
  const over = (rows: { createdAt: Date }[], max: number) => {
    if (rows.length < max) return undefined;
    // Free again when the oldest request that still counts leaves the window.
    const oldest = rows[rows.length - max]!.createdAt.getTime();
    return Math.max(1, Math.ceil((oldest + RATE_WINDOW_MS - Date.now()) / 1000));
  };
  const wait =
    over(byEmail, config.auth.PasswordReset__MaxPerEmailPerHour) ??
    over(byClient, config.auth.PasswordReset__MaxPerClientPerHour);
  if (wait !== undefined) {
    throw new HttpError(429, 'Too many password reset requests; try again later.', {
      headers: { 'Retry-After': String(wait) },
    });
  }
  await prisma.passwordResetRequest.create({ data: { email: account, clientAddress: address } });
}

/** Deletes reset requests that no longer count toward a limit. */
export async function pruneResetRequests(db: Pick<Prisma.TransactionClient, 'passwordResetRequest'>) {
  await db.passwordResetRequest.deleteMany({
    where: { createdAt: { lt: new Date(Date.now() - RATE_WINDOW_MS) } },
  });
}

/**
 * After the answer: a code for a known account with a password, emailed with the link. Nothing
 * here changes the answer, so known and unknown emails answer alike.
 */
export async function sendResetCode(
  services: AppServices,
  email: string,
  request: HttpRequest,
): Promise<void> {
  const { auth, prisma, log, config } = services;
  const user = await auth.users.byEmail(email);
  if (!user?.passwordHash || auth.isBlocked(user.email)) return;
  const now = Date.now();
  await prisma.passwordResetCode.deleteMany({
    where: { userId: user.id, OR: [{ expiresAt: { lt: new Date(now) } }, { usedAt: { not: null } }] },
  });
  // At most a few live codes per account: a stranger cannot flood someone's mailbox.
  const live = await prisma.passwordResetCode.count({ where: { userId: user.id } });
  if (live >= MAX_LIVE_RESET_CODES) {
    log.warn({ userId: user.id }, 'password reset not sent: too many live codes');
    return;
  }
  const code = randomBytes(15).toString('base64url');
  await withAudit(
    prisma,
    (tx) =>
      tx.passwordResetCode.create({
        data: { userId: user.id, codeHash: sha256(code), expiresAt: new Date(now + RESET_CODE_TTL_MS) },
      }),
    () => resetRequestedEntry(user, request),
  );
  const link = resetLink(config, request.url, user.email, code);
  const linkText = link
    ? `Set a new password here: ${link}\n\nOr enter this reset code: ${code}`
    : `Your reset code: ${code}`;
  const linkHtml = link
    ? `<p><a href="${escapeHtml(link)}">Set a new password</a></p><p>Or enter this reset code: <strong>${code}</strong></p>`
    : `<p>Your reset code: <strong>${code}</strong></p>`;
  await auth.mailer.send({
    to: user.email,
    subject: 'finwatch - Password Reset',
    text:
      `A password reset was requested for your finwatch account.\n\n${linkText}\n\n` +
      'It works once and expires in 30 minutes. If you did not ask for it, ignore this email.',
    html:
      '<p>A password reset was requested for your finwatch account.</p>' +
      linkHtml +
      '<p>It works once and expires in 30 minutes. If you did not ask for it, ignore this email.</p>',
  });
}

function resetRequestedEntry(user: UserRow, request: HttpRequest): AuditEntry {
  return {
    actor: null,
    action: 'password.resetRequested',
    target: { type: 'user', id: user.id },
    request,
  };
}
