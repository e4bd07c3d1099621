/** Counting semaphore for the posts: callers wait for a slot, so no unbounded queue of bodies builds up. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly capacity: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.capacity) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    // Hand the slot straight to the next waiter so `active` never dips and lets a newcomer jump the queue.
    if (next) next();
    else this.active--;
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * A queue drained by a fixed number of workers while producers are still adding to it, so slow work
 * (log reads) runs alongside the producer instead of after each batch.
 */
export class WorkQueue<T> {
  /** Taken from `head` on: `shift()` moves the whole array once V8 cannot trim it, and this one holds thousands. */
  private items: T[] = [];
  private head = 0;
  private closed = false;
  private wake: (() => void) | undefined;

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  /** No more items will come; workers finish what is queued and return. */
  close(): void {
    this.closed = true;
    this.wake?.();
  }

  private take(): T | undefined {
    if (this.head === this.items.length) {
      if (this.head > 0) {
        this.items = [];
        this.head = 0;
      }
      return undefined;
    }
    const item = this.items[this.head];
    this.items[this.head++] = undefined as T;
    return item;
  }

  async drain(concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
    const worker = async (): Promise<void> => {
      for (;;) {
        const item = this.take();
        if (item !== undefined) {
          await task(item);
          continue;
        }
        if (this.closed) return;
        await new Promise<void>((resolve) => {
          const previous = this.wake;
          this.wake = () => {
            this.wake = undefined;
            previous?.();
            resolve();
          };
        });
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
}
