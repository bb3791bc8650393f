import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateJsonPath } from '../../src/kube/jsonpath.js';

test('field names with escaped dots read label keys, as kubectl accepts them', () => {
  const obj = { metadata: { labels: { 'kyma-project.io/runtime-id': 'rt-1', plain: 'p' } } };
  assert.deepEqual(evaluateJsonPath('.metadata.labels.kyma-project\\.io/runtime-id', obj), ['rt-1']);
  assert.deepEqual(evaluateJsonPath('.metadata.labels.plain', obj), ['p']);
});
