import { availableParallelism } from 'node:os';
import argon2 from 'argon2';
import { Semaphore } from 'async-mutex';

/**
 * argon2id above OWASP's minimum (m = 19 MiB, t = 2, p = 1): m = 32 MiB, t = 3 costs 60-90 ms
 * on a 2-core machine, inside the 50-250 ms a sign-in can afford (OWASP's minimum took 25 ms, cheap
 * for an attacker). The hash string carries its parameters, so older hashes stay verifiable.
 */
export const PASSWORD_HASH_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 32_768,
  timeCost: 3,
  parallelism: 1,
} as const;

export const MIN_PASSWORD_LENGTH = 8;

/**
 * At most this many hashes at once per process: argon2 runs on libuv's thread pool, and on a
 * small machine four hashes at once would starve the event loop of CPU. Extra requests queue.
 */
export const MAX_CONCURRENT_HASHES = Math.max(1, availableParallelism() - 1);

export function hashPassword(password: string, gate?: Semaphore): Promise<string> {
  const work = () => argon2.hash(password, PASSWORD_HASH_OPTIONS);
  return gate ? gate.runExclusive(work) : work();
}

export async function verifyPassword(hash: string, password: string, gate?: Semaphore): Promise<boolean> {
  const work = async () => {
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  };
  return gate ? gate.runExclusive(work) : work();
}

/**
 * Verifies against a hash or, when there is none (unknown account, directory-only account),
 * against a dummy hash of the same cost, so that every failed sign-in costs the same time.
 */
export class PasswordChecker {
  #dummy: Promise<string> | undefined;
  /** At most MAX_CONCURRENT_HASHES hashes at once; the others wait in arrival order. */
  readonly gate = new Semaphore(MAX_CONCURRENT_HASHES);

  /** A new hash, through this module's gate. */
  hash(password: string): Promise<string> {
    return hashPassword(password, this.gate);
  }

  async check(hash: string | null | undefined, password: string): Promise<boolean> {
    // Made at the first sign-in of any kind, so even the first unknown account costs the same.
    this.#dummy ??= hashPassword('finwatch-dummy-password-for-equal-work', this.gate);
    if (hash) return verifyPassword(hash, password, this.gate);
    await verifyPassword(await this.#dummy, password, this.gate);
    return false;
  }
}
