// k8s.io/api admissionregistration/v1: the webhook configurations (fields as of Kubernetes 1.32).
// The ValidatingAdmissionPolicy types of the same package are not served and left out.
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.admissionregistration;

definePackage(pkg, {
  Rule: `
    apiGroups 1 []string omitempty
    apiVersions 2 []string omitempty
    resources 3 []string omitempty
    scope 4 *string omitempty`,
  // The protobuf name of webhooks is "Webhooks".
  ValidatingWebhookConfiguration: `
    metadata 1 meta.ObjectMeta omitempty
    Webhooks 2 []ValidatingWebhook omitempty json=webhooks`,
  ValidatingWebhookConfigurationList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []ValidatingWebhookConfiguration`,
  MutatingWebhookConfiguration: `
    metadata 1 meta.ObjectMeta omitempty
    Webhooks 2 []MutatingWebhook omitempty json=webhooks`,
  MutatingWebhookConfigurationList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []MutatingWebhookConfiguration`,
  ValidatingWebhook: `
    name 1 string
    clientConfig 2 WebhookClientConfig
    rules 3 []RuleWithOperations omitempty
    failurePolicy 4 *string omitempty
    matchPolicy 9 *string omitempty
    namespaceSelector 5 *meta.LabelSelector omitempty
    objectSelector 10 *meta.LabelSelector omitempty
    sideEffects 6 *string
    timeoutSeconds 7 *int32 omitempty
    admissionReviewVersions 8 []string
    matchConditions 11 []MatchCondition omitempty`,
  MutatingWebhook: `
    name 1 string
    clientConfig 2 WebhookClientConfig
    rules 3 []RuleWithOperations omitempty
    failurePolicy 4 *string omitempty
    matchPolicy 9 *string omitempty
    namespaceSelector 5 *meta.LabelSelector omitempty
    objectSelector 11 *meta.LabelSelector omitempty
    sideEffects 6 *string
    timeoutSeconds 7 *int32 omitempty
    admissionReviewVersions 8 []string
    reinvocationPolicy 10 *string omitempty
    matchConditions 12 []MatchCondition omitempty`,
  // Rule is embedded: its fields sit next to operations in JSON.
  RuleWithOperations: `
    operations 1 []string omitempty
    rule 2 Rule inline`,
  WebhookClientConfig: `
    url 3 *string omitempty
    service 1 *ServiceReference omitempty
    caBundle 2 []byte omitempty`,
  ServiceReference: `
    namespace 1 string
    name 2 string
    path 3 *string omitempty
    port 4 *int32 omitempty`,
  MatchCondition: `
    name 1 string
    expression 2 string`,
});

defineKind('admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', `${pkg}.ValidatingWebhookConfiguration`);
defineKind('admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration', `${pkg}.MutatingWebhookConfiguration`);
