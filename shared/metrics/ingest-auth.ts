import type { HttpRequest } from '@azure/functions';
import { forbidden, HttpError } from '../http/problem.js';
import type { IngestKeys } from './ingest-keys.js';
import { normalizeCluster } from './records.js';

/** Who is sending: a cluster's key, or nobody (only with Metrics__AllowAnonymousIngest=true). */
export interface IngestSender {
  /** The key's cluster (lower case); undefined for an anonymous sender. */
  keyCluster?: string;
}

const unauthorizedIngest = (detail: string) =>
  new HttpError(401, detail, { headers: { 'WWW-Authenticate': 'Bearer realm="finwatch metrics ingest"' } });

/**
 * The ingest rule of every agent post: `Authorization: Bearer <ingest key>`; no header is accepted
 * only when anonymous ingest is switched on. An unknown or revoked key is 401 even then, so a
 * revoked agent learns it is refused instead of writing anonymously.
 */
export async function ingestSender(
  request: Pick<HttpRequest, 'headers'>,
  keys: IngestKeys,
  allowAnonymous: boolean,
): Promise<IngestSender> {
  const header = request.headers.get('authorization')?.trim();
  if (!header) {
    if (allowAnonymous) return {};
    throw unauthorizedIngest('An ingest key is required: send Authorization: Bearer <ingest key>.');
  }
  const m = /^Bearer\s+(\S{1,512})$/i.exec(header);
  if (!m) throw unauthorizedIngest('The Authorization header must be Bearer <ingest key>.');
  const key = await keys.verify(m[1]!);
  if (!key) throw unauthorizedIngest('The ingest key is unknown or revoked.');
  return { keyCluster: normalizeCluster(key.clusterName) };
}

/**
 * The cluster a post writes to: the one it names, which a key must be for (403 otherwise); a post
 * that names none takes its key's cluster.
 */
export function clusterFor(sender: IngestSender, named: string): string | undefined {
  const cluster = normalizeCluster(named);
  if (!cluster) return sender.keyCluster;
  if (sender.keyCluster !== undefined && sender.keyCluster !== cluster) {
    throw forbidden(`This ingest key is for the cluster ${sender.keyCluster}, not ${cluster}.`);
  }
  return cluster;
}
