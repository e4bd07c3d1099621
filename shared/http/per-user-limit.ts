/**
 * How many requests each key (a user) may have in flight at once. `tryAcquire` answers a release
 * function, or undefined when the key is at its limit; releasing twice is harmless.
 */
export class PerKeyLimit {
  private readonly inFlight = new Map<string, number>();

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
      if (left <= 0) this.inFlight.delete(key);
      else this.inFlight.set(key, left);
    };
  }

  /** Requests in flight for a key (tests, diagnostics). */
  active(key: string): number {
    return this.inFlight.get(key) ?? 0;
  }
}
