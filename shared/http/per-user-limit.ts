/**
 * How many requests each key (a user) may have in flight at once. `tryAcquire` answers a release
 * function, or undefined when the key is at its limit; releasing twice is harmless. A slot is taken
 * or refused at once, never waited for (the caller answers 429), which is why this is not a
 * queueing limiter such as p-limit.
 */
export class PerKeyLimit {
  private readonly inFlight = new Map<string, number>();
  private readonly freeWaiters = new Map<string, Array<() => void>>();

  constructor(readonly max: number) {}

  tryAcquire(key: string): (() => void) | undefined {
    const n = this.inFlight.get(key) ?? 0;
    if (n >= this.max) return undefined;
    this.inFlight.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(key) ?? 1) - 1;
      // Keys at zero are dropped, so the map holds only users with a request in flight.
      if (left > 0) {
        this.inFlight.set(key, left);
        return;
      }
      this.inFlight.delete(key);
      const waiters = this.freeWaiters.get(key);
      this.freeWaiters.delete(key);
      for (const w of waiters ?? []) w();
    };
  }

  /** Requests in flight for a key (tests, diagnostics). */
  active(key: string): number {
    return this.inFlight.get(key) ?? 0;
  }

  /** Resolves once the key has no request in flight (at once when it has none). */
  whenFree(key: string): Promise<void> {
    if (!this.inFlight.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.freeWaiters.get(key) ?? [];
      waiters.push(resolve);
      this.freeWaiters.set(key, waiters);
    });
  }
}
