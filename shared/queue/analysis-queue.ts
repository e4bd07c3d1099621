import { type QueueClient, QueueServiceClient } from '@azure/storage-queue';

/** The storage queue that carries analysis jobs to the queue trigger. */
export interface JobQueue {
  readonly name: string;
  send(message: Record<string, unknown>): Promise<void>;
  /**
   * Messages in the queue, visible or not (being processed, waiting for a retry). Approximate, and
   * never lower than the real count (QueueProperties.ApproximateMessagesCount in the Storage
   * documentation): what the job sweeper needs to tell a backlog from a loss.
   */
  approximateCount(): Promise<number>;
  /** The poison queue's client, where the Functions host moves a message after maxDequeueCount. */
  client(): QueueClient;
  poisonClient(): QueueClient;
}

export interface QueueLocation {
  /** AzureWebJobsStorage: a connection string (Azurite locally). */
  connectionString?: string | undefined;
  /** AzureWebJobsStorage__queueServiceUri / __accountName: identity-based connection in Azure. */
  queueServiceUri?: string | undefined;
  accountName?: string | undefined;
}

async function serviceClient(where: QueueLocation): Promise<QueueServiceClient> {
  if (where.connectionString) return QueueServiceClient.fromConnectionString(where.connectionString);
  const uri =
    where.queueServiceUri ??
    (where.accountName ? `https://${where.accountName}.queue.core.windows.net` : undefined);
  if (!uri) throw new Error('No storage queue is configured: set AzureWebJobsStorage.');
  const { DefaultAzureCredential } = await import('@azure/identity');
  return new QueueServiceClient(uri, new DefaultAzureCredential());
}

/**
 * Deadline of one queue call, its retries included. The storage SDK sets only a server-side timeout,
 * so a silent endpoint would hold the request that starts a job; the job row is already stored
 * (the outbox), so giving up early loses nothing: the sweeper sends the message later.
 */
export const QUEUE_CALL_TIMEOUT_MS = 10_000;

/**
 * Messages are plain JSON text (host.json sets messageEncoding "none"), so the queue trigger and
 * the local host read them alike.
 */
export async function createJobQueue(
  where: QueueLocation,
  name: string,
  callTimeoutMs = QUEUE_CALL_TIMEOUT_MS,
): Promise<JobQueue> {
  const service = await serviceClient(where);
  const queue = service.getQueueClient(name);
  const poison = service.getQueueClient(`${name}-poison`);
  const deadline = () => ({ abortSignal: AbortSignal.timeout(callTimeoutMs) });
  let ready: Promise<unknown> | undefined;
  const ensure = () => {
    ready ??= Promise.all([queue.createIfNotExists(deadline()), poison.createIfNotExists(deadline())]).catch(
      (e) => {
        ready = undefined;
        throw e;
      },
    );
    return ready;
  };
  return {
    name,
    async send(message) {
      await ensure();
      await queue.sendMessage(JSON.stringify(message), deadline());
    },
    async approximateCount() {
      await ensure();
      return (await queue.getProperties(deadline())).approximateMessagesCount ?? 0;
    },
    client: () => queue,
    poisonClient: () => poison,
  };
}
