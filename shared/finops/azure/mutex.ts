/** A promise-chain mutex: callers run one at a time, in arrival order. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private held = 0;

  /** True while someone holds the lock or waits for it. */
  get busy(): boolean {
    return this.held > 0;
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    this.held++;
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => {
        this.held--;
      },
      () => {
        this.held--;
      },
    );
    return result;
  }
}

/**
 * One cost query at a time, process-wide, as the original ran them: every Cost Management request of every
 * AzureAccess instance in this process goes through this lock, retries and back-off waits included.
 */
export const costQueryMutex = new Mutex();
