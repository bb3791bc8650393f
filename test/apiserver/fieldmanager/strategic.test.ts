import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject } from '../../../src/kube/json.js';
import { builtinSchema } from '../../../src/apiserver/fieldmanager/schema.js';
import { strategicMergePatch } from '../../../src/apiserver/fieldmanager/strategic.js';

const deployment = builtinSchema('apps', 'Deployment');
const pod = builtinSchema('', 'Pod');

function podWith(spec: JsonObject): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', finalizers: ['a', 'b'] }, spec };
}

test('containers merge by name; a new name is appended; nested env merges by name', () => {
  const original: JsonObject = { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] }, { name: 'b', image: 'b:1' }] } } } };
  const patch: JsonObject = { spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '2' }] }, { name: 'c', image: 'c:1' }] } } } };
  const out = strategicMergePatch(original, patch, deployment) as { spec: { template: { spec: { containers: JsonObject[] } } } };
  assert.deepStrictEqual(out.spec.template.spec.containers, [
    { name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] },
    { name: 'b', image: 'b:1' },
    { name: 'c', image: 'c:1' },
  ]);
  const before = original as { spec: { template: { spec: { containers: JsonObject[] } } } };
  assert.equal((before.spec.template.spec.containers[0].env as JsonObject[]).length, 1, 'the original is left alone');
});

test('$patch: delete removes a list element; $patch: replace replaces the list', () => {
  const original = podWith({ containers: [{ name: 'a' }, { name: 'b' }] });
  const deleted = strategicMergePatch(original, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } }, pod);
  assert.deepStrictEqual((deleted.spec as JsonObject).containers, [{ name: 'b' }]);
  const replaced = strategicMergePatch(original, { spec: { containers: [{ name: 'z' }, { $patch: 'replace' }] } }, pod);
  assert.deepStrictEqual((replaced.spec as JsonObject).containers, [{ name: 'z' }]);
});

test('null deletes a field; $patch: delete on a map removes it; $patch: replace on a map replaces it', () => {
  const original = podWith({ nodeSelector: { a: '1' }, hostname: 'h', securityContext: { runAsUser: 1, fsGroup: 2 } });
  const out = strategicMergePatch(original, { spec: { hostname: null, nodeSelector: { $patch: 'delete' }, securityContext: { $patch: 'replace', runAsUser: 5 } } }, pod);
  assert.deepStrictEqual(out.spec, { securityContext: { runAsUser: 5 } });
});

test('lists without a merge strategy are replaced; merged primitive lists are unions', () => {
  const original = podWith({ containers: [{ name: 'a', args: ['x', 'y'] }] });
  const out = strategicMergePatch(original, { metadata: { finalizers: ['b', 'c'] }, spec: { containers: [{ name: 'a', args: ['z'] }] } }, pod);
  assert.deepStrictEqual((out.metadata as JsonObject).finalizers, ['a', 'b', 'c']);
  assert.deepStrictEqual(((out.spec as JsonObject).containers as JsonObject[])[0].args, ['z']);
});

test('$deleteFromPrimitiveList and $setElementOrder', () => {
  const original = podWith({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
  const out = strategicMergePatch(
    original,
    { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] }, spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }], containers: [{ name: 'c', image: 'c' }] } },
    pod,
  );
  assert.deepStrictEqual((out.metadata as JsonObject).finalizers, ['b']);
  // Listed items take the given order; b (only on the server) keeps its place before c, where it was in the live list.
  assert.deepStrictEqual(((out.spec as JsonObject).containers as JsonObject[]).map((c) => c.name), ['b', 'c', 'a']);
});

test('$retainKeys drops the keys it does not list (volume sources)', () => {
  const original = podWith({ volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }] });
  const out = strategicMergePatch(original, { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'configMap'], configMap: { name: 'cm' } }] } }, pod);
  assert.deepStrictEqual((out.spec as JsonObject).volumes, [{ name: 'v', configMap: { name: 'cm' } }]);
});

test('directives never reach the stored object, even inside new elements', () => {
  const original = podWith({ containers: [] });
  const out = strategicMergePatch(original, { spec: { containers: [{ name: 'n', env: [{ name: 'E', value: null }] }] } }, pod);
  assert.deepStrictEqual((out.spec as JsonObject).containers, [{ name: 'n', env: [{ name: 'E' }] }]);
});
