import type { CycleContext } from '../cycle-context.js';
import { encodeBody } from '../ingest.js';
import { CACHED } from '../kube.js';
import type { CoreEvent } from '../kube-types.js';

export interface EventPayload {
  clusterName: string;
  namespace: string;
  eventName: string;
  eventUid: string;
  involvedObjectKind: string;
  involvedObjectName: string;
  involvedObjectNamespace: string;
  eventType: string;
  reason: string;
  message: string;
  sourceComponent: string;
  count: number;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
}

function iso(text: string | null | undefined): string | null {
  if (!text) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** Identity of an event object; uid is always set by the API server, the name is a defensive fallback. */
export function eventKey(event: CoreEvent, namespace: string): string {
  return event.metadata?.uid || `${event.metadata?.namespace ?? namespace}/${event.metadata?.name ?? ''}`;
}

/**
 * Version of an event object: every update (count bump, new lastTimestamp) changes resourceVersion.
 * Timestamps only stand in when an object has none, and they come from the server, never this clock;
 * eventTime / series.lastObservedTime cover events.k8s.io-style events whose classic timestamps are empty.
 */
export function eventVersion(event: CoreEvent): string {
  return (
    event.metadata?.resourceVersion ||
    `${event.lastTimestamp ?? event.series?.lastObservedTime ?? event.eventTime ?? event.firstTimestamp ?? ''}` +
      `#${event.series?.count ?? event.count ?? ''}`
  );
}

export function eventPayload(event: CoreEvent, clusterName: string, namespace: string): EventPayload {
  const first = iso(event.firstTimestamp) ?? iso(event.eventTime);
  const last =
    iso(event.lastTimestamp) ?? iso(event.series?.lastObservedTime) ?? iso(event.eventTime) ?? first;
  return {
    clusterName,
    namespace: event.metadata?.namespace || namespace,
    eventName: event.metadata?.name ?? '',
    eventUid: event.metadata?.uid ?? '',
    involvedObjectKind: event.involvedObject?.kind ?? '',
    involvedObjectName: event.involvedObject?.name ?? '',
    involvedObjectNamespace: event.involvedObject?.namespace || namespace,
    eventType: event.type ?? '',
    reason: event.reason ?? '',
    message: event.message ?? '',
    sourceComponent: event.source?.component || event.reportingComponent || '',
    count: Math.max(1, Math.trunc(event.series?.count ?? event.count ?? 1)),
    firstTimestamp: first,
    lastTimestamp: last,
  };
}

/**
 * Remembers which event versions the ingest API has accepted. Bounded twice: entries of events the API
 * server no longer lists are dropped after each complete namespace listing (events expire after an hour
 * by default), and a hard cap evicts the oldest. State is in memory only: after a restart every event the
 * API server still holds is sent once more; the ingest store (ReplacingMergeTree on eventUid) collapses them.
 */
export class SentEvents {
  private readonly versions = new Map<string, { version: string; namespace: string }>();

  constructor(readonly capacity = 100_000) {}

  get size(): number {
    return this.versions.size;
  }

  isNewOrUpdated(key: string, version: string): boolean {
    return this.versions.get(key)?.version !== version;
  }

  record(key: string, version: string, namespace: string): void {
    // Delete first so Map order is "least recently sent first" for the cap below.
    this.versions.delete(key);
    this.versions.set(key, { version, namespace });
    if (this.versions.size > this.capacity) {
      const oldest = this.versions.keys().next().value;
      if (oldest !== undefined) this.versions.delete(oldest);
    }
  }

  /** Undoes `record` when what it recorded was never delivered after all (a dropped batch). */
  forget(key: string, version: string): void {
    if (this.versions.get(key)?.version === version) this.versions.delete(key);
  }

  /** Forget events of `namespace` that a complete listing no longer contains. */
  retainOnly(namespace: string, listed: Set<string>): void {
    for (const [key, entry] of this.versions) {
      if (entry.namespace === namespace && !listed.has(key)) this.versions.delete(key);
    }
  }
}

interface EncodedEvent {
  body: Buffer;
  key: string;
  version: string;
}

/** Marks a page's events as listed and encodes the new or updated ones, so the parsed page can die young. */
function encodePage(
  events: CoreEvent[],
  ctx: CycleContext,
  sent: SentEvents,
  namespace: string,
  listed: Set<string>,
): EncodedEvent[] {
  const encoded: EncodedEvent[] = [];
  for (const event of events) {
    const key = eventKey(event, namespace);
    const version = eventVersion(event);
    listed.add(key);
    if (!sent.isNewOrUpdated(key, version)) continue;
    encoded.push({ body: encodeBody(eventPayload(event, ctx.config.clusterName, namespace)), key, version });
  }
  return encoded;
}

async function postEvents(
  ctx: CycleContext,
  sent: SentEvents,
  namespace: string,
  encoded: EncodedEvent[],
): Promise<void> {
  for (const { body, key, version } of encoded) {
    if (ctx.stopping) return;
    // Recorded only once the API accepted it (or a batch holding it is queued, undone if that batch is
    // dropped), so an event that does not arrive is sent again on the next cycle.
    await ctx.ingest.send(
      'event',
      body,
      () => sent.record(key, version, namespace),
      () => sent.forget(key, version),
    );
  }
}

/** Step 3: new or updated events of every watched namespace. */
export async function collectEvents(ctx: CycleContext, sent: SentEvents): Promise<void> {
  for (const namespace of ctx.config.namespaces) {
    if (ctx.stopping) return;
    const listed = new Set<string>();
    try {
      await ctx.kube.listEach<CoreEvent>(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
        // Not an async function: its frame would hold the page while the posts wait (see encodeBody).
        (events) => postEvents(ctx, sent, namespace, encodePage(events, ctx, sent, namespace, listed)),
        CACHED,
        ctx.log,
        ctx.signal,
      );
      // Only a complete listing may prune memory; a shutdown leaves the list unfinished.
      if (!ctx.stopping) sent.retainOnly(namespace, listed);
    } catch (error) {
      ctx.kubeFailed(`listing events in ${namespace}`, error);
    }
  }
}
