// The built-in types the server serves, field by field: each field's JSON (and protobuf) name, its
// protobuf field number, its Go shape (slice, map, pointer) and whether its JSON tag has omitempty.
// These are public facts of the Kubernetes API (k8s.io/api's generated.proto and types.go). One
// catalog feeds every derived view: the protobuf messages of the wire codec and the OpenAPI
// definitions of /openapi/v2 and /openapi/v3.
//
// The data files next to this one describe a package each in a small Go-like notation, one field per
// line: `<name> <number> <type> [omitempty] [inline] [json=<jsonName>]`, where <type> is
//   string | bool | int32 | int64 | float64 | []byte        scalars
//   Name | alias.Name                                      a message of this package or another
//   *T   []T   map[string]T                                 pointer, slice, map (combined as in Go)
// A type that is not a plain message (Time, Quantity, IntOrString, ...) is declared with `special`.
// `<name>` is the protobuf field name; `json=<jsonName>` gives the JSON name where it differs
// (JSONSchemaProps' `$ref`, `x-kubernetes-...`). `inline` marks a Go struct embedded with
// `json:",inline"`: a message field on the wire whose own fields sit in the parent's JSON object
// (Volume's volumeSource, Probe's handler, ...).

/** The scalars of the notation, named as in Go. `[]byte` is `bytes`. */
export type Scalar = 'string' | 'bool' | 'int32' | 'int64' | 'float64' | 'bytes';

/**
 * Types whose JSON form is not an object of their protobuf fields; each codec and OpenAPI view
 * handles them by name. Their protobuf fields are still listed in `fields`.
 */
export type Special =
  | 'time' // JSON: RFC 3339 string (seconds); proto: { seconds int64 = 1, nanos int32 = 2 }
  | 'microTime' // JSON: RFC 3339 with microseconds; proto as time
  | 'duration' // JSON: Go duration string ("1h2m3s"); proto: { duration int64 = 1 } in nanoseconds
  | 'quantity' // JSON: string ("100m", "1Gi"); proto: { string = 1 }
  | 'intOrString' // JSON: number or string; proto: { type int64 = 1, intVal int32 = 2, strVal string = 3 }
  | 'rawExtension' // JSON: any value; proto: { raw bytes = 1 } holding the JSON text
  | 'fieldsV1' // JSON: an object (managedFields' fieldsV1); proto: { Raw bytes = 1 } holding the JSON text
  | 'json' // apiextensions JSON: any value; proto: { raw bytes = 1 } holding the JSON text
  | 'stringList' // a named []string (authentication's and authorization's ExtraValue): JSON: a list of strings; proto: { items repeated string = 1 }
  | 'jsonSchemaPropsOrArray' // JSON: a schema or a list of schemas
  | 'jsonSchemaPropsOrBool' // JSON: a schema or a boolean
  | 'jsonSchemaPropsOrStringArray'; // JSON: a schema or a list of strings

export interface FieldDef {
  /** The JSON name, which is also the protobuf field name unless `protoName` is set. */
  name: string;
  /** The protobuf field name, only where it differs from the JSON name (`ref` for `$ref`). */
  protoName?: string;
  /** The protobuf field number. */
  no: number;
  /** A scalar, or the full name of another TypeDef (`io.k8s.api.core.v1.PodSpec`). */
  type: Scalar | string;
  /** Go slice: a repeated field, a JSON array. */
  list: boolean;
  /** Go map[string]T: a protobuf map<string, T>, a JSON object. */
  map: boolean;
  /** Go pointer: presence on the wire means the field is set, even to its zero value. */
  pointer: boolean;
  /** The JSON tag has omitempty: a zero value is left out of the JSON form. */
  omitEmpty: boolean;
  /** An embedded struct whose JSON fields are the parent's own (`json:",inline"`); `name` is its protobuf name. */
  inline: boolean;
}

export interface TypeDef {
  /** The OpenAPI definition name: `io.k8s.api.core.v1.ConfigMap`. */
  name: string;
  fields: FieldDef[];
  special?: Special;
}

/** Short package aliases the notation may use in references. */
export const PACKAGE_ALIASES: Record<string, string> = {
  meta: 'io.k8s.apimachinery.pkg.apis.meta.v1',
  resource: 'io.k8s.apimachinery.pkg.api.resource',
  intstr: 'io.k8s.apimachinery.pkg.util.intstr',
  runtime: 'io.k8s.apimachinery.pkg.runtime',
  core: 'io.k8s.api.core.v1',
  apps: 'io.k8s.api.apps.v1',
  batch: 'io.k8s.api.batch.v1',
  batchv1beta1: 'io.k8s.api.batch.v1beta1',
  rbac: 'io.k8s.api.rbac.v1',
  policy: 'io.k8s.api.policy.v1',
  policyv1beta1: 'io.k8s.api.policy.v1beta1',
  networking: 'io.k8s.api.networking.v1',
  autoscalingv1: 'io.k8s.api.autoscaling.v1',
  autoscalingv2: 'io.k8s.api.autoscaling.v2',
  coordination: 'io.k8s.api.coordination.v1',
  events: 'io.k8s.api.events.v1',
  scheduling: 'io.k8s.api.scheduling.v1',
  admissionregistration: 'io.k8s.api.admissionregistration.v1',
  authentication: 'io.k8s.api.authentication.v1',
  authorization: 'io.k8s.api.authorization.v1',
  apiextensions: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1',
};

const SCALARS: Record<string, Scalar> = { string: 'string', bool: 'bool', int32: 'int32', int64: 'int64', float64: 'float64', '[]byte': 'bytes' };

const types = new Map<string, TypeDef>();
const kinds = new Map<string, string>();

export interface PackageTypes {
  [typeName: string]: string | { special: Special; fields?: string };
}

/** Parses one field line of the notation; `pkg` resolves unqualified references. */
export function parseField(line: string, pkg: string): FieldDef {
  const parts = line.trim().split(/\s+/);
  const options = parts.slice(3);
  const jsonOption = options.find((o) => o.startsWith('json='));
  const known = (o: string): boolean => o === 'omitempty' || o === 'inline' || (o === jsonOption && o.length > 'json='.length);
  if (parts.length < 3 || !options.every(known) || new Set(options).size !== options.length) {
    throw new Error(`${pkg}: bad field line "${line.trim()}" (want: <name> <number> <type> [omitempty] [inline] [json=<name>])`);
  }
  const [protoName, noText, typeText] = parts;
  const name = jsonOption === undefined ? protoName : jsonOption.slice('json='.length);
  const no = Number(noText);
  if (!Number.isInteger(no) || no < 1) throw new Error(`${pkg}: field ${name} has a bad number "${noText}"`);
  let rest = typeText;
  let pointer = false;
  let list = false;
  let map = false;
  if (rest.startsWith('*')) {
    pointer = true;
    rest = rest.slice(1);
  }
  if (rest.startsWith('map[string]')) {
    map = true;
    rest = rest.slice('map[string]'.length);
  } else if (rest.startsWith('[]') && rest !== '[]byte') {
    list = true;
    rest = rest.slice(2);
  }
  if (rest.startsWith('*')) rest = rest.slice(1); // []*T and map[string]*T encode as []T and map[string]T
  const type = SCALARS[rest] ?? resolveReference(rest, pkg);
  const inline = options.includes('inline');
  if (inline && (list || map || SCALARS[rest] !== undefined)) throw new Error(`${pkg}: inline field ${name} must be a struct`);
  return { name, ...(name !== protoName ? { protoName } : {}), no, type, list, map, pointer, omitEmpty: options.includes('omitempty'), inline };
}

function resolveReference(ref: string, pkg: string): string {
  const dot = ref.lastIndexOf('.');
  if (dot < 0) return `${pkg}.${ref}`;
  const prefix = ref.slice(0, dot);
  return `${PACKAGE_ALIASES[prefix] ?? prefix}.${ref.slice(dot + 1)}`;
}

/** Adds a package's types to the catalog (each data file calls this once when imported). */
export function definePackage(pkg: string, defs: PackageTypes): void {
  for (const [typeName, def] of Object.entries(defs)) {
    const name = `${pkg}.${typeName}`;
    if (types.has(name)) throw new Error(`type ${name} defined twice`);
    const text = typeof def === 'string' ? def : (def.fields ?? '');
    const fields = text.split('\n').filter((l) => l.trim() !== '').map((l) => parseField(l, pkg));
    types.set(name, { name, fields, ...(typeof def === 'string' ? {} : { special: def.special }) });
  }
}

/** Declares that `group/version` serves `kind` with the given type (its list is `<type>List`). */
export function defineKind(group: string, version: string, kind: string, typeName: string): void {
  kinds.set(`${group}/${version}/${kind}`, typeName);
}

export function typeDef(name: string): TypeDef | undefined {
  return types.get(name);
}

/** The TypeDef of a served kind, if the catalog describes it. */
export function kindType(group: string, version: string, kind: string): TypeDef | undefined {
  const name = kinds.get(`${group}/${version}/${kind}`);
  return name === undefined ? undefined : types.get(name);
}

/** The catalog package of a group version, named as Kubernetes names them (k8s.io/api/<group's first label>/<version>). */
function packageOf(group: string, version: string): string {
  if (group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  return `io.k8s.api.${group === '' ? 'core' : group.split('.')[0]}.${version}`;
}

/**
 * A request body of a group version without a list of its own (Scale, TokenRequest, the access
 * reviews), if the catalog describes it: described in the version's package, not declared as a kind.
 */
export function requestBodyType(group: string, version: string, kind: string): TypeDef | undefined {
  const t = types.get(`${packageOf(group, version)}.${kind}`);
  return t && !t.special ? t : undefined;
}

export function allTypes(): Iterable<TypeDef> {
  return types.values();
}

export function allKinds(): Iterable<{ group: string; version: string; kind: string; type: string }> {
  return [...kinds].map(([key, type]) => {
    const [group, version, kind] = key.split('/');
    return { group, version, kind, type };
  });
}

const SCALAR_NAMES: ReadonlySet<string> = new Set(Object.values(SCALARS));

/** Asked for every field a codec, OpenAPI or field validation walks: a set lookup, no allocation. */
export function isScalar(type: string): type is Scalar {
  return SCALAR_NAMES.has(type);
}

/** What is wrong with the catalog: unresolved references, duplicate numbers or names. Empty when sound. */
export function catalogProblems(): string[] {
  const problems: string[] = [];
  for (const t of types.values()) {
    const numbers = new Set<number>();
    const names = new Set<string>();
    for (const f of t.fields) {
      if (numbers.has(f.no)) problems.push(`${t.name}: field number ${f.no} used twice`);
      if (names.has(f.name)) problems.push(`${t.name}: field ${f.name} declared twice`);
      numbers.add(f.no);
      names.add(f.name);
      if (!isScalar(f.type) && !types.has(f.type)) problems.push(`${t.name}.${f.name}: unknown type ${f.type}`);
    }
  }
  for (const [kind, type] of kinds) if (!types.has(type)) problems.push(`kind ${kind}: unknown type ${type}`);
  return problems;
}
