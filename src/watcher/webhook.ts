// The runtime side of the watcher: the validating admission webhook `skr-webhook` in every runtime.
// It always allows; when the watched part of an object changed it tells the KCP (event.ts).
//   CREATE, DELETE: always an event.
//   UPDATE: an event when `spec` changed (`status` for the status subresource); objects without
//           that field always give one. So the lifecycle manager's own status and label writes
//           do not echo back.
//   A write made under one of the ignored field managers (the lifecycle manager's own, which the
//   KCP puts into the Deployment as IGNORED_FIELD_MANAGERS) gives no event on the webhook paths of
//   the managers they are ignored for (IGNORED_FIELD_MANAGERS_FOR; all when unset): the lifecycle
//   manager knows what it wrote, and a fleet being installed would otherwise send an event for
//   every object it creates. (Upstream's image forwards these; the KCP copes with both.)
import { jsonEqual, isPlainObject } from '../kube/json.js';
import type { WatchEvent } from './event.js';

export const WEBHOOK_PATH_PREFIX = '/validate/';

export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  subResource?: string;
  namespace?: string;
  name?: string;
  operation: string;
  object?: Record<string, unknown> | null;
  oldObject?: Record<string, unknown> | null;
  /** The request's CreateOptions, UpdateOptions (a patch's too) or DeleteOptions. */
  options?: { fieldManager?: string } | null;
}

export interface Decision {
  /** The AdmissionReview to answer with (always allowed). */
  review: Record<string, unknown>;
  /** The event to send to the KCP, if any. */
  event?: WatchEvent;
}

/** The manager a webhook path names (`/validate/<manager>`), or undefined. */
export function managerOfWebhookPath(path: string): string | undefined {
  if (!path.startsWith(WEBHOOK_PATH_PREFIX)) return undefined;
  const rest = decodeURIComponent(path.slice(WEBHOOK_PATH_PREFIX.length).replace(/\/$/, ''));
  return rest && !rest.includes('/') ? rest : undefined;
}

function metaOf(o: Record<string, unknown> | null | undefined): { namespace?: string; name?: string } {
  const m = o && isPlainObject(o.metadata) ? o.metadata : {};
  return { namespace: typeof m.namespace === 'string' ? m.namespace : undefined, name: typeof m.name === 'string' ? m.name : undefined };
}

function watchedPartChanged(req: AdmissionRequest): boolean {
  const field = req.subResource === 'status' ? 'status' : 'spec';
  const now = req.object ?? undefined;
  const before = req.oldObject ?? undefined;
  if (!now || !before || !(field in now)) return true;
  return !jsonEqual(now[field], before[field]);
}

/** Parses an AdmissionReview body; throws a one-line reason. */
export function admissionRequestOf(body: unknown): AdmissionRequest {
  if (!isPlainObject(body) || !isPlainObject(body.request)) throw new Error('not an AdmissionReview with a request');
  const r = body.request;
  if (typeof r.uid !== 'string' || !isPlainObject(r.kind) || typeof r.operation !== 'string') throw new Error('the AdmissionReview request lacks uid, kind or operation');
  return r as unknown as AdmissionRequest;
}

/** Writes that give no event: their field managers, on the webhook paths of which event managers. */
export interface IgnoredWrites {
  fieldManagers: ReadonlySet<string>;
  /** Event managers (`/validate/<manager>`) the field managers are ignored for; undefined: all. */
  forManagers?: ReadonlySet<string>;
}

function commaList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** Reads IGNORED_FIELD_MANAGERS and IGNORED_FIELD_MANAGERS_FOR (comma-separated; blanks dropped). */
export function parseIgnoredWrites(fieldManagers: string | undefined, forManagers: string | undefined): IgnoredWrites {
  const only = commaList(forManagers);
  return { fieldManagers: new Set(commaList(fieldManagers)), ...(only.length > 0 ? { forManagers: new Set(only) } : {}) };
}

/** Allows the request (on the webhook path of `eventManager`) and says whether the KCP must hear about it. */
export function decide(req: AdmissionRequest, ignored?: IgnoredWrites, eventManager?: string): Decision {
  const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: req.uid, allowed: true } };
  const fieldManager = isPlainObject(req.options) && typeof req.options.fieldManager === 'string' ? req.options.fieldManager : undefined;
  const applies = ignored !== undefined && (ignored.forManagers === undefined || (eventManager !== undefined && ignored.forManagers.has(eventManager)));
  if (applies && fieldManager !== undefined && ignored.fieldManagers.has(fieldManager)) return { review };
  const forward = req.operation === 'CREATE' || req.operation === 'DELETE' || (req.operation === 'UPDATE' && watchedPartChanged(req));
  if (!forward) return { review };
  const meta = metaOf(req.object ?? req.oldObject);
  const event: WatchEvent = {
    watched: { namespace: req.namespace ?? meta.namespace ?? '', name: req.name || meta.name || '' },
    watchedGvk: { group: req.kind.group, version: req.kind.version, kind: req.kind.kind },
  };
  return { review, event };
}
