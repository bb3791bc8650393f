// k8s.io/api authentication/v1 (fields as of Kubernetes 1.32). TokenReview, TokenRequest and
// SelfSubjectReview are create-only request bodies without lists: described, not declared as kinds.
import { PACKAGE_ALIASES, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.authentication;

definePackage(pkg, {
  TokenReview: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 TokenReviewSpec
    status 3 TokenReviewStatus omitempty`,
  TokenReviewSpec: `
    token 1 string omitempty
    audiences 2 []string omitempty`,
  TokenReviewStatus: `
    authenticated 1 bool omitempty
    user 2 UserInfo omitempty
    audiences 4 []string omitempty
    error 3 string omitempty`,
  UserInfo: `
    username 1 string omitempty
    uid 2 string omitempty
    groups 3 []string omitempty
    extra 4 map[string]ExtraValue omitempty`,
  ExtraValue: { special: 'stringList', fields: 'items 1 []string' },
  TokenRequest: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 TokenRequestSpec
    status 3 TokenRequestStatus omitempty`,
  // expirationSeconds and boundObjectRef have no omitempty.
  TokenRequestSpec: `
    audiences 1 []string
    expirationSeconds 4 *int64
    boundObjectRef 3 *BoundObjectReference`,
  TokenRequestStatus: `
    token 1 string
    expirationTimestamp 2 meta.Time`,
  // The protobuf name of uid is "uID".
  BoundObjectReference: `
    kind 1 string omitempty
    apiVersion 2 string omitempty
    name 3 string omitempty
    uID 4 string omitempty json=uid`,
  SelfSubjectReview: `
    metadata 1 meta.ObjectMeta omitempty
    status 2 SelfSubjectReviewStatus omitempty`,
  SelfSubjectReviewStatus: `
    userInfo 1 UserInfo omitempty`,
});
