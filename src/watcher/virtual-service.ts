// The Istio VirtualService of a Watcher, shaped as upstream builds it (internal/istio): named and
// namespaced as the Watcher, owned by it (a plain owner reference), bound to the selected Gateways
// (`<namespace>/<name>`) and their hosts, with one HTTP route `<watcherNamespace>/<watcherName>`
// matching the prefix `/v2/<manager>/event` and sending it to the listener Service.
import type { WatcherObject } from '../api/operator/index.js';
import type { KubeObject } from '../kube/object.js';
import { ISTIO_GROUP } from './constants.js';
import { eventPath } from './event.js';
import { managerOf } from './validate.js';

export interface GatewayObject extends KubeObject {
  spec?: { servers?: { hosts?: string[] }[] };
}

export interface VirtualServiceObject extends KubeObject {
  spec: {
    gateways: string[];
    hosts: string[];
    http: {
      name: string;
      match: { uri: { prefix: string } }[];
      route: { destination: { host: string; port: { number: number } } }[];
    }[];
  };
}

/** A Gateway without hosts cannot carry the route (upstream refuses it too). */
export class GatewayError extends Error {
  override name = 'GatewayError';
}


/** The label selector text of a metav1.LabelSelector (matchLabels, then matchExpressions). */
export function selectorText(sel: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {}).sort(([a], [b]) => a.localeCompare(b))) parts.push(`${k}=${v}`);
  for (const e of sel?.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

const nameOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** The VirtualService a valid Watcher needs, given the selected Gateways (at least one) and the served Istio version. */
export function desiredVirtualService(w: WatcherObject, gateways: GatewayObject[], version: string): VirtualServiceObject {
  const sorted = [...gateways].sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
  const hosts: string[] = [];
  for (const g of sorted) {
    const own = (g.spec?.servers ?? []).flatMap((s) => s.hosts ?? []);
    if (own.length === 0) throw new GatewayError(`Gateway ${nameOf(g)} has no server hosts`);
    hosts.push(...own);
  }
  const si = w.spec.serviceInfo;
  return {
    apiVersion: `${ISTIO_GROUP}/${version}`,
    kind: 'VirtualService',
    metadata: {
      name: w.metadata.name,
      namespace: w.metadata.namespace,
      ownerReferences: [{ apiVersion: w.apiVersion, kind: w.kind, name: w.metadata.name ?? '', uid: w.metadata.uid ?? '' }],
    },
    spec: {
      gateways: sorted.map(nameOf),
      hosts,
      http: [
        {
          name: nameOf(w),
          match: [{ uri: { prefix: eventPath(managerOf(w) ?? '') } }],
          route: [{ destination: { host: `${si.name}.${si.namespace}.svc.cluster.local`, port: { number: si.port } } }],
        },
      ],
    },
  };
}
