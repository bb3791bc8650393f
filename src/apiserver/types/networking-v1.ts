// k8s.io/api networking/v1: NetworkPolicy and Ingress (fields as of Kubernetes 1.32).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.networking;

definePackage(pkg, {
  // Field 3 (status) is reserved: NetworkPolicy has no status.
  NetworkPolicy: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 NetworkPolicySpec omitempty`,
  NetworkPolicySpec: `
    podSelector 1 meta.LabelSelector
    ingress 2 []NetworkPolicyIngressRule omitempty
    egress 3 []NetworkPolicyEgressRule omitempty
    policyTypes 4 []string omitempty`,
  NetworkPolicyIngressRule: `
    ports 1 []NetworkPolicyPort omitempty
    from 2 []NetworkPolicyPeer omitempty`,
  NetworkPolicyEgressRule: `
    ports 1 []NetworkPolicyPort omitempty
    to 2 []NetworkPolicyPeer omitempty`,
  NetworkPolicyPort: `
    protocol 1 *string omitempty
    port 2 *intstr.IntOrString omitempty
    endPort 3 *int32 omitempty`,
  IPBlock: `
    cidr 1 string
    except 2 []string omitempty`,
  NetworkPolicyPeer: `
    podSelector 1 *meta.LabelSelector omitempty
    namespaceSelector 2 *meta.LabelSelector omitempty
    ipBlock 3 *IPBlock omitempty`,
  NetworkPolicyList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []NetworkPolicy`,

  Ingress: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 IngressSpec omitempty
    status 3 IngressStatus omitempty`,
  IngressList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Ingress`,
  IngressSpec: `
    ingressClassName 4 *string omitempty
    defaultBackend 1 *IngressBackend omitempty
    tls 2 []IngressTLS omitempty
    rules 3 []IngressRule omitempty`,
  IngressTLS: `
    hosts 1 []string omitempty
    secretName 2 string omitempty`,
  IngressStatus: `
    loadBalancer 1 IngressLoadBalancerStatus omitempty`,
  IngressLoadBalancerStatus: `
    ingress 1 []IngressLoadBalancerIngress omitempty`,
  IngressLoadBalancerIngress: `
    ip 1 string omitempty
    hostname 2 string omitempty
    ports 4 []IngressPortStatus omitempty`,
  IngressPortStatus: `
    port 1 int32
    protocol 2 string
    error 3 *string omitempty`,
  // IngressRuleValue is embedded: its fields (http) appear in the rule's JSON object itself.
  IngressRule: `
    host 1 string omitempty
    ingressRuleValue 2 IngressRuleValue inline`,
  IngressRuleValue: `
    http 1 *HTTPIngressRuleValue omitempty`,
  HTTPIngressRuleValue: `
    paths 1 []HTTPIngressPath`,
  HTTPIngressPath: `
    path 1 string omitempty
    pathType 3 *string
    backend 2 IngressBackend`,
  IngressBackend: `
    service 4 *IngressServiceBackend omitempty
    resource 3 *core.TypedLocalObjectReference omitempty`,
  IngressServiceBackend: `
    name 1 string
    port 2 ServiceBackendPort omitempty`,
  ServiceBackendPort: `
    name 1 string omitempty
    number 2 int32 omitempty`,
});

defineKind('networking.k8s.io', 'v1', 'NetworkPolicy', `${pkg}.NetworkPolicy`);
defineKind('networking.k8s.io', 'v1', 'Ingress', `${pkg}.Ingress`);
