import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { ObjectWithMeta } from '../../../src/kube/object.js';
import { acceptedStatus, defaultCrd, storageVersion, terminatingCondition, validateCrd } from '../../../src/apiserver/crd/definition.js';

const fixtures = new URL('../../../../test/fixtures/kube-conformance/', import.meta.url);
type Step = { id?: string; body?: ObjectWithMeta; response?: { status: number; body: unknown } };
const load = (dir: string, name: string): { steps: Step[] } => JSON.parse(readFileSync(new URL(`${dir}/${name}.json`, fixtures), 'utf8'));
const normalizeTimes = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replace(/"lastTransitionTime":"[^"]*"/g, '"lastTransitionTime":"<time>"'));

const widgets = load('scenarios', 'crd-register-and-discover').steps[0].body as ObjectWithMeta;

test('golden crd-register-and-discover: conditions of an accepted CRD', () => {
  const expected = load('golden', 'crd-register-and-discover').steps.find((s) => s.id === 'crdGet')?.response?.body;
  const status = acceptedStatus(structuredClone(widgets), '2024-01-01T00:00:00Z');
  assert.deepEqual(normalizeTimes(status.conditions), expected);
  assert.deepEqual(status.acceptedNames, { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' });
  assert.deepEqual(status.storedVersions, ['v1']);
  assert.equal(storageVersion(widgets), 'v1');
});

test('golden crd-apply-and-cleanup: defaults and the Terminating condition', () => {
  const scenario = load('scenarios', 'crd-apply-and-cleanup');
  const golden = load('golden', 'crd-apply-and-cleanup');
  const withNs = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll('{{ns}}', 'kc-test'));
  const crd = withNs(scenario.steps[0].body) as ObjectWithMeta;
  defaultCrd(crd);
  assert.deepEqual(crd.spec, withNs(golden.steps.find((s) => s.id === 'apply')?.response?.body));
  const name = crd.metadata.name ?? '';
  assert.deepEqual(validateCrd(crd), [], name);
  const accepted = { ...crd, status: acceptedStatus(crd, 'then') };
  const conditions = [...((accepted.status.conditions as unknown[]) ?? []), terminatingCondition('now')];
  assert.deepEqual(normalizeTimes(conditions), golden.steps.find((s) => s.id === 'deleteCrd')?.response?.body);
});

test('acceptedStatus keeps transition times and reports name conflicts', () => {
  const first = acceptedStatus(structuredClone(widgets), 't1');
  const again = acceptedStatus({ ...structuredClone(widgets), status: first }, 't2');
  assert.deepEqual(again.conditions, first.conditions);
  const rival: ObjectWithMeta = structuredClone(widgets);
  rival.metadata.name = 'gadgets.conf.example.com';
  (rival.spec as { names: Record<string, unknown> }).names = { plural: 'gadgets', kind: 'Widget', listKind: 'GadgetList', singular: 'gadget' };
  const conflicted = acceptedStatus(rival, 't3', [{ ...widgets, status: first }]);
  assert.deepEqual(conflicted.conditions, [
    { type: 'NamesAccepted', status: 'False', lastTransitionTime: 't3', reason: 'KindConflict', message: '"Widget" is already in use' },
    { type: 'Established', status: 'False', lastTransitionTime: 't3', reason: 'NotAccepted', message: 'not all names are accepted' },
  ]);
});

test('validateCrd reports kube messages for bad names, scope, storage versions and schemas', () => {
  const crd = structuredClone(widgets);
  crd.metadata.name = 'widgets.other.example.com';
  const spec = crd.spec as Record<string, unknown>;
  spec.scope = 'Global';
  const versions = spec.versions as Array<Record<string, unknown>>;
  versions[0].storage = false;
  versions[0].schema = { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } }, 'x-kubernetes-validations': [{ rule: 'self.x ==' }] } };
  (spec.names as Record<string, unknown>).shortNames = ['Bad_Name'];
  const lines = validateCrd(crd).map((e) => `${e.field}: ${e.message}`);
  assert.equal(lines[0], 'metadata.name: Invalid value: "widgets.other.example.com": must be spec.names.plural+"."+spec.group');
  assert.equal(lines[1], 'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"');
  assert.ok(lines[2].startsWith('spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.x ==", Message:""}: compilation failed: ERROR: <input>:1:'));
  assert.equal(lines[3], 'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields');
  assert.ok(lines[4].startsWith('spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{'));
  assert.ok(lines[4].endsWith(': must have exactly one version marked as storage version'));
  assert.equal(
    lines[5],
    "spec.names.shortNames[0]: Invalid value: \"Bad_Name\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  );
  assert.equal(lines.length, 6);
});
