import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { recordAudit, withAudit } from '../audit/record.js';
import type { PrismaClient } from '../db/generated/client.js';
import { MAX_EMAIL_CHARS } from '../http/limits.js';
import { normalizeEmail, UserStore } from './users.js';

/**
 * `npm run admin -- grant|revoke|list`: administrator rights set directly in the database, by
 * whoever holds its connection string (or the local data folder). It does not depend on an address
 * being free, so registering an ADMIN_EMAILS address first (squatting) no longer blocks the
 * operator: `grant --reset-credentials` also removes the squatter's password and sessions.
 */
export const ADMIN_COMMAND_USAGE = `usage: npm run admin -- <command>
  grant <email> [--reset-credentials]   make the account an administrator (created, without a
                                        password, when no account has this email);
                                        --reset-credentials also removes its password and ends its
                                        sessions (an account someone else registered)
  revoke <email>                        remove administrator rights (never the last administrator)
  list                                  the administrators`;

export interface AdminCommandResult {
  /** 0 done, 1 refused (named in the output), 2 usage. */
  code: number;
  lines: string[];
}

/** Who ran it, for the audit record: the machine and OS user, as far as they can be told. */
function operator(): { email: string } {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // Containers without a passwd entry.
  }
  return { email: `admin command (${user}@${hostname()})` };
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function runAdminCommand(prisma: PrismaClient, argv: string[]): Promise<AdminCommandResult> {
  const [command, ...rest] = argv;
  const flags = rest.filter((a) => a.startsWith('--'));
  const [rawEmail, ...extra] = rest.filter((a) => !a.startsWith('--'));
  const users = new UserStore(prisma, false);
  const actor = operator();
  const usage = (why: string): AdminCommandResult => ({ code: 2, lines: [why, ADMIN_COMMAND_USAGE] });

  if (command === 'list' && !rawEmail && flags.length === 0) {
    const admins = await prisma.user.findMany({
      where: { isAdmin: true },
      orderBy: { email: 'asc' },
      select: { email: true, username: true, passwordHash: true, lastLogon: true },
    });
    return {
      code: 0,
      lines: admins.length
        ? admins.map(
            (a) =>
              `${a.email} (${a.username}; ${a.passwordHash ? 'password' : 'no password'}; last sign-in ${a.lastLogon?.toISOString() ?? 'never'})`,
          )
        : ['no administrators'],
    };
  }
  if (command !== 'grant' && command !== 'revoke') return usage(`unknown command: ${command ?? '(none)'}`);
  if (!rawEmail || extra.length) return usage(`${command} takes one email`);
  const allowed = command === 'grant' ? ['--reset-credentials'] : [];
  const unknown = flags.filter((f) => !allowed.includes(f));
  if (unknown.length) return usage(`unknown option: ${unknown.join(' ')}`);
  const email = normalizeEmail(rawEmail);
  if (!EMAIL.test(email) || email.length > MAX_EMAIL_CHARS) return usage(`not an email address: ${rawEmail}`);
  const existing = await users.byEmail(email);

  if (command === 'revoke') {
    if (!existing) return { code: 1, lines: [`no account has the email ${email}`] };
    if (!existing.isAdmin) return { code: 0, lines: [`${email} is not an administrator; nothing changed`] };
    const r = await users.keepingAnAdmin(existing.id, async (tx) => {
      await tx.user.update({ where: { id: existing.id }, data: { isAdmin: false } });
      await recordAudit(tx, {
        actor,
        action: 'admin.revoked',
        target: { type: 'user', id: existing.id },
        details: { email, via: 'admin command' },
      });
    });
    if (r === 'last-admin') {
      return { code: 1, lines: [`${email} is the last administrator; grant another first`] };
    }
    return { code: 0, lines: [`${email} is no longer an administrator`] };
  }

  const resetCredentials = flags.includes('--reset-credentials');
  // The user name is checked first: a unique violation inside a PostgreSQL transaction would
  // abort it, so the store's retry-on-conflict cannot be used there.
  const base = email.split('@')[0]!;
  const username = (await users.byUsername(base)) ? `${base}-${randomBytes(3).toString('hex')}` : base;
  const outcome = await withAudit(
    prisma,
    async (tx) => {
      const user = existing ?? (await users.create({ email, username, passwordHash: null }, tx));
      return tx.user.update({
        where: { id: user.id },
        data: {
          isAdmin: true,
          // Removing the password and ending the sessions takes the account back from whoever
          // registered it; its owner sets a password by the reset email or signs in with the directory.
          ...(resetCredentials ? { passwordHash: null, credentialsChangedAt: new Date() } : {}),
        },
      });
    },
    (updated) => ({
      actor,
      action: 'admin.granted',
      target: { type: 'user', id: updated.id },
      details: {
        email,
        via: 'admin command',
        created: !existing,
        wasAdmin: existing?.isAdmin ?? false,
        credentialsReset: resetCredentials,
      },
    }),
  );
  const lines = [`${email} is an administrator${existing ? '' : ' (account created without a password)'}`];
  if (resetCredentials) lines.push('its password was removed and its sessions ended');
  if (!outcome.passwordHash) {
    lines.push(
      'to sign in: the directory (Entra ID), or User/resetPassword to set a password by email (reset page /auth/api/ResetPassword)',
    );
  } else if (existing && !resetCredentials) {
    lines.push(
      'the account keeps its password: if you did not register it yourself, run grant again with --reset-credentials',
    );
  }
  return { code: 0, lines };
}
