// What kube-controller-manager puts into every namespace: the `default` ServiceAccount (its
// `serviceaccount` controller) and the ConfigMap `kube-root-ca.crt` holding the cluster's CA
// certificate (its `root-ca-cert-publisher`). Both react to events only, as upstream's do: a
// namespace added or updated, the ServiceAccount deleted, the ConfigMap changed or deleted. There
// is no periodic scan; after a restart from disk every namespace is looked at once (what
// upstream's informers do when they list at start).
import type { LogicalCluster } from './cluster.js';
import { BUILTIN_TYPES, resourceKey, type ResourceType } from './resources.js';
import { deepClone, isPlainObject, jsonEqual } from '../kube/json.js';
import type { ObjectWithMeta } from '../kube/object.js';

/** Controller names, as kube-controller-manager's `--controllers` flag spells them. */
export type NamespaceDefaultsController = 'serviceaccount' | 'root-ca-cert-publisher';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** The annotation upstream's publisher sets (rootcacertpublisher.DescriptionAnnotation and Description). */
export const ROOT_CA_DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

const MANAGER = 'kube-controller-manager';
const builtin = (kind: string): ResourceType => BUILTIN_TYPES.find((t) => t.group === '' && t.kind === kind)!;
const NAMESPACE = builtin('Namespace');
const SERVICE_ACCOUNT = builtin('ServiceAccount');
const CONFIG_MAP = builtin('ConfigMap');

export interface NamespaceDefaultsOptions {
  /** Create the `default` ServiceAccount in every namespace. */
  serviceAccount: boolean;
  /** The CA certificate (PEM) to publish as `kube-root-ca.crt`; none: not published. */
  rootCaPem: string | undefined;
}

function terminating(ns: ObjectWithMeta): boolean {
  const phase = isPlainObject(ns.status) ? ns.status.phase : undefined;
  return !!ns.metadata.deletionTimestamp || phase === 'Terminating';
}

/** Reads only what is needed: most syncs find an active namespace with everything in place. */
function storedTerminating(json: string): boolean {
  if (!json.includes('"deletionTimestamp"') && !json.includes('"Terminating"')) return false;
  return terminating(JSON.parse(json) as ObjectWithMeta);
}

export class NamespaceDefaults {
  constructor(
    private readonly cluster: LogicalCluster,
    private readonly opts: NamespaceDefaultsOptions,
  ) {}

  /** The namespace a committed change asks to look at again, if any. */
  affected(t: ResourceType, obj: ObjectWithMeta | undefined, old: ObjectWithMeta | undefined): string | undefined {
    if (t.group !== '') return undefined;
    if (t.kind === 'Namespace') return obj && !terminating(obj) ? obj.metadata.name : undefined;
    if (t.kind === 'ServiceAccount' && this.opts.serviceAccount) {
      return !obj && old?.metadata.name === DEFAULT_SERVICE_ACCOUNT ? old.metadata.namespace : undefined;
    }
    if (t.kind === 'ConfigMap' && this.opts.rootCaPem !== undefined) {
      // Updated or deleted, not created: the publisher's own create needs no second look.
      return old?.metadata.name === ROOT_CA_CONFIGMAP ? old.metadata.namespace : undefined;
    }
    return undefined;
  }

  /** Every namespace of the cluster (after a restore from disk). */
  namespaces(): string[] {
    return this.cluster.store.list(resourceKey(NAMESPACE)).map((o) => o.name);
  }

  /** Puts what is missing or changed back, unless the namespace is gone or terminating. */
  async sync(namespace: string): Promise<void> {
    const store = this.cluster.store;
    const ns = store.get(resourceKey(NAMESPACE), '', namespace);
    if (!ns || storedTerminating(ns.json)) return;
    const write = { internal: true, fieldManager: MANAGER };
    if (this.opts.serviceAccount && !store.get(resourceKey(SERVICE_ACCOUNT), namespace, DEFAULT_SERVICE_ACCOUNT)) {
      await this.cluster.create(SERVICE_ACCOUNT, namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT } }, write);
    }
    const caPem = this.opts.rootCaPem;
    if (caPem === undefined) return;
    const data = { 'ca.crt': caPem };
    const stored = store.get(resourceKey(CONFIG_MAP), namespace, ROOT_CA_CONFIGMAP);
    if (!stored) {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [ROOT_CA_DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } }, data };
      await this.cluster.create(CONFIG_MAP, namespace, body, write);
      return;
    }
    // As upstream: the data must match and the description be there (any non-empty text will do).
    const cm = JSON.parse(stored.json) as ObjectWithMeta;
    if (jsonEqual(cm.data, data) && cm.metadata.annotations?.[ROOT_CA_DESCRIPTION_ANNOTATION]) return;
    const next = deepClone(cm);
    next.data = data;
    next.metadata.annotations = { ...next.metadata.annotations, [ROOT_CA_DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION };
    await this.cluster.update(CONFIG_MAP, namespace, ROOT_CA_CONFIGMAP, next, write);
  }
}
