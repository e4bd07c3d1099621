import argon2 from 'argon2';

/**
 * argon2id with OWASP's minimum (m = 19 MiB, t = 2, p = 1). The hash string carries its
 * parameters, so raising them later keeps older hashes verifiable.
 */
export const PASSWORD_HASH_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export const MIN_PASSWORD_LENGTH = 8;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, PASSWORD_HASH_OPTIONS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/**
 * Verifies against a hash or, when there is none (unknown account, directory-only account),
 * against a dummy hash of the same cost, so that every failed sign-in costs the same time.
 */
export class PasswordChecker {
  #dummy: Promise<string> | undefined;

  async check(hash: string | null | undefined, password: string): Promise<boolean> {
    if (hash) return verifyPassword(hash, password);
    this.#dummy ??= hashPassword('finwatch-dummy-password-for-equal-work');
    await verifyPassword(await this.#dummy, password);
    return false;
  }
}
