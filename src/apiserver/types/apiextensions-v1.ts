// k8s.io/apiextensions-apiserver apiextensions/v1: CustomResourceDefinition and the JSONSchemaProps tree
// (fields as of the Kubernetes master branch after 1.34: the conditions' and status' observedGeneration
// of feature CRDObservedGenerationTracking are the newest; ConversionReview is not served and left out).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.apiextensions;

definePackage(pkg, {
  CustomResourceDefinition: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 CustomResourceDefinitionSpec
    status 3 CustomResourceDefinitionStatus omitempty`,
  CustomResourceDefinitionList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []CustomResourceDefinition`,
  CustomResourceDefinitionSpec: `
    group 1 string
    names 3 CustomResourceDefinitionNames
    scope 4 string
    versions 7 []CustomResourceDefinitionVersion
    conversion 9 *CustomResourceConversion omitempty
    preserveUnknownFields 10 bool omitempty`,
  CustomResourceConversion: `
    strategy 1 string
    webhook 2 *WebhookConversion omitempty`,
  WebhookConversion: `
    clientConfig 2 *WebhookClientConfig omitempty
    conversionReviewVersions 3 []string`,
  WebhookClientConfig: `
    url 3 *string omitempty
    service 1 *ServiceReference omitempty
    caBundle 2 []byte omitempty`,
  ServiceReference: `
    namespace 1 string
    name 2 string
    path 3 *string omitempty
    port 4 *int32 omitempty`,
  CustomResourceDefinitionVersion: `
    name 1 string
    served 2 bool
    storage 3 bool
    deprecated 7 bool omitempty
    deprecationWarning 8 *string omitempty
    schema 4 *CustomResourceValidation omitempty
    subresources 5 *CustomResourceSubresources omitempty
    additionalPrinterColumns 6 []CustomResourceColumnDefinition omitempty
    selectableFields 9 []SelectableField omitempty`,
  SelectableField: `
    jsonPath 1 string`,
  CustomResourceColumnDefinition: `
    name 1 string
    type 2 string
    format 3 string omitempty
    description 4 string omitempty
    priority 5 int32 omitempty
    jsonPath 6 string`,
  CustomResourceDefinitionNames: `
    plural 1 string
    singular 2 string omitempty
    shortNames 3 []string omitempty
    kind 4 string
    listKind 5 string omitempty
    categories 6 []string omitempty`,
  CustomResourceDefinitionCondition: `
    type 1 string
    status 2 string
    lastTransitionTime 3 meta.Time omitempty
    reason 4 string omitempty
    message 5 string omitempty
    observedGeneration 6 int64 omitempty`,
  // conditions, acceptedNames and storedVersions have no omitempty.
  CustomResourceDefinitionStatus: `
    conditions 1 []CustomResourceDefinitionCondition
    acceptedNames 2 CustomResourceDefinitionNames
    storedVersions 3 []string
    observedGeneration 4 int64 omitempty`,
  CustomResourceValidation: `
    openAPIV3Schema 1 *JSONSchemaProps omitempty`,
  CustomResourceSubresources: `
    status 1 *CustomResourceSubresourceStatus omitempty
    scale 2 *CustomResourceSubresourceScale omitempty`,
  CustomResourceSubresourceStatus: '',
  CustomResourceSubresourceScale: `
    specReplicasPath 1 string
    statusReplicasPath 2 string
    labelSelectorPath 3 *string omitempty`,

  // The JSON names $schema, $ref and x-kubernetes-* differ from the protobuf names.
  // dependencies (JSONSchemaDependencies) and definitions (JSONSchemaDefinitions) are named Go maps.
  JSONSchemaProps: `
    id 1 string omitempty
    schema 2 string omitempty json=$schema
    ref 3 *string omitempty json=$ref
    description 4 string omitempty
    type 5 string omitempty
    format 6 string omitempty
    title 7 string omitempty
    default 8 *JSON omitempty
    maximum 9 *float64 omitempty
    exclusiveMaximum 10 bool omitempty
    minimum 11 *float64 omitempty
    exclusiveMinimum 12 bool omitempty
    maxLength 13 *int64 omitempty
    minLength 14 *int64 omitempty
    pattern 15 string omitempty
    maxItems 16 *int64 omitempty
    minItems 17 *int64 omitempty
    uniqueItems 18 bool omitempty
    multipleOf 19 *float64 omitempty
    enum 20 []JSON omitempty
    maxProperties 21 *int64 omitempty
    minProperties 22 *int64 omitempty
    required 23 []string omitempty
    items 24 *JSONSchemaPropsOrArray omitempty
    allOf 25 []JSONSchemaProps omitempty
    oneOf 26 []JSONSchemaProps omitempty
    anyOf 27 []JSONSchemaProps omitempty
    not 28 *JSONSchemaProps omitempty
    properties 29 map[string]JSONSchemaProps omitempty
    additionalProperties 30 *JSONSchemaPropsOrBool omitempty
    patternProperties 31 map[string]JSONSchemaProps omitempty
    dependencies 32 map[string]JSONSchemaPropsOrStringArray omitempty
    additionalItems 33 *JSONSchemaPropsOrBool omitempty
    definitions 34 map[string]JSONSchemaProps omitempty
    externalDocs 35 *ExternalDocumentation omitempty
    example 36 *JSON omitempty
    nullable 37 bool omitempty
    xKubernetesPreserveUnknownFields 38 *bool omitempty json=x-kubernetes-preserve-unknown-fields
    xKubernetesEmbeddedResource 39 bool omitempty json=x-kubernetes-embedded-resource
    xKubernetesIntOrString 40 bool omitempty json=x-kubernetes-int-or-string
    xKubernetesListMapKeys 41 []string omitempty json=x-kubernetes-list-map-keys
    xKubernetesListType 42 *string omitempty json=x-kubernetes-list-type
    xKubernetesMapType 43 *string omitempty json=x-kubernetes-map-type
    xKubernetesValidations 44 []ValidationRule omitempty json=x-kubernetes-validations`,
  ValidationRule: `
    rule 1 string
    message 2 string omitempty
    messageExpression 3 string omitempty
    reason 4 *string omitempty
    fieldPath 5 string omitempty
    optionalOldSelf 6 *bool omitempty`,
  ExternalDocumentation: `
    description 1 string omitempty
    url 2 string omitempty`,
  // The specials have no JSON tags of their own; their protobuf fields are listed for the wire codec.
  JSON: { special: 'json', fields: 'raw 1 []byte' },
  JSONSchemaPropsOrArray: { special: 'jsonSchemaPropsOrArray', fields: 'schema 1 *JSONSchemaProps\njSONSchemas 2 []JSONSchemaProps' },
  JSONSchemaPropsOrBool: { special: 'jsonSchemaPropsOrBool', fields: 'allows 1 bool\nschema 2 *JSONSchemaProps' },
  JSONSchemaPropsOrStringArray: { special: 'jsonSchemaPropsOrStringArray', fields: 'schema 1 *JSONSchemaProps\nproperty 2 []string' },
});

defineKind('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', `${pkg}.CustomResourceDefinition`);
