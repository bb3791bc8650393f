// Naming one object: its key (namespace and name) and the `namespace/name` string of it.

export interface ObjectKey {
  namespace?: string;
  name: string;
}

/** The key of an object, as the clients' get, patch and delete take it. */
export function objectKey(o: { metadata: { namespace?: string; name?: string } }): ObjectKey {
  return { namespace: o.metadata.namespace, name: o.metadata.name ?? '' };
}

/**
 * `namespace/name`, or `name` for cluster-scoped objects (Go's `types.NamespacedName.String()`): the
 * work-queue key of controllers and the key of the informer cache.
 */
export function namespacedName(o: { metadata: { namespace?: string; name?: string } } | ObjectKey): string {
  const m = 'metadata' in o ? o.metadata : o;
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

/** The key back from a `namespacedName` string. */
export function parseNamespacedName(key: string): ObjectKey {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
