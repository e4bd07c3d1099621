import { z } from 'zod';
import { MAX_EMAIL_CHARS, MAX_PASSWORD_CHARS } from '../../http/limits.js';
import { noContent, ok } from '../../http/respond.js';
import { MIN_PASSWORD_LENGTH } from '../passwords.js';
import { toUserDto, type UserRow } from '../users.js';
import { AUTH_UNPAGED_ROWS } from './common.js';

/** The rule of every new password (create, change, reset, the reset page). */
export const password = () =>
  z
    .string()
    .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
    .max(MAX_PASSWORD_CHARS);

export const emailParams = z.object({ email: z.string().trim().min(3).max(MAX_EMAIL_CHARS) });
export const dto = (u: UserRow) => ok(toUserDto(u));
/** The original answers Ok(null) → 204 for a missing user on its lookups. */
export const dtoOr204 = (u: UserRow | null) => (u ? dto(u) : noContent());

export const PAGED = `Paged (page, pageSize; X-Total-Count); without paging, the first ${AUTH_UNPAGED_ROWS}.`;

export const T = ['User'];
