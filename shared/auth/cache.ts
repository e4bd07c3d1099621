/** A small TTL cache kept in a module object (no process-wide state; one per host). */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly enabled = true,
  ) {}

  get(key: string): V | undefined {
    if (!this.enabled) return undefined;
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.expires <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V): void {
    if (!this.enabled) return;
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expires: Date.now() + this.ttlMs });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops every entry whose value matches (e.g. every key of one user). */
  deleteWhere(match: (value: V) => boolean): void {
    for (const [key, e] of this.#entries) if (match(e.value)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
