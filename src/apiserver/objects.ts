// Small helpers for reading and writing object JSON with kube's conventions.
import { randomUUID } from 'node:crypto';
import type { ResourceType } from './resources.js';
import { groupVersion, storageVersionOf } from './resources.js';
import { eventFromCore, fromStorageVersion } from './builtin/index.js';
import type { ObjectWithMeta } from '../kube/object.js';
import { canonicalJson } from '../kube/json.js';

/** The current second's text: every write asks for it two or three times. */
let lastSecond = NaN;
let lastText = '';

/** RFC 3339 with seconds, as metav1.Time serializes (now when no date is given). */
export function nowRfc3339(d?: Date): string {
  if (d) return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}

export function newUid(): string {
  return randomUUID();
}

/**
 * Serializes an object as kube-apiserver writes it: built-in kinds with `kind` and `apiVersion` first
 * (the order of their Go struct fields), custom resources with keys sorted at every level (they are
 * unstructured maps there, and Go encodes maps with sorted keys).
 */
export function serialize(t: ResourceType, obj: ObjectWithMeta, apiVersion = groupVersion(t)): string {
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  if (t.crd) return canonicalJson({ ...rest, apiVersion, kind: t.kind });
  return JSON.stringify({ kind: t.kind, apiVersion, ...rest });
}

/** Length of the `{"kind":"X","apiVersion":"Y",` prefix that serialize() writes. */
export function typePrefix(t: ResourceType, apiVersion = groupVersion(t)): string {
  return `{"kind":${JSON.stringify(t.kind)},"apiVersion":${JSON.stringify(apiVersion)},`;
}

/** The stored JSON as served for the type's version (custom resources and built-in beta versions may be stored under another version). */
export function servedJson(t: ResourceType, json: string): string {
  if (t.storedAs) return serialize(t, eventFromCore(JSON.parse(json) as ObjectWithMeta));
  if (storageVersionOf(t) === t.version) return json;
  if (t.crd) return withApiVersion(json, groupVersion(t));
  return serialize(t, fromStorageVersion(t.group, t.version, t.kind, JSON.parse(json) as ObjectWithMeta));
}

/** Items of built-in lists carry no kind/apiVersion (typed lists); custom resources keep theirs. */
export function listItemJson(t: ResourceType, json: string): string {
  if (t.crd) return servedJson(t, json);
  json = servedJson(t, json);
  const prefix = typePrefix(t);
  return json.startsWith(prefix) ? `{${json.slice(prefix.length)}` : json;
}

/** A stored custom resource served as another version of its kind (conversion strategy None); its keys stay sorted. */
export function withApiVersion(json: string, apiVersion: string): string {
  const o = JSON.parse(json) as ObjectWithMeta;
  o.apiVersion = apiVersion;
  return JSON.stringify(o);
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export function isDns1123Subdomain(s: string): boolean {
  return s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
}

/** Random suffix of generateName: 5 characters from kube's alphabet (no vowels, no confusables). */
export function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
}
