// Watch streams: newline-delimited JSON events, as kube-apiserver sends them over a chunked response.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gone, StatusError } from './errors.js';
import type { RequestContext } from './handler.js';
import { servedJson } from './objects.js';
import { groupVersion, resourceKey, type ResourceType } from './resources.js';
import { type LabelSelector, matchesLabels } from '../kube/labels.js';
import { type FieldRequirement, matchesFields, parseFieldSelector, parseLabelSelectorParam } from './selectors.js';
import type { StoredObject, StoreEvent } from './store.js';
import { PROTOBUF_WATCH, watchEventFrame } from './protobuf/http.js';

/** How often a watch that asked for bookmarks gets one (kube: about once a minute). */
export const watchSettings = { bookmarkIntervalMs: 60_000 };

interface Filter {
  namespace: string | undefined;
  labels: LabelSelector | undefined;
  fields: FieldRequirement[] | undefined;
}

function matches(f: Filter, o: StoredObject): boolean {
  if (f.namespace !== undefined && o.namespace !== f.namespace) return false;
  if (f.labels && !matchesLabels(f.labels, o.labels)) return false;
  if (f.fields && f.fields.length > 0 && !matchesFields(f.fields, JSON.parse(o.json) as Record<string, unknown>)) return false;
  return true;
}

/** Writes an event's object from its stored JSON: as served, or another form (a Table) the watch asked for. */
type ObjectEncoder = (storedJson: string) => string;

function eventLine(encode: ObjectEncoder, type: string, json: string): string {
  return `{"type":"${type}","object":${encode(json)}}\n`;
}

/**
 * Translates a stored change into what this watch sees: label transitions become ADDED/DELETED,
 * and an object leaving the selection is shown as it was before the change, at the new version.
 */
function eventFor(encode: ObjectEncoder, f: Filter, ev: StoreEvent): string | undefined {
  const type = translate(f, ev);
  if (!type) return undefined;
  if (type === 'DELETED' && ev.type === 'MODIFIED' && ev.previous) {
    return eventLine(encode, type, withResourceVersion(ev.previous.json, ev.rv));
  }
  return eventLine(encode, type, ev.object.json);
}

function withResourceVersion(json: string, rv: number): string {
  return json.replace(/"resourceVersion":"\d+"/, `"resourceVersion":"${rv}"`);
}

function translate(f: Filter, ev: StoreEvent): string | undefined {
  const now = ev.type === 'DELETED' ? false : matches(f, ev.object);
  const before = ev.previous ? matches(f, ev.previous) : false;
  if (ev.type === 'ADDED') return now ? 'ADDED' : undefined;
  if (ev.type === 'DELETED') return before || matches(f, ev.object) ? 'DELETED' : undefined;
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  if (before) return 'DELETED';
  return undefined;
}

/** Serves a watch; `encodeObject` replaces the served form of each event's object (bookmarks and errors stay as they are). */
export function serveWatch(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, t: ResourceType, namespace: string | undefined, encodeObject?: ObjectEncoder): void {
  const q = ctx.query;
  const encode: ObjectEncoder = encodeObject ?? ((json) => servedJson(t, json));
  const filter: Filter = {
    namespace: t.namespaced ? namespace : undefined,
    labels: q.get('labelSelector') ? parseLabelSelectorParam(q.get('labelSelector') ?? '') : undefined,
    fields: q.get('fieldSelector') ? parseFieldSelector(q.get('fieldSelector') ?? '', `${t.group}/${t.resource}`) : undefined,
  };
  const rvParam = q.get('resourceVersion') ?? '';
  const cluster = ctx.cluster;
  const key = resourceKey(t);
  let backlog: StoreEvent[] = [];
  let initial: StoredObject[] = [];
  let startError: StatusError | undefined;
  if (rvParam === '' || rvParam === '0') {
    initial = cluster.store.list(key, filter.namespace).filter((o) => matches(filter, o));
  } else {
    const rv = Number(rvParam);
    if (!Number.isFinite(rv)) throw new StatusError(400, 'BadRequest', `invalid resource version: ${rvParam}`);
    const evs = cluster.store.eventsSince(rv, key);
    if (evs === undefined) startError = gone(`too old resource version: ${rv} (${cluster.store.rv})`);
    else backlog = evs;
  }
  let lastRv = cluster.store.rv;
  res.writeHead(200, { 'Content-Type': ctx.protobuf ? PROTOBUF_WATCH : 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  // A protobuf watch sends each JSON event line transcoded into a frame; JSON watches write the line as is.
  const write = ctx.protobuf ? (line: string) => res.write(watchEventFrame(line)) : (line: string) => res.write(line);
  if (startError) {
    write(`{"type":"ERROR","object":${JSON.stringify(startError.toStatus())}}\n`);
    res.end();
    return;
  }
  for (const o of initial) write(eventLine(encode, 'ADDED', o.json));
  for (const ev of backlog) {
    const line = eventFor(encode, filter, ev);
    if (line) write(line);
  }
  const unsubscribe = cluster.store.onCommit((ev) => {
    if (ev.resource !== key) return;
    lastRv = ev.rv;
    const line = eventFor(encode, filter, ev);
    if (line) write(line);
  });
  const timers: NodeJS.Timeout[] = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    detachFault?.();
    for (const tm of timers) clearTimeout(tm);
    res.end();
  };
  const detachFault = ctx.onWatchOpen?.(() => {
    closed = true;
    unsubscribe();
    for (const tm of timers) clearTimeout(tm);
    res.destroy();
  });
  if (q.get('allowWatchBookmarks') === 'true') {
    const iv = setInterval(() => {
      write(`{"type":"BOOKMARK","object":{"kind":${JSON.stringify(t.kind)},"apiVersion":${JSON.stringify(groupVersion(t))},"metadata":{"resourceVersion":"${Math.max(lastRv, cluster.store.rv)}","creationTimestamp":null}}}\n`);
    }, watchSettings.bookmarkIntervalMs);
    timers.push(iv);
  }
  const timeout = Number(q.get('timeoutSeconds') ?? '0');
  if (timeout > 0) timers.push(setTimeout(close, timeout * 1000));
  req.on('close', close);
  res.on('close', close);
}

