import assert from 'node:assert/strict';
import { test } from 'node:test';
import { difference, forEachMember, fromFieldsV1, intersection, listMapKey, renderPath, toFieldsV1, union, without } from '../../../src/apiserver/fieldmanager/fieldset.js';

const sample = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:finalizers': { 'v:"x"': {} } },
};

test('fieldsV1 survives a round trip, "." markers included', () => {
  assert.deepStrictEqual(toFieldsV1(fromFieldsV1(sample)), sample);
});

test('an empty fieldsV1 is an empty set, and a member without children is written as {}', () => {
  assert.ok(fromFieldsV1({}).isEmpty());
  const s = fromFieldsV1({ 'f:data': { '.': {}, 'f:a': {} } });
  const d = difference(s, fromFieldsV1({ 'f:data': { 'f:a': {} } }));
  assert.deepStrictEqual(toFieldsV1(d), { 'f:data': {} });
});

test('union, difference and intersection work on exact paths', () => {
  const a = fromFieldsV1({ 'f:data': { 'f:a': {}, 'f:b': {} } });
  const b = fromFieldsV1({ 'f:data': { 'f:b': {}, 'f:c': {} } });
  assert.deepStrictEqual(toFieldsV1(union(a, b)), { 'f:data': { 'f:a': {}, 'f:b': {}, 'f:c': {} } });
  assert.deepStrictEqual(toFieldsV1(difference(a, b)), { 'f:data': { 'f:a': {} } });
  assert.deepStrictEqual(toFieldsV1(intersection(a, b)), { 'f:data': { 'f:b': {} } });
});

test('without drops a field and everything below it, and a parent it leaves empty', () => {
  const set = fromFieldsV1(sample);
  assert.deepStrictEqual(toFieldsV1(without(set, ['spec'])), { 'f:metadata': sample['f:metadata'] });
  assert.deepStrictEqual(toFieldsV1(without(set, ['metadata', 'labels'])), { 'f:spec': sample['f:spec'] });
  assert.deepStrictEqual(toFieldsV1(without(set, ['spec', 'finalizers'])), { ...sample, 'f:spec': { 'f:containers': sample['f:spec']['f:containers'] } });
  assert.equal(without(set, ['metadata', 'annotations']), set, 'a field the set lacks leaves it as it is');
});

test('list-map keys are JSON with sorted key names; defaults fill missing keys', () => {
  assert.equal(listMapKey({ protocol: 'TCP', containerPort: 80, name: 'http' }, ['containerPort', 'protocol']), 'k:{"containerPort":80,"protocol":"TCP"}');
  assert.equal(listMapKey({ port: 443 }, ['port', 'protocol'], { protocol: 'TCP' }), 'k:{"port":443,"protocol":"TCP"}');
});

test('conflict paths read like the server writes them', () => {
  assert.equal(renderPath(['f:data', 'f:a']), '.data.a');
  assert.equal(renderPath(['f:spec', 'f:containers', 'k:{"name":"app"}', 'f:image']), '.spec.containers[name="app"].image');
  assert.equal(renderPath(['f:metadata', 'f:finalizers', 'v:"x"']), '.metadata.finalizers[="x"]');
});

test('members are visited level by level: members of a level before what lies below', () => {
  const seen: string[] = [];
  forEachMember(fromFieldsV1({ 'f:b': {}, 'f:a': { 'f:z': {} }, 'f:c': { '.': {}, 'f:y': {} } }), (p) => seen.push(renderPath(p)));
  assert.deepStrictEqual(seen, ['.b', '.c', '.a.z', '.c.y']);
});
