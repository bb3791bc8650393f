// A Client that notes every request as the API server's authorizer sees it (verb, kind, namespace,
// subresource) before passing it on, so that a test can check the requests against RBAC rules.
import type { Client } from '../../src/runtime/client/interface.js';
import type { KindRef } from '../../src/kube/object.js';

export interface RecordedRequest {
  verb: string;
  kind: KindRef;
  namespace?: string;
  subresource?: string;
  /** The object's name, where the request names one. */
  name?: string;
}

export function recordingClient(inner: Client, log: RecordedRequest[]): Client {
  const note = (verb: string, kind: KindRef, namespace?: string, subresource?: string, name?: string) =>
    log.push({ verb, kind: { apiVersion: kind.apiVersion, kind: kind.kind }, namespace, subresource, name });
  const wrapped: Partial<Client> = {
    get: (kind, key, opts) => (note('get', kind, key.namespace, undefined, key.name), inner.get(kind, key, opts)),
    list: (kind, opts) => (note('list', kind, opts?.namespace), inner.list(kind, opts)),
    watch: (kind, opts) => (note('watch', kind, opts?.namespace), inner.watch(kind, opts)),
    create: (obj, opts) => (note('create', obj, obj.metadata.namespace, undefined, obj.metadata.name), inner.create(obj, opts)),
    update: (obj, opts) => (note('update', obj, obj.metadata.namespace, undefined, obj.metadata.name), inner.update(obj, opts)),
    updateStatus: (obj, opts) => (note('update', obj, obj.metadata.namespace, 'status', obj.metadata.name), inner.updateStatus(obj, opts)),
    patch: (kind, key, type, patch, opts) => (note('patch', kind, key.namespace, opts?.subresource, key.name), inner.patch(kind, key, type, patch, opts)),
    apply: (obj, opts) => (note('patch', obj, obj.metadata.namespace, opts.subresource, obj.metadata.name), inner.apply(obj, opts)),
    delete: (kind, key, opts) => (note('delete', kind, key.namespace, undefined, key.name), inner.delete(kind, key, opts)),
  };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop in wrapped) return wrapped[prop as keyof Client];
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
