import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AuthSettings } from '../config/auth.js';
import { DEV_JWT_KEY } from '../config/auth.js';

export interface TokenUser {
  id: string;
  username: string;
  email: string;
  isAdmin: boolean;
}

/** Clock skew allowed when validating any token (Jwt__ClockSkewSeconds; the original used 0). */
export const clockTolerance = (settings: AuthSettings) => settings.Jwt__ClockSkewSeconds;

/** The signing key: Jwt__Key, or the development placeholder (loadConfig refuses it in Production). */
export function signingKey(settings: AuthSettings): string {
  return settings.Jwt__Key ?? DEV_JWT_KEY;
}

/**
 * An own token: HS256 with the original's claims (its sibling services read them) plus sub,
 * email, iat, nbf and exp; issuer and audience are the first listed.
 */
export function issueToken(
  settings: AuthSettings,
  user: TokenUser,
  now = Date.now(),
  key: KeyObject | string = signingKey(settings),
): string {
  const iat = Math.floor(now / 1000);
  const payload = {
    id: user.id,
    givenname: user.username,
    surname: user.username,
    emailaddress: user.email,
    isAdmin: user.isAdmin ? 'True' : 'False',
    sub: user.id,
    email: user.email,
    // iat has whole seconds; a token issued in the same second as a password change must be told
    // apart from one issued just after it.
    iat_ms: now,
    iat,
    nbf: iat,
    exp: iat + settings.Jwt__ExpiryMinutes * 60,
  };
  return jwt.sign(payload, key, {
    algorithm: 'HS256',
    issuer: settings.Jwt__Issuers[0] ?? 'finwatch',
    audience: settings.Jwt__Audiences[0] ?? 'finwatch',
  });
}

/** Validates an own token (algorithm pinned to HS256, listed issuers and audiences); throws on failure. */
export function verifyOwnToken(
  settings: AuthSettings,
  token: string,
  key: KeyObject | string = signingKey(settings),
): jwt.JwtPayload {
  const payload = jwt.verify(token, key, {
    algorithms: ['HS256'],
    issuer: settings.Jwt__Issuers as [string, ...string[]],
    audience: settings.Jwt__Audiences as [string, ...string[]],
    clockTolerance: clockTolerance(settings),
  });
  if (typeof payload === 'string') throw new Error('token payload is not an object');
  if (typeof payload.exp !== 'number') throw new Error('token has no expiry');
  return payload;
}

/**
 * Whether a token was issued before the credentials changed (then it is refused). With `iat_ms`
 * the comparison is exact; without it (a token from elsewhere), a token of the same second as the
 * change is refused too: refusing a valid token costs a sign-in, accepting a stolen one costs more.
 */
export function issuedBeforeChange(claims: jwt.JwtPayload, changedAt: Date | null): boolean {
  if (!changedAt) return false;
  const changed = changedAt.getTime();
  if (typeof claims.iat_ms === 'number' && Number.isFinite(claims.iat_ms)) {
    // Only when it agrees with iat: the exact claim never makes a token newer than iat says.
    if (Math.floor(claims.iat_ms / 1000) === claims.iat) return claims.iat_ms < changed;
  }
  return typeof claims.iat !== 'number' || claims.iat * 1000 <= changed;
}

/**
 * The signing key as a KeyObject, made once: given a string, jsonwebtoken first tries to parse it
 * as a PEM public key on every call, which costs about a millisecond per validation.
 */
export function signingKeyObject(settings: AuthSettings): KeyObject {
  return createSecretKey(Buffer.from(signingKey(settings), 'utf8'));
}
