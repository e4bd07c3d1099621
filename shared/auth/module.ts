import type { HttpRequest } from '@azure/functions';
import jwt from 'jsonwebtoken';
import type { CoreServices } from '../app/services.js';
import { recordAudit } from '../audit/record.js';
import { createMailer, type Mailer, type MailMessage } from '../email/mailer.js';
import { forbidden, unauthorized } from '../http/problem.js';
import type { Caller } from './caller.js';
import { DirectoryTokens, directoryCa } from './directory.js';
import { GraphLookup } from './graph.js';
import { PasswordChecker } from './passwords.js';
import { issuedBeforeChange, issueToken, signingKeyObject, verifyOwnToken } from './tokens.js';
import { normalizeEmail, type UserRow, UserStore } from './users.js';

/** The auth service's part of the app: token validation and caller resolution for every route. */
export interface AuthModule {
  /** Resolves the caller of a request or throws 401 (no/invalid token) or 403 (blocked domain). */
  authenticate(request: HttpRequest): Promise<Caller>;
  users: UserStore;
  passwords: PasswordChecker;
  directory: DirectoryTokens;
  graph: GraphLookup;
  mailer: Mailer;
  /** An own token for the user. */
  issueToken(user: UserRow): string;
  /** Whether the email (or UPN) ends with @ one of BLOCKED_DOMAINS. */
  isBlocked(email: string | undefined | null): boolean;
  /** Whether ADMIN_EMAILS lists the email. */
  isListedAdmin(email: string): boolean;
  /**
   * Resolves (and creates on first use) the local user of a directory identity. Only a directory
   * sign-in (`signedIn`) proves the identity, so only then does ADMIN_EMAILS make the new user an
   * administrator; a lookup by someone else or the mobile key never does.
   */
  userForDirectoryIdentity(
    email: string,
    displayName?: string,
    options?: { signedIn?: boolean },
  ): Promise<UserRow>;
  /** The email-like names (email, preferred_username, upn) of a valid directory token; 401 otherwise. */
  directoryEmails(token: string): Promise<string[]>;
  /** Sends an email in the background (failures are logged); close() waits for pending sends. */
  sendInBackground(message: MailMessage, what: string): void;
  /** Runs work after the answer (failures are logged); close() waits for it. */
  background(what: string, work: () => Promise<void>): void;
  /** Resolves when every background task started so far has finished (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const DIRECTORY_EMAIL_CLAIMS = ['email', 'preferred_username', 'upn', 'unique_name'] as const;

const toCaller = (
  user: UserRow,
  tokenKind: Caller['tokenKind'],
  claims: jwt.JwtPayload,
  token: string,
): Caller => ({
  userId: user.id,
  email: user.email,
  username: user.username,
  isAdmin: user.isAdmin,
  tokenKind,
  claims,
  token,
});

export async function createAuthModule(
  core: CoreServices,
  options: { cacheClock?: () => number } = {},
): Promise<AuthModule> {
  const { config, prisma, log } = core;
  const settings = config.auth;
  const cacheEnabled = settings.CacheSettings__CacheProvider === 'Memory';
  const ca = directoryCa(settings);
  const users = new UserStore(prisma, cacheEnabled, undefined, options.cacheClock);
  const directory = new DirectoryTokens(settings, log, ca, cacheEnabled);
  const graph = new GraphLookup(settings, log, directory.dispatcher, ca);
  const mailer = createMailer(config, log);
  const passwords = new PasswordChecker();
  const key = signingKeyObject(settings);
  const pending = new Set<Promise<void>>();
  const blocked = settings.BLOCKED_DOMAINS.map((d) => `@${d.replace(/^@/, '').toLowerCase()}`);
  const admins = new Set(settings.ADMIN_EMAILS.map(normalizeEmail));

  const isBlocked = (email: string | undefined | null) =>
    Boolean(email) && blocked.some((d) => email!.toLowerCase().trim().endsWith(d));
  const isListedAdmin = (email: string) => admins.has(normalizeEmail(email));

  async function userForDirectoryIdentity(
    email: string,
    displayName?: string,
    options: { signedIn?: boolean } = {},
  ): Promise<UserRow> {
    const existing = await users.byEmail(email);
    if (existing) return existing;
    let created: UserRow;
    try {
      created = await users.create({
        email,
        username: normalizeEmail(email),
        isAdmin: options.signedIn === true && isListedAdmin(email),
        uniqueUsername: true,
      });
    } catch (e) {
      // Another request created it at the same moment.
      users.invalidate();
      const again = await users.byEmail(email);
      if (again) return again;
      log.warn({ err: e, displayName }, 'could not create a directory user');
      throw e;
    }
    // Written after the user, not with it: the insert retries on a user-name clash, and a unique
    // violation inside a PostgreSQL transaction would abort the transaction the record shares.
    await recordAudit(prisma, {
      actor: { userId: created.id, email: created.email },
      action: 'user.created',
      target: { type: 'user', id: created.id },
      details: {
        username: created.username,
        isAdmin: created.isAdmin,
        via: options.signedIn ? 'directory sign-in' : 'mobile key',
      },
    });
    return created;
  }

  async function authenticateOwn(token: string): Promise<Caller> {
    let claims: jwt.JwtPayload;
    try {
      claims = verifyOwnToken(settings, token, key);
    } catch (e) {
      log.debug({ err: (e as Error).message }, 'own token refused');
      throw unauthorized('The token is invalid or expired.');
    }
    const id = typeof claims.sub === 'string' ? claims.sub : typeof claims.id === 'string' ? claims.id : '';
    const user = id ? await users.byId(id) : null;
    if (!user) throw unauthorized('The token does not belong to a known user.');
    if (issuedBeforeChange(claims, user.credentialsChangedAt)) {
      throw unauthorized('The token was issued before the password was changed or the sessions were ended.');
    }
    if (isBlocked(user.email)) throw forbidden('The domain of this account is blocked.');
    return toCaller(user, 'local', claims, token);
  }

  async function verifyDirectory(token: string): Promise<jwt.JwtPayload> {
    if (!directory.configured || jwt.decode(token, { complete: true })?.header.alg !== 'RS256') {
      throw unauthorized('The token is invalid or expired.');
    }
    try {
      return await directory.verify(token);
    } catch (e) {
      log.debug({ err: (e as Error).message }, 'directory token refused');
      throw unauthorized('The token is invalid or expired.');
    }
  }

  const emailsOf = (claims: jwt.JwtPayload) =>
    DIRECTORY_EMAIL_CLAIMS.map((c) => claims[c]).filter(
      (v): v is string => typeof v === 'string' && v.includes('@'),
    );

  async function authenticateDirectory(token: string): Promise<Caller> {
    const claims = await verifyDirectory(token);
    const names = emailsOf(claims);
    if (names.some(isBlocked)) throw forbidden('The domain of this account is blocked.');
    const email = names[0];
    // Never fail open: a token that names no user is refused.
    if (!email) throw unauthorized('The token does not name a user (email, preferred_username, upn).');
    const name = typeof claims.name === 'string' ? claims.name : undefined;
    const user = await userForDirectoryIdentity(email, name, { signedIn: true });
    if (isBlocked(user.email)) throw forbidden('The domain of this account is blocked.');
    return toCaller(user, 'directory', claims, token);
  }

  function background(what: string, work: () => Promise<void>): void {
    const p: Promise<void> = work()
      .catch((err: unknown) => {
        log.error({ err, what }, 'background task failed');
        core.errors.capture(err, { what });
      })
      .finally(() => pending.delete(p));
    pending.add(p);
  }

  return {
    users,
    passwords,
    directory,
    graph,
    mailer,
    isBlocked,
    isListedAdmin,
    userForDirectoryIdentity,
    async directoryEmails(token) {
      return emailsOf(await verifyDirectory(token));
    },
    issueToken: (user) => issueToken(settings, user, Date.now(), key),
    async authenticate(request) {
      const m = /^\s*Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(request.headers.get('authorization') ?? '');
      if (!m) throw unauthorized();
      const token = m[1]!;
      const alg = jwt.decode(token, { complete: true })?.header.alg;
      if (alg === 'HS256') return authenticateOwn(token);
      if (alg === 'RS256' && directory.configured) return authenticateDirectory(token);
      throw unauthorized('The token is invalid or expired.');
    },
    background,
    sendInBackground(message, what) {
      background(what, async () => {
        await mailer.send(message);
        log.info({ what, transport: mailer.kind }, 'email sent');
      });
    },
    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    async close() {
      while (pending.size) await Promise.allSettled([...pending]);
      await mailer.close();
      await directory.close();
    },
  };
}
