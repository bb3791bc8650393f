// Minimal CRDs of Istio's networking.istio.io VirtualService and Gateway (served in v1beta1 and v1,
// as Istio does), to install Istio's API into a test KCP; the bodies are not validated.
import type { KubeObject } from '../../src/kube/object.js';

function crd(kind: string, plural: string): KubeObject {
  const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.networking.istio.io` },
    spec: {
      group: 'networking.istio.io',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v1beta1', served: true, storage: false, schema },
      ],
    },
  };
}

export const ISTIO_CRDS: KubeObject[] = [crd('VirtualService', 'virtualservices'), crd('Gateway', 'gateways')];
export const VIRTUAL_SERVICE = { apiVersion: 'networking.istio.io/v1beta1', kind: 'VirtualService' } as const;
export const GATEWAY = { apiVersion: 'networking.istio.io/v1beta1', kind: 'Gateway' } as const;

/** A Gateway like upstream's watcher gateway: HTTPS with mutual TLS for one host. */
export function gateway(name: string, namespace: string, labels: Record<string, string>, hosts: string[]): KubeObject {
  return {
    apiVersion: GATEWAY.apiVersion,
    kind: GATEWAY.kind,
    metadata: { name, namespace, labels },
    spec: {
      selector: { istio: 'ingressgateway' },
      servers: [{ hosts, port: { name: 'https', number: 443, protocol: 'HTTPS' }, tls: { mode: 'MUTUAL', credentialName: 'klm-watcher-root-secret' } }],
    },
  };
}
