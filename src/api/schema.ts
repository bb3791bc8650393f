// One source of truth for the control plane's APIs: each kind's schema is written once with these
// builders. The TypeScript type is inferred from it (`Infer<typeof X>`), and the CRD manifest's
// OpenAPI v3 structural schema is generated from it (`crd.ts`), so the two cannot drift apart.

export type JSONSchemaProps = Record<string, unknown>;

/** A CEL rule (`x-kubernetes-validations`) on a schema node. */
export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export interface Schema<T> {
  /** Never set: carries the TypeScript type for inference. */
  readonly __type?: T;
  readonly openapi: JSONSchemaProps;
}

export interface RequiredSchema<T> extends Schema<T> {
  readonly required: true;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

type AnySchema = Schema<unknown>;
type Props = Record<string, AnySchema>;
type RequiredKeys<P extends Props> = { [K in keyof P]: P[K] extends { required: true } ? K : never }[keyof P];
type OptionalKeys<P extends Props> = Exclude<keyof P, RequiredKeys<P>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<P extends Props> = Simplify<{ [K in RequiredKeys<P>]: Infer<P[K]> } & { [K in OptionalKeys<P>]?: Infer<P[K]> }>;

interface Common<D> {
  description?: string;
  default?: D;
  validations?: CelRule[];
  nullable?: boolean;
}

function build<T>(base: JSONSchemaProps, c: Common<unknown> = {}): Schema<T> {
  const o: JSONSchemaProps = {};
  if (c.description) o.description = c.description;
  Object.assign(o, base);
  if (c.default !== undefined) o.default = c.default;
  if (c.nullable) o.nullable = true;
  if (c.validations && c.validations.length > 0) o['x-kubernetes-validations'] = c.validations;
  return { openapi: o };
}

function strip(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** Marks an object property as required (it is then also non-optional in the inferred type). */
export function req<T>(s: Schema<T>): RequiredSchema<T> {
  return { ...s, required: true };
}

export interface StringOpts extends Common<string> {
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
}

export function string(o: StringOpts = {}): Schema<string> {
  return build({ type: 'string', ...strip({ format: o.format, pattern: o.pattern, minLength: o.minLength, maxLength: o.maxLength }) }, o);
}

export function enumOf<const E extends string>(values: readonly E[], o: Common<E> = {}): Schema<E> {
  return build({ type: 'string', enum: [...values] }, o);
}

export interface NumberOpts extends Common<number> {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
}

export function integer(o: NumberOpts & { format?: 'int32' | 'int64' } = {}): Schema<number> {
  return build({ type: 'integer', ...strip({ format: o.format, minimum: o.minimum, maximum: o.maximum, exclusiveMinimum: o.exclusiveMinimum, exclusiveMaximum: o.exclusiveMaximum }) }, o);
}

export function number(o: NumberOpts = {}): Schema<number> {
  return build({ type: 'number', ...strip({ minimum: o.minimum, maximum: o.maximum }) }, o);
}

export function boolean(o: Common<boolean> = {}): Schema<boolean> {
  return build({ type: 'boolean' }, o);
}

export interface ArrayOpts extends Common<unknown[]> {
  minItems?: number;
  maxItems?: number;
  /** `map` needs `listMapKeys` (each a required property of the items). */
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
}

export function array<T>(items: Schema<T>, o: ArrayOpts = {}): Schema<T[]> {
  return build<T[]>(
    {
      type: 'array',
      items: items.openapi,
      ...strip({ minItems: o.minItems, maxItems: o.maxItems, 'x-kubernetes-list-type': o.listType, 'x-kubernetes-list-map-keys': o.listMapKeys }),
    },
    o,
  );
}

/** A string-keyed map (additionalProperties). */
export function map<T>(values: Schema<T>, o: Common<Record<string, T>> & { maxProperties?: number } = {}): Schema<Record<string, T>> {
  return build({ type: 'object', additionalProperties: values.openapi, ...strip({ maxProperties: o.maxProperties }) }, o);
}

export interface ObjectOpts extends Common<Record<string, unknown>> {
  minProperties?: number;
  /** `atomic` makes server-side apply replace the object whole. */
  mapType?: 'granular' | 'atomic';
  /** Keep fields the schema does not list (no pruning below this node). */
  preserveUnknownFields?: boolean;
}

export function object<P extends Props>(props: P, o: ObjectOpts = {}): Schema<ObjectOf<P>> {
  const properties: Record<string, JSONSchemaProps> = {};
  const required: string[] = [];
  for (const [k, s] of Object.entries(props)) {
    properties[k] = s.openapi;
    if ((s as Partial<RequiredSchema<unknown>>).required) required.push(k);
  }
  const base: JSONSchemaProps = { type: 'object', properties };
  if (required.length > 0) base.required = required;
  if (o.minProperties !== undefined) base.minProperties = o.minProperties;
  if (o.mapType) base['x-kubernetes-map-type'] = o.mapType;
  if (o.preserveUnknownFields) base['x-kubernetes-preserve-unknown-fields'] = true;
  return build(base, o);
}

/** Any JSON value kept as it is (x-kubernetes-preserve-unknown-fields). */
export function unknownValue(o: Common<unknown> = {}): Schema<unknown> {
  return build({ 'x-kubernetes-preserve-unknown-fields': true }, o);
}

/** Any JSON object kept as it is. */
export function freeObject(o: Common<Record<string, unknown>> = {}): Schema<Record<string, unknown>> {
  return build({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, o);
}

/** A whole Kubernetes object embedded in a field (apiVersion, kind, metadata validated as such). */
export function embeddedResource(o: Common<Record<string, unknown>> = {}): Schema<{ apiVersion?: string; kind?: string; metadata?: Record<string, unknown>; [k: string]: unknown }> {
  return build({ type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }, o);
}

/** int-or-string (e.g. a port or a percentage). */
export function intOrString(o: Common<number | string> = {}): Schema<number | string> {
  return build({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, o);
}

/** metav1.Condition, the standard condition shape. */
export const condition = object(
  {
    type: req(string({ description: 'Type of the condition, in CamelCase.', maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' })),
    status: req(enumOf(['True', 'False', 'Unknown'] as const, { description: 'Status of the condition.' })),
    observedGeneration: integer({ format: 'int64', minimum: 0, description: 'The .metadata.generation the condition was set based upon.' }),
    lastTransitionTime: req(string({ format: 'date-time', description: 'When the condition last changed its status.' })),
    reason: req(string({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$', description: 'Programmatic identifier of the reason for the last transition.' })),
    message: req(string({ maxLength: 32768, description: 'Human-readable message about the transition.' })),
  },
  { description: 'A condition of the resource (metav1.Condition).' },
);
export type Condition = Infer<typeof condition>;

export const conditions = array(condition, { listType: 'map', listMapKeys: ['type'], description: 'Conditions of the resource, one per type.' });
