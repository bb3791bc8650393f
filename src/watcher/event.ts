// The runtime watcher's v2 contract: what the webhook in a runtime POSTs to the KCP listener.
//   POST /v2/<manager>/event
//   {"watched":{"Namespace":"kyma-system","Name":"default"},"watchedGvk":{"group":"operator.kyma-project.io","version":"v1beta2","kind":"Kyma"}}
// The capitalised keys of `watched` are upstream's wire format. The body names an object, never a
// runtime: the runtime is the Common Name of the client certificate.
import { isPlainObject } from '../kube/json.js';

export const CONTRACT_VERSION = 'v2';
/** Largest body the listener reads (upstream's limit). */
export const MAX_EVENT_BYTES = 16 * 1024;

export interface WatchEvent {
  watched: { namespace: string; name: string };
  watchedGvk: { group: string; version: string; kind: string };
}

/** The path of a manager's events. */
export function eventPath(manager: string): string {
  return `/${CONTRACT_VERSION}/${manager}/event`;
}

const EVENT_PATH = /^\/v2\/([^/]+)\/event\/?$/;

/** The manager a path addresses, or undefined when it is not an event path. */
export function managerOfPath(path: string): string | undefined {
  const m = EVENT_PATH.exec(path);
  return m ? decodeURIComponent(m[1]) : undefined;
}

export function encodeEvent(e: WatchEvent): string {
  return JSON.stringify({
    watched: { Namespace: e.watched.namespace, Name: e.watched.name },
    watchedGvk: { group: e.watchedGvk.group, version: e.watchedGvk.version, kind: e.watchedGvk.kind },
  });
}

/** Parses a body; throws a one-line reason for anything that is not a v2 event. */
export function decodeEvent(body: string): WatchEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    throw new Error('body is not JSON');
  }
  if (!isPlainObject(raw)) throw new Error('body is not a JSON object');
  const watched = raw.watched;
  const gvk = raw.watchedGvk;
  if (!isPlainObject(watched)) throw new Error('body has no "watched" object');
  if (!isPlainObject(gvk)) throw new Error('body has no "watchedGvk" object');
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const event: WatchEvent = {
    // Go's JSON decoding matches keys case-insensitively; so does this, for senders that lower-case them.
    watched: { namespace: text(watched.Namespace ?? watched.namespace), name: text(watched.Name ?? watched.name) },
    watchedGvk: { group: text(gvk.group ?? gvk.Group), version: text(gvk.version ?? gvk.Version), kind: text(gvk.kind ?? gvk.Kind) },
  };
  if (!event.watched.name) throw new Error('body names no watched object');
  if (!event.watchedGvk.kind || !event.watchedGvk.version) throw new Error('body names no watched kind');
  return event;
}
