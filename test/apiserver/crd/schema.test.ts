import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { invalid } from '../../../src/apiserver/errors.js';
import { applyDefaults, prune, validateCustomResource, type JSONSchemaProps } from '../../../src/apiserver/crd/schema.js';

const fixtures = new URL('../../../../test/fixtures/kube-conformance/', import.meta.url);
type Step = { id?: string; body?: Record<string, unknown>; response?: { status: number; body: Record<string, unknown> } };
const load = (dir: string, name: string): { steps: Step[] } => JSON.parse(readFileSync(new URL(`${dir}/${name}.json`, fixtures), 'utf8'));

const scenario = load('scenarios', 'crd-defaults-pruning-validation');
const golden = load('golden', 'crd-defaults-pruning-validation');
const crd = scenario.steps[0].body as { spec: { versions: Array<{ schema: { openAPIV3Schema: JSONSchemaProps } }> } };
const schema = crd.spec.versions[0].schema.openAPIV3Schema;

/** What the server does to a create body before storing it (status is dropped by the core for the status subresource). */
function admit(body: Record<string, unknown>): { obj: Record<string, unknown>; errors: ReturnType<typeof validateCustomResource> } {
  const obj = structuredClone(body);
  delete obj.status;
  applyDefaults(schema, obj);
  prune(schema, obj);
  return { obj, errors: validateCustomResource(schema, obj) };
}

const objectSteps = scenario.steps.filter((s) => s.id !== undefined && s.body !== undefined && s.id !== 'crd');

// The tests below are generated from the corpus: an empty list would silently generate none.
test('the corpus scenario has object steps to check', () => {
  assert.ok(objectSteps.length >= 3, `object steps in crd-defaults-pruning-validation: ${objectSteps.length}`);
});

for (const step of objectSteps) {
  test(`golden crd-defaults-pruning-validation: ${step.id}`, () => {
    const expected = golden.steps.find((g) => g.id === step.id)?.response;
    assert.ok(expected);
    const { obj, errors } = admit(step.body as Record<string, unknown>);
    if (expected.status === 201) {
      assert.deepEqual(errors, []);
      assert.deepEqual(obj.spec, expected.body.spec);
      assert.equal('extraTop' in obj, false);
    } else {
      const meta = obj.metadata as { name: string };
      const status = invalid('Widget', 'conf.example.com', meta.name, errors).toStatus();
      assert.equal(status.message, expected.body.message);
      assert.deepEqual(status.details, expected.body.details);
    }
  });
}

test('golden crd-patch-types: minimum violation after a patch', () => {
  const errors = validateCustomResource(schema, { apiVersion: 'conf.example.com/v1', kind: 'Widget', metadata: { name: 'p1' }, spec: { size: 0, channel: 'fast', policy: 'CreateAndDelete' } });
  assert.deepEqual(errors, [{ type: 'FieldValueInvalid', field: 'spec.size', message: 'Invalid value: 0: spec.size in body should be greater than or equal to 1' }]);
});

test('prune keeps metadata at the root and inside embedded resources, and unknown fields under preserve-unknown-fields', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { typed: { type: 'object', properties: { x: { type: 'string' } } } } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
  };
  const o: Record<string, unknown> = {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'n', anything: 1 },
    spec: {
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x', b: 'y' }, junk: 1 },
      free: { keep: { deep: true }, typed: { x: 'ok', gone: 1 } },
      labels: { a: 'b' },
      unknown: true,
    },
  };
  prune(s, o);
  assert.deepEqual(o, {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'n', anything: 1 },
    spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x' } }, free: { keep: { deep: true }, typed: { x: 'ok' } }, labels: { a: 'b' } },
  });
});

test('prune drops non-nullable nulls without defaults; defaults replace them', () => {
  const s: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', nullable: true }, c: { type: 'string', default: 'dc' } } } } };
  const o: Record<string, unknown> = { spec: { a: null, b: null, c: null } };
  applyDefaults(s, o);
  prune(s, o);
  assert.deepEqual(o, { spec: { b: null, c: 'dc' } });
});

test('defaults apply inside defaulted parents, list items and additionalProperties, without sharing the default object', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          nested: { type: 'object', default: { x: 1 }, properties: { x: { type: 'integer' }, y: { type: 'string', default: 'why' } } },
          list: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer', default: 80 } } } },
          byName: { type: 'object', additionalProperties: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
        },
      },
    },
  };
  const o: Record<string, unknown> = { spec: undefined };
  delete o.spec;
  applyDefaults(s, o);
  assert.deepEqual(o, { spec: { nested: { x: 1, y: 'why' } } });
  const o2: Record<string, unknown> = { spec: { list: [{}, { port: 8080 }], byName: { a: {}, b: { on: false } } } };
  applyDefaults(s, o2);
  assert.deepEqual(o2.spec, { list: [{ port: 80 }, { port: 8080 }], byName: { a: { on: true }, b: { on: false } }, nested: { x: 1, y: 'why' } });
  const defaultNested = ((s.properties as Record<string, JSONSchemaProps>).spec.properties as Record<string, JSONSchemaProps>).nested.default;
  assert.deepEqual(defaultNested, { x: 1 });
});

test('validation covers lengths, items, properties, formats, exclusive bounds, nullable and sets', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        maxProperties: 20,
        properties: {
          short: { type: 'string', maxLength: 3 },
          long: { type: 'string', minLength: 2 },
          when: { type: 'string', format: 'date-time' },
          ratio: { type: 'number', exclusiveMaximum: true, maximum: 1 },
          tags: { type: 'array', maxItems: 2, 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          few: { type: 'array', minItems: 2, items: { type: 'integer' } },
          maybe: { type: 'string' },
          opt: { type: 'string', nullable: true },
        },
      },
    },
  };
  const errors = validateCustomResource(s, { spec: { short: 'abcd', long: 'a', when: 'yesterday', ratio: 1, tags: ['a', 'b', 'a'], few: [1.5], maybe: null, opt: null } });
  assert.deepEqual(
    errors.map((e) => `${e.field}: ${e.message}`),
    [
      'spec.short: Too long: may not be longer than 3',
      'spec.long: Invalid value: "a": spec.long in body should be at least 2 chars long',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      'spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1',
      'spec.tags: Too many: 3: must have at most 2 items',
      'spec.few[0]: Invalid value: "number": spec.few[0] in body must be of type integer: "number"',
      'spec.few: Invalid value: 1: spec.few in body should have at least 2 items',
      'spec.maybe: Invalid value: "null": spec.maybe in body must be of type string: "null"',
      'spec.tags[2]: Duplicate value: "a"',
    ],
  );
});

test('CEL rules run after schema validation and report kube-style messages', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('w')", message: 'name must start with w' }],
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.min <= self.max' }, { rule: 'self.max - self.min < 100', messageExpression: "'range too wide: ' + string(self.max - self.min)" }],
        properties: {
          min: { type: 'integer' },
          max: { type: 'integer' },
          mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] },
        },
      },
    },
  };
  const obj = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { min: 5, max: 1, mode: 'b' } };
  assert.deepEqual(validateCustomResource(s, obj), [
    { type: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "object": name must start with w' },
    { type: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": failed rule: self.min <= self.max' },
  ]);
  const wide = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'w' }, spec: { min: 0, max: 500, mode: 'b' } };
  assert.deepEqual(validateCustomResource(s, wide, { ...wide, spec: { min: 0, max: 1, mode: 'a' } }), [
    { type: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": range too wide: 500' },
    { type: 'FieldValueInvalid', field: 'spec.mode', message: 'Invalid value: "string": mode is immutable' },
  ]);
  const wrongType = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'w' }, spec: { min: 'zero', max: 1 } };
  assert.deepEqual(
    validateCustomResource(s, wrongType).map((e) => e.field),
    ['spec.min', '<nil>'],
  );
});

test('an embedded resource must carry apiVersion and kind', () => {
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: { resource: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } } } };
  const errors = validateCustomResource(schema, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { resource: { spec: {} } } });
  assert.deepEqual(errors.map((e) => `${e.field}: ${e.message}`), ['spec.resource.apiVersion: Required value: must not be empty', 'spec.resource.kind: Required value: must not be empty']);
  assert.deepEqual(validateCustomResource(schema, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { resource: { apiVersion: 'v1', kind: 'ConfigMap' } } }), []);
});
