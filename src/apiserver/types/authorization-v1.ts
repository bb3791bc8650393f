// k8s.io/api authorization/v1 (fields as of Kubernetes 1.32). The access and rules reviews are
// create-only request bodies without lists: described, not declared as kinds.
import { PACKAGE_ALIASES, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.authorization;

definePackage(pkg, {
  SubjectAccessReview: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 SubjectAccessReviewSpec
    status 3 SubjectAccessReviewStatus omitempty`,
  SelfSubjectAccessReview: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 SelfSubjectAccessReviewSpec
    status 3 SubjectAccessReviewStatus omitempty`,
  LocalSubjectAccessReview: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 SubjectAccessReviewSpec
    status 3 SubjectAccessReviewStatus omitempty`,
  ResourceAttributes: `
    namespace 1 string omitempty
    verb 2 string omitempty
    group 3 string omitempty
    version 4 string omitempty
    resource 5 string omitempty
    subresource 6 string omitempty
    name 7 string omitempty
    fieldSelector 8 *FieldSelectorAttributes omitempty
    labelSelector 9 *LabelSelectorAttributes omitempty`,
  LabelSelectorAttributes: `
    rawSelector 1 string omitempty
    requirements 2 []meta.LabelSelectorRequirement omitempty`,
  FieldSelectorAttributes: `
    rawSelector 1 string omitempty
    requirements 2 []meta.FieldSelectorRequirement omitempty`,
  NonResourceAttributes: `
    path 1 string omitempty
    verb 2 string omitempty`,
  SubjectAccessReviewSpec: `
    resourceAttributes 1 *ResourceAttributes omitempty
    nonResourceAttributes 2 *NonResourceAttributes omitempty
    user 3 string omitempty
    groups 4 []string omitempty
    extra 5 map[string]ExtraValue omitempty
    uid 6 string omitempty`,
  ExtraValue: { special: 'stringList', fields: 'items 1 []string' },
  SelfSubjectAccessReviewSpec: `
    resourceAttributes 1 *ResourceAttributes omitempty
    nonResourceAttributes 2 *NonResourceAttributes omitempty`,
  SubjectAccessReviewStatus: `
    allowed 1 bool
    denied 4 bool omitempty
    reason 2 string omitempty
    evaluationError 3 string omitempty`,
  SelfSubjectRulesReview: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 SelfSubjectRulesReviewSpec
    status 3 SubjectRulesReviewStatus omitempty`,
  SelfSubjectRulesReviewSpec: `
    namespace 1 string omitempty`,
  // resourceRules, nonResourceRules and incomplete have no omitempty.
  SubjectRulesReviewStatus: `
    resourceRules 1 []ResourceRule
    nonResourceRules 2 []NonResourceRule
    incomplete 3 bool
    evaluationError 4 string omitempty`,
  ResourceRule: `
    verbs 1 []string
    apiGroups 2 []string omitempty
    resources 3 []string omitempty
    resourceNames 4 []string omitempty`,
  NonResourceRule: `
    verbs 1 []string
    nonResourceURLs 2 []string omitempty`,
});
