import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILTIN_TYPES } from '../../../src/apiserver/resources.js';
import { PACKAGE_ALIASES, allKinds, kindType, parseField, requestBodyType, typeDef, type FieldDef } from '../../../src/apiserver/types/index.js';

/** One field of a catalog type, by its JSON name. */
function field(alias: string, typeName: string, name: string): FieldDef {
  const t = typeDef(`${PACKAGE_ALIASES[alias]}.${typeName}`);
  assert.ok(t, `no type ${alias}.${typeName}`);
  const f = t.fields.find((x) => x.name === name);
  assert.ok(f, `${alias}.${typeName} has no field ${name}`);
  return f;
}

/** Spot checks of the group packages against k8s.io/api and apiextensions-apiserver (number, shape, omitempty). */
const SPOT_CHECKS: [alias: string, type: string, name: string, expected: Partial<FieldDef>][] = [
  ['apps', 'DeploymentSpec', 'progressDeadlineSeconds', { no: 9, pointer: true, omitEmpty: true }],
  ['apps', 'DeploymentSpec', 'template', { no: 3, type: 'io.k8s.api.core.v1.PodTemplateSpec', omitEmpty: false }],
  ['apps', 'DeploymentStatus', 'readyReplicas', { no: 7, type: 'int32' }],
  ['apps', 'DeploymentCondition', 'lastUpdateTime', { no: 6 }],
  ['apps', 'StatefulSetSpec', 'volumeClaimTemplates', { no: 4, list: true, type: 'io.k8s.api.core.v1.PersistentVolumeClaim' }],
  ['apps', 'StatefulSetStatus', 'availableReplicas', { no: 11, omitEmpty: false }],
  ['apps', 'RollingUpdateStatefulSetStrategy', 'maxUnavailable', { no: 2, type: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString', pointer: true }],
  ['apps', 'DaemonSetSpec', 'revisionHistoryLimit', { no: 6 }],
  ['apps', 'ReplicaSetStatus', 'terminatingReplicas', { no: 7, pointer: true }],
  ['batch', 'JobSpec', 'successPolicy', { no: 16, pointer: true }],
  ['batch', 'JobSpec', 'managedBy', { no: 15, type: 'string', pointer: true }],
  ['batch', 'JobStatus', 'terminating', { no: 11 }],
  ['batch', 'PodFailurePolicyRule', 'onPodConditions', { no: 3, list: true, omitEmpty: true }],
  ['batch', 'CronJobSpec', 'timeZone', { no: 8 }],
  ['batch', 'CronJobStatus', 'lastScheduleTime', { no: 4 }],
  ['networking', 'IngressSpec', 'ingressClassName', { no: 4 }],
  ['networking', 'IngressBackend', 'service', { no: 4 }],
  ['networking', 'IngressRule', 'ingressRuleValue', { no: 2, inline: true }],
  ['networking', 'HTTPIngressPath', 'pathType', { no: 3, pointer: true, omitEmpty: false }],
  ['networking', 'IngressLoadBalancerIngress', 'ports', { no: 4, list: true }],
  ['networking', 'NetworkPolicyPeer', 'ipBlock', { no: 3, list: false, pointer: true }],
  ['policy', 'PodDisruptionBudgetStatus', 'disruptedPods', { no: 2, map: true, type: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time' }],
  ['scheduling', 'PriorityClass', 'preemptionPolicy', { no: 5 }],
  ['coordination', 'LeaseSpec', 'renewTime', { no: 4, type: 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime' }],
  ['events', 'Event', 'metadata', { no: 1, omitEmpty: false }],
  ['events', 'Event', 'deprecatedCount', { no: 15 }],
  ['rbac', 'Role', 'rules', { no: 2, omitEmpty: false }],
  ['rbac', 'RoleRef', 'apiGroup', { no: 1, omitEmpty: false }],
  ['autoscalingv1', 'HorizontalPodAutoscalerSpec', 'targetCPUUtilizationPercentage', { no: 4 }],
  ['autoscalingv1', 'ScaleStatus', 'selector', { no: 2 }],
  ['autoscalingv2', 'HPAScalingRules', 'stabilizationWindowSeconds', { no: 3 }],
  ['autoscalingv2', 'HPAScalingRules', 'tolerance', { no: 4, type: 'io.k8s.apimachinery.pkg.api.resource.Quantity' }],
  ['autoscalingv2', 'MetricSpec', 'containerResource', { no: 7 }],
  ['autoscalingv2', 'HorizontalPodAutoscalerStatus', 'currentMetrics', { no: 5, omitEmpty: false }],
  ['admissionregistration', 'ValidatingWebhookConfiguration', 'webhooks', { no: 2, protoName: 'Webhooks', list: true }],
  ['admissionregistration', 'ValidatingWebhook', 'objectSelector', { no: 10 }],
  ['admissionregistration', 'ValidatingWebhook', 'matchConditions', { no: 11, list: true }],
  ['admissionregistration', 'MutatingWebhook', 'objectSelector', { no: 11 }],
  ['admissionregistration', 'MutatingWebhook', 'reinvocationPolicy', { no: 10 }],
  ['admissionregistration', 'MutatingWebhook', 'matchConditions', { no: 12 }],
  ['admissionregistration', 'RuleWithOperations', 'rule', { no: 2, inline: true }],
  ['admissionregistration', 'WebhookClientConfig', 'caBundle', { no: 2, type: 'bytes', list: false }],
  ['authentication', 'TokenRequestSpec', 'expirationSeconds', { no: 4, type: 'int64', pointer: true, omitEmpty: false }],
  ['authentication', 'BoundObjectReference', 'uid', { no: 4, protoName: 'uID' }],
  ['authentication', 'UserInfo', 'extra', { no: 4, map: true, type: 'io.k8s.api.authentication.v1.ExtraValue' }],
  ['authorization', 'SubjectAccessReviewStatus', 'denied', { no: 4 }],
  ['authorization', 'SubjectRulesReviewStatus', 'incomplete', { no: 3, type: 'bool', omitEmpty: false }],
  ['authorization', 'ResourceAttributes', 'labelSelector', { no: 9 }],
  ['apiextensions', 'CustomResourceDefinitionSpec', 'conversion', { no: 9 }],
  ['apiextensions', 'CustomResourceDefinitionStatus', 'storedVersions', { no: 3, omitEmpty: false }],
  ['apiextensions', 'CustomResourceDefinitionVersion', 'selectableFields', { no: 9, list: true }],
  ['apiextensions', 'WebhookConversion', 'clientConfig', { no: 2 }],
  ['apiextensions', 'JSONSchemaProps', '$ref', { no: 3, protoName: 'ref', pointer: true }],
  ['apiextensions', 'JSONSchemaProps', '$schema', { no: 2, protoName: 'schema' }],
  ['apiextensions', 'JSONSchemaProps', 'x-kubernetes-preserve-unknown-fields', { no: 38, protoName: 'xKubernetesPreserveUnknownFields', pointer: true }],
  ['apiextensions', 'JSONSchemaProps', 'x-kubernetes-validations', { no: 44, list: true }],
  ['apiextensions', 'JSONSchemaProps', 'dependencies', { no: 32, map: true, type: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray' }],
  ['apiextensions', 'JSONSchemaProps', 'items', { no: 24, type: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray' }],
  ['apiextensions', 'ValidationRule', 'optionalOldSelf', { no: 6 }],
];

describe('built-in type catalog: the API groups outside core/v1', () => {
  it('declares every built-in kind the server serves outside core/v1, as <package>.<Kind>', () => {
    const groups = BUILTIN_TYPES.filter((t) => t.group !== '' && !t.createOnly);
    assert.ok(groups.length >= 20);
    // The create-only kinds (access reviews) are request bodies: described, not declared.
    for (const t of BUILTIN_TYPES.filter((x) => x.createOnly)) assert.ok(requestBodyType(t.group, t.version, t.kind), `${t.kind} is described`);
    for (const t of groups) {
      const def = kindType(t.group, t.version, t.kind);
      assert.ok(def, `${t.group}/${t.version} ${t.kind} is not in the catalog`);
      assert.ok(def.name.endsWith(`.${t.kind}`), def.name);
      assert.ok(def.fields.some((f) => f.name === 'metadata' && f.no === 1), `${def.name}: metadata`);
    }
    assert.equal(kindType('autoscaling', 'v1', 'HorizontalPodAutoscaler')?.name, 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler');
    assert.equal(kindType('autoscaling', 'v2', 'HorizontalPodAutoscaler')?.name, 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler');
  });

  it('describes request bodies without lists as types only (Scale, TokenRequest, access reviews)', () => {
    for (const [alias, name] of [
      ['autoscalingv1', 'Scale'], ['authentication', 'TokenRequest'], ['authentication', 'SelfSubjectReview'],
      ['authorization', 'SelfSubjectAccessReview'], ['authorization', 'SelfSubjectRulesReview'], ['authorization', 'SubjectAccessReview'],
    ]) {
      assert.ok(typeDef(`${PACKAGE_ALIASES[alias]}.${name}`), name);
      assert.ok(![...allKinds()].some((k) => k.kind === name), `${name} declared as a kind`);
    }
    assert.equal(typeDef(`${PACKAGE_ALIASES.authentication}.ExtraValue`)?.special, 'stringList');
    assert.equal(typeDef(`${PACKAGE_ALIASES.apiextensions}.JSONSchemaPropsOrBool`)?.special, 'jsonSchemaPropsOrBool');
  });

  it('has the field numbers, shapes and omitempty of the upstream group types', () => {
    for (const [alias, type, name, expected] of SPOT_CHECKS) {
      const f = field(alias, type, name);
      for (const [key, value] of Object.entries(expected)) {
        assert.deepEqual(f[key as keyof FieldDef], value, `${alias}.${type}.${name}.${key}`);
      }
    }
    const schema = typeDef(`${PACKAGE_ALIASES.apiextensions}.JSONSchemaProps`);
    assert.deepEqual(schema?.fields.map((f) => f.no).sort((a, b) => a - b), Array.from({ length: 44 }, (_, i) => i + 1));
  });

  it('reads the options for JSON names that differ from protobuf names and for embedded structs', () => {
    assert.deepEqual(parseField('ref 19 *string omitempty json=$ref', 'x'), {
      name: '$ref', protoName: 'ref', no: 19, type: 'string', list: false, map: false, pointer: true, omitEmpty: true, inline: false,
    });
    assert.deepEqual(parseField('ingressRuleValue 2 IngressRuleValue inline', 'io.k8s.api.networking.v1'), {
      name: 'ingressRuleValue', no: 2, type: 'io.k8s.api.networking.v1.IngressRuleValue', list: false, map: false, pointer: false, omitEmpty: false, inline: true,
    });
    assert.equal(parseField('a 1 string json=a', 'x').protoName, undefined);
    assert.throws(() => parseField('ref 19 string json=', 'x'), /bad field line/);
    assert.throws(() => parseField('ref 19 string omitempty omitempty', 'x'), /bad field line/);
  });
});
