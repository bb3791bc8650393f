// Replays the corpus scenarios that exercise field management and holds the results to the golden transcripts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type JsonObject, isPlainObject } from '../../../src/kube/json.js';
import type { ObjectWithMeta } from '../../../src/kube/object.js';
import { loadScenario } from '../../conformance/corpus.js';
import { builtinSchema, schemaFromOpenAPI } from '../../../src/apiserver/fieldmanager/schema.js';
import type { SchemaNode } from '../../../src/apiserver/fieldmanager/schema.js';
import { comparable, replay } from '../../support/fieldmanager-harness.js';

const builtin: Record<string, [string, string]> = {
  configmaps: ['', 'ConfigMap'],
  deployments: ['apps', 'Deployment'],
};

function widgetSchema(scenario: string): SchemaNode {
  for (const s of loadScenario(scenario).steps as unknown as { path?: string; method?: string; body?: JsonObject }[]) {
    if (s.method === 'POST' && s.path?.endsWith('/customresourcedefinitions') && s.body) {
      const versions = (s.body.spec as JsonObject).versions as JsonObject[];
      return schemaFromOpenAPI((versions[0].schema as JsonObject).openAPIV3Schema);
    }
  }
  return schemaFromOpenAPI({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
}

/** The defaults the real server filled in for the kinds these scenarios write. */
function applyDefaults(obj: ObjectWithMeta): void {
  const spec = obj.spec;
  if (obj.kind === 'Widget' && isPlainObject(spec)) {
    spec.channel ??= 'regular';
    spec.policy ??= 'CreateAndDelete';
  }
  if (obj.kind === 'Deployment' && isPlainObject(spec)) {
    spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    const template = spec.template as JsonObject;
    (template.metadata as JsonObject).creationTimestamp ??= null;
    const pod = template.spec as JsonObject;
    pod.restartPolicy ??= 'Always';
    pod.terminationGracePeriodSeconds ??= 30;
    pod.dnsPolicy ??= 'ClusterFirst';
    pod.securityContext ??= {};
    pod.schedulerName ??= 'default-scheduler';
    for (const c of pod.containers as JsonObject[]) {
      c.resources ??= {};
      c.terminationMessagePath ??= '/dev/termination-log';
      c.terminationMessagePolicy ??= 'File';
      c.imagePullPolicy ??= 'IfNotPresent';
    }
  }
}

function check(scenario: string, expectedSteps: number): void {
  const widgets = widgetSchema(scenario);
  const { answers, golden } = replay(scenario, {
    schemaFor: (_apiVersion, resource) => {
      const b = builtin[resource];
      return b ? builtinSchema(b[0], b[1]) : widgets;
    },
    applyDefaults,
    statusSubresource: (resource) => resource === 'widgets' || resource === 'deployments',
  });
  let compared = 0;
  for (const [id, answer] of answers) {
    const want = golden.get(id);
    if (want === undefined || want.body === '<omitted>') continue;
    compared++;
    assert.equal(answer.status, want.status, `${scenario}/${id}: status`);
    assert.deepStrictEqual(comparable(answer.body), comparable(want.body), `${scenario}/${id}`);
  }
  assert.equal(compared, expectedSteps, `${scenario}: steps compared`);
}

test('ssa-basics: apply create, no-op, conflict, shared ownership, force, release, update after apply', () => check('ssa-basics', 9));
test('ssa-custom-resources: list-map merge by key across managers, status through apply', () => check('ssa-custom-resources', 5));
test('ssa-builtin-lists: containers and env merged by name, replicas conflict, strategic merge patch', () => check('ssa-builtin-lists', 5));
test('core-configmap-crud: Update entries after create and updates', () => check('core-configmap-crud', 5));
test('crd-patch-types: Update entries after merge and JSON patches of a custom resource', () => check('crd-patch-types', 2));
test('finalizers-and-deletion: finalizers as a set, dropped when removed', () => check('finalizers-and-deletion', 5));
test('gc-foreground: ownerReferences keyed by uid', () => check('gc-foreground', 2));
test('gc-background: ownerReferences on create', () => check('gc-background', 3));
test('crd-generation-and-status: status writes get their own entry, main writes never own status', () => check('crd-generation-and-status', 8));
