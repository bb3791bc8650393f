// Kubernetes Events (events.k8s.io/v1), best effort: recording never throws or blocks the caller.
// Repeats of the same event (same object, type, reason, action and note) within the series
// window update one Event's `series` (count, lastObservedTime) instead of creating new ones;
// writes for one series are coalesced so that a burst costs at most one write in flight.
import type { Client } from './client/interface.js';
import { isNotFound } from './client/errors.js';
import { silentLogger, type Logger } from './log.js';
import type { KindRef, KubeObject } from '../kube/object.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  reportingController: string;
  /** Usually the pod name (or hostname) of this replica. */
  reportingInstance: string;
  logger?: Logger;
  /** Repeats within this window join a series (default 6 minutes, as Kubernetes does). */
  seriesWindowMs?: number;
  /** Series remembered at most (oldest forgotten first); default 4096. */
  maxSeries?: number;
  /** Event writes queued at most; more are dropped (default 1000). */
  maxPending?: number;
}

const EVENT_KIND: KindRef = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
export function microTime(d = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

interface Series {
  namespace: string;
  name: string | undefined;
  count: number;
  /** Occurrences not yet written. */
  dirty: boolean;
  writing: boolean;
  firstSeen: number;
  lastSeen: number;
  build: () => KubeObject;
}

const truncate = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

/** An Event's `regarding`/`related`: the object's identity only. */
function referenceTo(o: KubeObject): Record<string, string | undefined> {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    ...(o.metadata.uid ? { uid: o.metadata.uid } : {}),
    ...(o.metadata.resourceVersion ? { resourceVersion: o.metadata.resourceVersion } : {}),
  };
}

export class EventRecorder {
  private readonly series = new Map<string, Series>();
  private readonly log: Logger;
  private readonly windowMs: number;
  private readonly maxSeries: number;
  private readonly maxPending: number;
  private pending = 0;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    private readonly client: Client,
    private readonly opts: EventRecorderOptions,
  ) {
    this.log = (opts.logger ?? silentLogger).child('events');
    this.windowMs = opts.seriesWindowMs ?? 6 * 60_000;
    this.maxSeries = opts.maxSeries ?? 4096;
    this.maxPending = opts.maxPending ?? 1000;
  }

  /** Records an event about `regarding`; `action` is what was done or failed (e.g. `Reconcile`). */
  event(regarding: KubeObject, type: EventType, reason: string, note: string, action = 'Reconcile', related?: KubeObject): void {
    const m = regarding.metadata;
    const key = [m.uid ?? `${regarding.kind}/${m.namespace ?? ''}/${m.name ?? ''}`, type, reason, action, note].join('\u0000');
    const now = Date.now();
    let s = this.series.get(key);
    if (s && now - s.lastSeen > this.windowMs) {
      this.series.delete(key);
      s = undefined;
    }
    if (s) {
      s.count++;
      s.lastSeen = now;
      s.dirty = true;
      // Refresh the position in the Map (insertion order is the eviction order).
      this.series.delete(key);
      this.series.set(key, s);
    } else {
      const namespace = m.namespace || 'default';
      // The references are taken now: a series is kept for minutes (up to maxSeries of them) and
      // must not hold on to the whole objects it is about.
      const regardingRef = referenceTo(regarding);
      const relatedRef = related ? referenceTo(related) : undefined;
      const objectName = m.name ?? 'object';
      s = {
        namespace,
        name: undefined,
        count: 1,
        dirty: true,
        writing: false,
        firstSeen: now,
        lastSeen: now,
        build: () => ({
          apiVersion: EVENT_KIND.apiVersion,
          kind: EVENT_KIND.kind,
          metadata: { name: `${objectName}.${(Date.now() * 1000 + Math.floor(Math.random() * 1000)).toString(16)}`, namespace },
          eventTime: microTime(new Date(now)),
          reportingController: truncate(this.opts.reportingController, 128),
          reportingInstance: truncate(this.opts.reportingInstance, 128),
          action: truncate(action, 128),
          reason: truncate(reason, 128),
          note: truncate(note, 1024),
          type,
          regarding: regardingRef,
          ...(relatedRef ? { related: relatedRef } : {}),
        }),
      };
      this.series.set(key, s);
      if (this.series.size > this.maxSeries) {
        const oldest = this.series.keys().next().value;
        if (oldest !== undefined) this.series.delete(oldest);
      }
    }
    this.write(s);
  }

  /** Resolves when no event write is in flight (tests, shutdown). */
  flush(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private write(s: Series): void {
    if (s.writing) return; // the running write picks up the new count when it finishes
    if (this.pending >= this.maxPending) {
      this.log.debug('event dropped: too many pending writes');
      return;
    }
    s.writing = true;
    this.pending++;
    this.writeLoop(s)
      // writeLoop logs its own write errors; this keeps a bug in it from becoming an unhandled rejection.
      .catch((e: unknown) => this.log.warn('event write loop failed', { error: e }))
      .finally(() => {
        s.writing = false;
        this.pending--;
        if (this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
  }

  private async writeLoop(s: Series): Promise<void> {
    while (s.dirty) {
      s.dirty = false;
      try {
        if (s.name !== undefined && s.count > 1) {
          try {
            await this.client.patch(EVENT_KIND, { namespace: s.namespace, name: s.name }, 'merge', { series: { count: s.count, lastObservedTime: microTime(new Date(s.lastSeen)) } });
            continue;
          } catch (e) {
            if (!isNotFound(e)) throw e;
            s.name = undefined; // expired on the server: start again with a new Event
          }
        }
        const obj = s.build();
        if (s.count > 1) obj.series = { count: s.count, lastObservedTime: microTime(new Date(s.lastSeen)) };
        const created = await this.client.create(obj);
        s.name = created.metadata.name;
      } catch (e) {
        this.log.warn('writing event failed', { error: e, namespace: s.namespace });
        return;
      }
    }
  }
}
