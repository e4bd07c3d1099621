import { Mutex } from 'async-mutex';

/**
 * One cost query at a time, process-wide, as the original ran them: every Cost Management request of every
 * AzureAccess instance in this process goes through this lock (async-mutex: in arrival order),
 * retries and back-off waits included.
 */
export const costQueryMutex = new Mutex();
