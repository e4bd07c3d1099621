/**
 * Requests per client address in the current minute, per instance: the bound of an anonymous
 * route. Fixed one-minute windows; the map holds only addresses seen this minute.
 */
export class PerMinuteLimit {
  private window = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    readonly max: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Counts a request; answers the seconds to wait when the address is past its limit. */
  take(key: string): number | undefined {
    const t = this.now();
    const window = Math.floor(t / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    if (n <= this.max) return undefined;
    return Math.max(1, Math.ceil(((window + 1) * 60_000 - t) / 1000));
  }
}
