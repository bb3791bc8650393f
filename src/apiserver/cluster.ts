// One logical cluster: its objects, its CustomResourceDefinitions and the API operations on them.
// The HTTP layer (handler.ts) and the in-process controllers (controllers.ts) both call these
// operations, so garbage collection and namespace cleanup go through the same rules as clients.
import type { AdmissionAttributes, Admitter } from './admission.js';
import { applyBuiltinDefaults, dropEmptyFields, eventToCore, generationMetadata, prepareForCreate, prepareForUpdate, statusMetadataResets, toStorageVersion, validateBuiltin, validateName } from './builtin/index.js';
import { acceptedStatus, crdSpec, defaultCrd, isEstablished, terminatingCondition, validateCrd } from './crd/definition.js';
import { applyDefaults, prune, validateCustomResource } from './crd/schema.js';
import { dropUnknownFields, type FieldValidation, strictApplyError, strictDecodingError, strictPatchError, unknownFieldWarnings } from './field-validation.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  type FieldError,
  fieldErrors,
  forbidden,
  gone,
  invalid,
  MODIFIED,
  notFound,
  type ResourceRef,
  StatusError,
} from './errors.js';
import { applyPatch, recordUpdate } from './fieldmanager/managed.js';
import { builtinSchema, schemaFromOpenAPI, type SchemaNode } from './fieldmanager/schema.js';
import { strategicMergePatch } from './fieldmanager/strategic.js';
import { newUid, nowRfc3339, randomSuffix, serialize, servedJson } from './objects.js';
import { jsonPatch, mergePatch } from './patch.js';
import { BUILTIN_TYPES, groupVersion, resourceKey, type ResourceType, storageVersionOf, typesFromCrd } from './resources.js';
import { validateScalePaths } from './scale.js';
import { checkRbacWrite } from './auth/escalation.js';
import { type LabelSelector, matchesLabels } from '../kube/labels.js';
import { type FieldRequirement, matchesFields } from './selectors.js';
import { ObjectStore, type StoredObject } from './store.js';
import { canonicalJson, deepClone, isPlainObject, type JsonObject, jsonEqual } from '../kube/json.js';
import type { ObjectWithMeta } from '../kube/object.js';

export interface UserInfo {
  username: string;
  uid: string;
  groups: string[];
  /** Extra attributes of the authenticated user (e.g. the pod a ServiceAccount token is bound to). */
  extra?: Record<string, string[]>;
}

/** Whom a write that names no user is checked as. */
const ANONYMOUS: UserInfo = { username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] };

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  /** The client named the field manager (it then shows in admission requests' options). */
  explicitFieldManager?: boolean;
  user?: UserInfo;
  /** Set by the in-process controllers: skips admission webhooks (they run as the system). */
  internal?: boolean;
  /** What to do with fields the kind does not declare (default Warn); Warn's messages go to `warnings`. */
  fieldValidation?: FieldValidation;
  warnings?: string[];
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface ListOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldRequirement[];
  limit?: number;
  continueToken?: string;
}

export interface ListResult {
  rv: number;
  items: StoredObject[];
  continueToken?: string;
  remaining?: number;
}

export interface WriteResult {
  code: number;
  object: ObjectWithMeta;
  /** False when a delete removed the object at once (the answer is then a Status). */
  exists: boolean;
  /** The object's JSON text as just stored, when that is also how the request's version serves it. */
  json?: string;
}

const NAMESPACES = '/namespaces';
const CRDS = 'apiextensions.k8s.io/customresourcedefinitions';
const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** How often a patch is tried again when its object changed while webhooks were called. */
const PATCH_ATTEMPTS = 5;

/** The object changed while admission webhooks were called: a 409 unless the write may simply be tried again. */
class ChangedDuringAdmission extends Error {
  constructor(readonly conflict: StatusError) {
    super(conflict.message);
  }
}

/** An update or apply names what it saw (or the caller retries itself): the race stays a 409. */
async function conflictOnRace<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (e) {
    throw e instanceof ChangedDuringAdmission ? e.conflict : e;
  }
}

function refOf(t: ResourceType): ResourceRef {
  return { group: t.group, resource: t.resource };
}

/** Everything of an object except metadata and status: a change here bumps metadata.generation. */
function specPart(o: ObjectWithMeta): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/** What no update changes: identity, creation and deletion (kube's BeforeUpdate and ObjectMeta update rules). */
function keepServerMetadata(t: ResourceType, m: ObjectWithMeta['metadata'], o: ObjectWithMeta['metadata']): void {
  m.name = o.name;
  if (t.namespaced) m.namespace = o.namespace;
  else delete m.namespace;
  m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  if (o.deletionTimestamp) {
    m.deletionTimestamp = o.deletionTimestamp;
    m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  } else {
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
  }
  if (o.generateName !== undefined && m.generateName === undefined) m.generateName = o.generateName;
  delete m.selfLink;
}

/** Replaces everything of `obj` but metadata and status with the stored object's. */
function keepSpec(obj: ObjectWithMeta, old: ObjectWithMeta): void {
  for (const k of Object.keys(specPart(obj))) delete obj[k];
  Object.assign(obj, deepClone(specPart(old)));
}

/** The built-in types by `group/version/resource` (resolve runs for every request). */
const BUILTIN_BY_PATH = new Map<string, ResourceType>();
for (const t of BUILTIN_TYPES) if (!BUILTIN_BY_PATH.has(`${t.group}/${t.version}/${t.resource}`)) BUILTIN_BY_PATH.set(`${t.group}/${t.version}/${t.resource}`, t);

/** A CRD status without its Established condition. */
function withoutEstablished(status: JsonObject): JsonObject {
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter((c) => !(isPlainObject(c) && c.type === 'Established')) : [];
  return { ...status, conditions };
}

/** A CRD status whose Established condition is the naming controller's "Installing" (the establishing controller sets it True). */
function installing(status: JsonObject): JsonObject {
  const rest = withoutEstablished(status);
  const established = { type: 'Established', status: 'False', lastTransitionTime: nowRfc3339(), reason: 'Installing', message: 'the initial names have been accepted' };
  return { ...rest, conditions: [...(rest.conditions as JsonObject[]), established] };
}

/** The CRD's API group. */
function groupOf(crd: ObjectWithMeta): string {
  const group = crdSpec(crd).group;
  return typeof group === 'string' ? group : '';
}

/** The CRD's names were accepted (a CRD whose names clash is never Established). */
function namesAccepted(crd: ObjectWithMeta): boolean {
  const conditions = (crd.status as JsonObject | undefined)?.conditions;
  return Array.isArray(conditions) && conditions.some((c) => isPlainObject(c) && c.type === 'NamesAccepted' && c.status === 'True');
}

/** `target[key]` as in `source`, absent when absent there. */
function copyField(target: object, source: object, key: string): void {
  const value = (source as Record<string, unknown>)[key];
  if (value === undefined) delete (target as Record<string, unknown>)[key];
  else (target as Record<string, unknown>)[key] = value;
}

/**
 * The metadata fields an update through `/status` takes from the stored object, the rest being the
 * request's; `undefined` when it keeps only the request's status (custom resources, CRDs).
 */
function statusResetsOf(t: ResourceType): readonly string[] | undefined {
  return t.crd ? undefined : statusMetadataResets(t.group, t.kind);
}

/** A main-resource update changed metadata that bumps the kind's generation (a Deployment's annotations). */
function generationMetadataChanged(t: ResourceType, obj: ObjectWithMeta, old: ObjectWithMeta): boolean {
  if (t.crd) return false;
  const now = obj.metadata as Record<string, unknown>;
  const before = old.metadata as Record<string, unknown>;
  // As apimachinery's semantic equality: an empty map is no map.
  return generationMetadata(t.group, t.kind).some((f) => !jsonEqual(now[f] ?? {}, before[f] ?? {}));
}

export class LogicalCluster {
  readonly store: ObjectStore;
  /** Served types of this cluster's CRDs, by `group/version/resource`. */
  private readonly customTypes = new Map<string, ResourceType>();
  private customTypesGeneration = 0;
  private readonly schemaCache = new WeakMap<object, SchemaNode>();
  /** Parsed CRDs by name, with the revision parsed (storedCrds). */
  private readonly parsedCrds = new Map<string, { rv: number; crd: ObjectWithMeta }>();
  /** Served types built from a parsed CRD. */
  private readonly typesByCrd = new WeakMap<ObjectWithMeta, ResourceType[]>();
  /** Request objects whose unknown fields decodeFields already pruned (and reported). */
  private readonly prunedOnDecode = new WeakSet<object>();
  admitter: Admitter | undefined;
  /** Called after every committed change (the garbage collector and namespace controller listen). */
  afterCommit: ((t: ResourceType, obj: ObjectWithMeta | undefined, old: ObjectWithMeta | undefined) => void) | undefined;
  private clusterIpCounter = 10;
  /**
   * How long after its creation a CRD becomes Established and its custom resources are served; 0:
   * at once. A real kube-apiserver's establishing controller takes a moment, which clients have to
   * wait out; the fault injector sets it (`crdEstablishDelayMs`) to hold them to that.
   */
  crdEstablishDelayMs = 0;

  constructor(
    readonly name: string,
    opts: { historyLimit?: number; initialRv?: number } = {},
  ) {
    this.store = new ObjectStore(opts.initialRv ?? 0, opts.historyLimit ?? 1000);
  }

  // ---- types -------------------------------------------------------------------------------

  /** Resolves `group/version/resource` to a type, built-in or custom. */
  resolve(group: string, version: string, resource: string): ResourceType | undefined {
    const key = `${group}/${version}/${resource}`;
    return BUILTIN_BY_PATH.get(key) ?? this.customTypes.get(key);
  }

  /** Changes whenever the served custom types do (discovery documents are kept until it changes). */
  get typesGeneration(): number {
    return this.customTypesGeneration;
  }

  /** All served types, built-in first, then custom ones in CRD creation order. */
  servedTypes(): ResourceType[] {
    return [...BUILTIN_TYPES, ...this.customTypes.values()];
  }

  customTypeList(): ResourceType[] {
    return [...this.customTypes.values()];
  }

  /** Finds the type for an apiVersion and kind (owner references, webhooks, admission). */
  typeForKind(apiVersion: string, kind: string): ResourceType | undefined {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const matches = (t: ResourceType) => t.group === group && t.version === version && t.kind === kind;
    const builtin = BUILTIN_TYPES.find(matches);
    if (builtin) return builtin;
    for (const t of this.customTypes.values()) if (matches(t)) return t;
    return undefined;
  }

  /** The resource (storage) type for a group and resource, whatever version. */
  typesOfResource(group: string, resource: string): ResourceType[] {
    return this.servedTypes().filter((t) => t.group === group && t.resource === resource);
  }

  /** Rebuilds the served custom types from the stored CRDs (after a restore from disk). */
  reloadTypes(): void {
    // A CRD stored while its establishment was still delayed (crdEstablishDelayMs) would never be
    // served: its timer went with the process. It is established now.
    const crdType = BUILTIN_BY_PATH.get('apiextensions.k8s.io/v1/customresourcedefinitions')!;
    // Likewise a refused CRD whose names were freed just before the stop, as the naming controller
    // looks at every CRD at start.
    const refusedGroups = new Set<string>();
    this.refreshCustomTypes((crd) => {
      if (crd.metadata.deletionTimestamp) return;
      if (namesAccepted(crd)) this.establishLater(crdType, crd.metadata.name ?? '', crd.metadata.uid ?? '');
      else refusedGroups.add(groupOf(crd));
    });
    for (const group of refusedGroups) this.acceptFreedNamesSoon(crdType, group);
    // Custom resources stored before they were kept with sorted keys are sorted once, at restore.
    for (const resource of new Set([...this.customTypes.values()].map(resourceKey))) {
      for (const o of this.store.list(resource)) {
        const json = canonicalJson(JSON.parse(o.json));
        if (json !== o.json) this.store.load(resource, { ...o, json });
      }
    }
  }

  /**
   * The stored CRDs, each parsed once per revision and shared: read-only (a caller that changes one
   * parses its own). Every CRD write looks at all of its cluster's CRDs (the naming check, the
   * served types), and the types built from an unchanged CRD keep their identity, so what is
   * compiled per schema and per type (CEL rules, structural schemas, field tables) is kept too.
   */
  private storedCrds(): ObjectWithMeta[] {
    const stored = this.store.list(CRDS);
    const crds = stored.map((o) => {
      const hit = this.parsedCrds.get(o.name);
      if (hit?.rv === o.rv) return hit.crd;
      const crd = JSON.parse(o.json) as ObjectWithMeta;
      this.parsedCrds.set(o.name, { rv: o.rv, crd });
      return crd;
    });
    if (this.parsedCrds.size > stored.length) {
      const names = new Set(stored.map((o) => o.name));
      for (const name of this.parsedCrds.keys()) if (!names.has(name)) this.parsedCrds.delete(name);
    }
    return crds;
  }

  /** Serves the types of the Established CRDs; `notEstablished` is shown the others. */
  private refreshCustomTypes(notEstablished?: (crd: ObjectWithMeta) => void): void {
    this.customTypesGeneration++;
    this.customTypes.clear();
    for (const crd of this.storedCrds()) {
      if (!isEstablished(crd)) {
        notEstablished?.(crd);
        continue;
      }
      let types = this.typesByCrd.get(crd);
      if (!types) {
        types = typesFromCrd(crd);
        this.typesByCrd.set(crd, types);
      }
      for (const t of types) this.customTypes.set(`${t.group}/${t.version}/${t.resource}`, t);
    }
  }

  schemaOf(t: ResourceType): SchemaNode {
    if (!t.crd) return builtinSchema(t.group, t.kind);
    let s = this.schemaCache.get(t.crd.version);
    if (!s) {
      const schema = (t.crd.version.schema as JsonObject | undefined)?.openAPIV3Schema;
      s = schemaFromOpenAPI(schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
      this.schemaCache.set(t.crd.version, s);
    }
    return s;
  }

  private openApiSchema(t: ResourceType): Record<string, unknown> | undefined {
    return ((t.crd?.version.schema as JsonObject | undefined)?.openAPIV3Schema as Record<string, unknown> | undefined) ?? undefined;
  }

  private storageApiVersion(t: ResourceType): string {
    return groupVersion({ group: t.group, version: storageVersionOf(t) });
  }

  // ---- reads -------------------------------------------------------------------------------

  /** A stored object as the type serves it (another version, or events.k8s.io's view of an Event). */
  decode(t: ResourceType, json: string): ObjectWithMeta {
    return JSON.parse(t.storedAs || storageVersionOf(t) !== t.version ? servedJson(t, json) : json) as ObjectWithMeta;
  }

  /** The stored form of an object and the type whose key and serialization it is stored under. */
  private storedForm(t: ResourceType, obj: ObjectWithMeta): string {
    if (t.storedAs) {
      const core = BUILTIN_TYPES.find((x) => x.group === t.storedAs!.group && x.resource === t.storedAs!.resource)!;
      return serialize(core, eventToCore(obj));
    }
    return serialize(t, t.crd ? obj : toStorageVersion(t.group, t.version, t.kind, obj), this.storageApiVersion(t));
  }

  getStored(t: ResourceType, namespace: string, name: string): StoredObject {
    const o = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    if (!o) throw notFound(refOf(t), name);
    return o;
  }

  get(t: ResourceType, namespace: string, name: string): ObjectWithMeta {
    return this.decode(t, this.getStored(t, namespace, name).json);
  }

  /** A stored object's labels, without decoding it; undefined when there is no such object or it has none. */
  labelsOf(t: ResourceType, namespace: string, name: string): Record<string, string> | undefined {
    return this.store.get(resourceKey(t), t.namespaced ? namespace : '', name)?.labels;
  }

  tryGet(t: ResourceType, namespace: string, name: string): ObjectWithMeta | undefined {
    const o = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    return o ? this.decode(t, o.json) : undefined;
  }

  list(t: ResourceType, namespace: string | undefined, opts: ListOptions = {}): ListResult {
    const key = resourceKey(t);
    let start = '';
    let rv = this.store.rv;
    if (opts.continueToken) {
      const token = decodeContinue(opts.continueToken);
      start = token.start;
      rv = token.rv;
    }
    const all = start ? this.store.listFrom(key, start, t.namespaced ? namespace : undefined) : this.store.list(key, t.namespaced ? namespace : undefined);
    const items: StoredObject[] = [];
    let remaining = 0;
    let continueToken: string | undefined;
    for (const o of all) {
      if (opts.labelSelector && !matchesLabels(opts.labelSelector, o.labels)) continue;
      if (opts.fieldSelector && opts.fieldSelector.length > 0 && !matchesFields(opts.fieldSelector, JSON.parse(o.json) as Record<string, unknown>)) continue;
      if (opts.limit && items.length >= opts.limit) {
        remaining++;
        continue;
      }
      items.push(o);
    }
    if (opts.limit && remaining > 0) {
      const last = items[items.length - 1];
      continueToken = encodeContinue(rv, `${last.namespace ? `${last.namespace}/` : ''}${last.name}\u0000`);
    }
    // A selector makes the count unknowable without reading everything: the real server omits it then.
    const filtered = (opts.labelSelector?.length ?? 0) > 0 || (opts.fieldSelector?.length ?? 0) > 0;
    return { rv, items, continueToken, remaining: continueToken && !filtered ? remaining : undefined };
  }

  // ---- writes ------------------------------------------------------------------------------

  private nextRv(): number {
    return this.store.nextRv();
  }

  private checkNamespace(t: ResourceType, namespace: string, name: string, creating: boolean): void {
    if (!t.namespaced) return;
    const ns = this.store.get(NAMESPACES, '', namespace);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    if (creating && ns.json.includes('"deletionTimestamp"')) {
      const o = JSON.parse(ns.json) as ObjectWithMeta;
      if (o.metadata.deletionTimestamp) {
        const err = forbidden(refOf(t), name, `unable to create new content in namespace ${namespace} because it is being terminated`);
        err.details!.causes = [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }];
        throw err;
      }
    }
  }

  private checkKind(t: ResourceType, obj: ObjectWithMeta): void {
    const gv = obj.apiVersion;
    const kind = obj.kind;
    if (kind === undefined || kind === '' || gv === undefined || gv === '') {
      if (t.crd) {
        const missing = kind ? 'apiVersion' : 'kind';
        throw badRequest(`Object '${missing === 'kind' ? 'Kind' : 'apiVersion'}' is missing in '${JSON.stringify(obj)}'`);
      }
      return;
    }
    if (kind !== t.kind || (gv !== groupVersion(t) && !this.typesOfResource(t.group, t.resource).some((o) => groupVersion(o) === gv))) {
      const target = t.crd ? t.kind : t.kind;
      throw badRequest(`${kind} in version "${gv.includes('/') ? gv.split('/')[1] : gv}" cannot be handled as a ${target}: converting (${gv.includes('/') ? gv.split('/')[1] : gv}.${kind}) to (${t.group ? t.group.split('.')[0] : 'core'}.${target}): unknown conversion`);
    }
  }

  /**
   * Drops the fields of a request's object that its kind does not declare, as decoding does, and
   * answers them per the request's fieldValidation: an error (Strict), warnings (Warn) or nothing.
   */
  private decodeFields(t: ResourceType, obj: ObjectWithMeta, opts: WriteOptions, strictError: (paths: string[]) => StatusError): void {
    const paths = dropUnknownFields(t, obj as unknown as Record<string, unknown>);
    const mode = opts.fieldValidation ?? 'Warn';
    const schema = t.crd ? this.openApiSchema(t) : undefined;
    // Custom resources are pruned here, before defaulting, as decoding does; normalizeContent then
    // leaves them be. Without anyone to tell (Ignore, or Warn for in-process callers) it prunes them.
    if (schema && (mode === 'Strict' || opts.warnings)) {
      prune(schema, obj as unknown as Record<string, unknown>, (p) => paths.push(p));
      this.prunedOnDecode.add(obj);
    }
    if (paths.length === 0) return;
    if (mode === 'Strict') throw strictError(paths);
    if (mode === 'Warn') opts.warnings?.push(...unknownFieldWarnings(paths));
  }

  /** Defaulting, pruning and validation of the object about to be stored. */
  private validate(t: ResourceType, obj: ObjectWithMeta, old: ObjectWithMeta | undefined): void {
    const errs: FieldError[] = [];
    const name = obj.metadata.name ?? '';
    if (!old) for (const msg of validateName(t.group, t.kind, name)) errs.push(fieldErrors.invalid('metadata.name', name, msg));
    if (t.crd) {
      const schema = this.openApiSchema(t);
      if (schema) errs.push(...validateCustomResource(schema, obj as unknown as Record<string, unknown>, old as unknown as Record<string, unknown> | undefined));
      errs.push(...validateScalePaths(t, obj));
    } else if (t.kind === 'CustomResourceDefinition') {
      errs.push(...validateCrd(obj, old));
    } else {
      errs.push(...validateBuiltin(t.group, t.kind, obj, old));
    }
    if (old?.metadata.deletionTimestamp) {
      const before = new Set(old.metadata.finalizers ?? []);
      const added = (obj.metadata.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0) {
        const e = fieldErrors.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`);
        // Custom resources run the metadata checks twice, and the real server reports both.
        errs.push(e);
        if (t.crd) errs.push(e);
      }
    }
    // events.k8s.io Events are validated as core Events, and the message says so.
    if (errs.length > 0) throw invalid(t.kind, t.storedAs ? t.storedAs.group : t.group, name, errs);
  }

  private normalizeContent(t: ResourceType, obj: ObjectWithMeta): void {
    if (t.crd) {
      const schema = this.openApiSchema(t);
      if (schema) {
        applyDefaults(schema, obj as unknown as Record<string, unknown>);
        if (!this.prunedOnDecode.has(obj)) prune(schema, obj as unknown as Record<string, unknown>);
      }
    } else {
      applyBuiltinDefaults(t.group, t.kind, obj);
      dropEmptyFields(t.group, t.kind, obj);
    }
  }

  private managerOf(opts: WriteOptions): string {
    return opts.fieldManager ?? 'unknown';
  }

  async create(t: ResourceType, namespace: string, body: ObjectWithMeta, opts: WriteOptions = {}): Promise<WriteResult> {
    this.checkKind(t, body);
    return this.createFrom(t, namespace, deepClone(body), body, opts);
  }

  /** A create of `obj`, this server's own copy of the request's `body` (changed in place). */
  private async createFrom(t: ResourceType, namespace: string, obj: ObjectWithMeta, body: ObjectWithMeta, opts: WriteOptions): Promise<WriteResult> {
    this.decodeFields(t, obj, opts, (paths) => strictDecodingError(t, body, paths));
    obj.apiVersion = groupVersion(t);
    obj.kind = t.kind;
    if (!isPlainObject(obj.metadata)) obj.metadata = {};
    const meta = obj.metadata;
    if (t.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`;
    if (!meta.name) throw invalid(t.kind, t.group, '', [fieldErrors.required('metadata.name', 'name or generateName is required')]);
    this.checkNamespace(t, namespace, meta.name, true);
    if (meta.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
    meta.uid = newUid();
    meta.creationTimestamp = nowRfc3339();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (t.generation) meta.generation = 1;
    else delete meta.generation;
    // What decoding does (and the creator therefore owns) comes before field tracking;
    // the kind's create strategy (status reset, allocations) comes after and is owned by nobody.
    if (t.crd && t.status) delete obj.status;
    decodeDefaults(t, obj);
    this.normalizeContent(t, obj);
    const previous = Array.isArray(body.metadata?.managedFields) ? body.metadata.managedFields : [];
    obj.metadata.managedFields = recordUpdate({
      oldObject: undefined,
      newObject: obj,
      previous,
      manager: this.managerOf(opts),
      apiVersion: groupVersion(t),
      time: nowRfc3339(),
      schema: this.schemaOf(t),
      statusSubresource: t.status,
    });
    if (obj.metadata.managedFields.length === 0) delete obj.metadata.managedFields;
    if (!t.crd) {
      prepareForCreate(t.group, t.kind, obj, { allocateClusterIP: () => this.allocateClusterIp() });
      if (t.kind === 'CustomResourceDefinition') {
        obj.status = acceptedStatus(obj, nowRfc3339(), this.storedCrds());
        // Established later, as by kube-apiserver's establishing controller (commit schedules it).
        if (this.crdEstablishDelayMs > 0 && namesAccepted(obj)) obj.status = withoutEstablished(obj.status as JsonObject);
      }
      dropEmptyFields(t.group, t.kind, obj);
    }
    this.validate(t, obj, undefined);
    const key = resourceKey(t);
    if (this.store.get(key, t.namespaced ? namespace : '', meta.name)) throw alreadyExists(refOf(t), meta.name);
    if (!opts.internal) await this.admit(t, 'CREATE', obj, undefined, opts);
    if (this.store.get(key, t.namespaced ? namespace : '', meta.name)) throw alreadyExists(refOf(t), meta.name);
    if (opts.dryRun) return { code: 201, object: obj, exists: true };
    return this.committed(201, t, obj, undefined);
  }

  /** Next free Service IP from 10.96.0.0/16 (the counter restarts with the process: skip taken ones). */
  private allocateClusterIp(): string {
    const taken = new Set(this.store.list('/services').map((o) => /"clusterIP":"([^"]+)"/.exec(o.json)?.[1]));
    for (;;) {
      const n = this.clusterIpCounter++;
      const ip = `10.96.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
      if (!taken.has(ip)) return ip;
    }
  }

  /** Commits a write and answers it with the text just stored when that is the served form (no second serialization). */
  private committed(code: number, t: ResourceType, obj: ObjectWithMeta, old: ObjectWithMeta | undefined): WriteResult {
    const { object, json } = this.commit(t, obj, old);
    return { code, object, exists: true, json };
  }

  /** Stores the object under a new resourceVersion and notifies listeners; `json` when the stored text is also the served one. */
  private commit(t: ResourceType, obj: ObjectWithMeta, old: ObjectWithMeta | undefined): { object: ObjectWithMeta; json?: string } {
    const rv = this.nextRv();
    obj.metadata.resourceVersion = String(rv);
    const json = this.storedForm(t, obj);
    this.store.put(resourceKey(t), { json, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '', labels: obj.metadata.labels }, rv);
    if (t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io') {
      this.crdsChanged(t, groupOf(obj));
      if (!old && this.crdEstablishDelayMs > 0 && namesAccepted(obj) && !isEstablished(obj)) this.establishLater(t, obj.metadata.name ?? '', obj.metadata.uid ?? '');
    }
    this.afterCommit?.(t, obj, old);
    if (t.storedAs || (!t.crd && storageVersionOf(t) !== t.version)) return { object: this.decode(t, json) };
    if (t.crd && t.crd.storageVersion !== t.version) return { object: { ...obj, apiVersion: groupVersion(t) } };
    return { object: obj, json };
  }

  /** Sets the Established condition of a new CRD after crdEstablishDelayMs (unless it went or was replaced meanwhile). */
  private establishLater(t: ResourceType, name: string, uid: string): void {
    const timer = setTimeout(() => {
      const crd = this.tryGet(t, '', name);
      if (!crd || crd.metadata.uid !== uid || isEstablished(crd) || !namesAccepted(crd) || crd.metadata.deletionTimestamp) return;
      const status = (isPlainObject(crd.status) ? crd.status : {}) as JsonObject;
      const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as JsonObject[];
      const established = { type: 'Established', status: 'True', lastTransitionTime: nowRfc3339(), reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
      crd.status = { ...status, conditions: [...conditions.filter((c) => c.type !== 'Established'), established] };
      // Lost to a write in between: the object that write left is looked at again.
      this.update(t, '', name, crd, { internal: true, subresource: 'status', fieldManager: 'kube-apiserver' }).catch((e: unknown) => {
        if (e instanceof StatusError && e.code === 409) this.establishLater(t, name, uid);
      });
    }, this.crdEstablishDelayMs);
    timer.unref?.();
  }

  /**
   * A CRD of `group` was written or removed: the served types follow, and, as kube-apiserver's naming
   * controller looks at the group's other CRDs again, those whose names were refused are accepted
   * once their names are free (the CRD that held them deleted; names changed in a CRD's spec are not
   * re-evaluated, see docs/apiserver.md "Known deviations").
   */
  private crdsChanged(crdType: ResourceType, group: string): void {
    let refused = false;
    this.refreshCustomTypes((crd) => {
      if (!namesAccepted(crd) && !crd.metadata.deletionTimestamp && groupOf(crd) === group) refused = true;
    });
    if (refused) this.acceptFreedNamesSoon(crdType, group);
  }

  private acceptFreedNamesSoon(crdType: ResourceType, group: string): void {
    // Its writes' own failures are handled inside; nothing else in it throws.
    const timer = setTimeout(() => {
      this.acceptFreedNames(crdType, group).catch(() => undefined);
    }, 0);
    timer.unref?.();
  }

  /** Accepts, one after the other, the refused CRDs of `group` whose names no other CRD holds now. */
  private async acceptFreedNames(t: ResourceType, group: string): Promise<void> {
    const crds = () => this.store.list(CRDS).map((o) => JSON.parse(o.json) as ObjectWithMeta);
    for (const crd of crds()) {
      if (groupOf(crd) !== group || namesAccepted(crd) || crd.metadata.deletionTimestamp) continue;
      // The others as they are now: a CRD accepted just before holds its names.
      const status = acceptedStatus(crd, nowRfc3339(), crds()) as JsonObject;
      if (!namesAccepted({ ...crd, status })) continue;
      const name = crd.metadata.name ?? '';
      crd.status = this.crdEstablishDelayMs > 0 ? installing(status) : status;
      try {
        await this.update(t, '', name, crd, { internal: true, subresource: 'status', fieldManager: 'kube-apiserver' });
        if (this.crdEstablishDelayMs > 0) this.establishLater(t, name, crd.metadata.uid ?? '');
      } catch {
        // Written meanwhile (that write looks at the group again) or deleted: nothing to do for it here.
      }
    }
  }

  private removeNow(t: ResourceType, obj: ObjectWithMeta): void {
    const rv = this.nextRv();
    const final = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
    this.store.remove(resourceKey(t), obj.metadata.namespace ?? '', obj.metadata.name ?? '', this.storedForm(t, final), rv);
    if (t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io') this.crdsChanged(t, groupOf(obj));
    this.afterCommit?.(t, undefined, obj);
  }

  /**
   * PUT: full replacement. `subresource` 'status' replaces only status. A stale
   * metadata.resourceVersion conflicts; none means "whatever is there".
   */
  async update(t: ResourceType, namespace: string, name: string, body: ObjectWithMeta, opts: WriteOptions & { subresource?: string } = {}): Promise<WriteResult> {
    this.checkKind(t, body);
    if (!isPlainObject(body.metadata)) body.metadata = {};
    if (body.metadata.name !== undefined && body.metadata.name !== name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    if (t.namespaced && body.metadata.namespace && body.metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const stored = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    if (!stored) throw notFound(refOf(t), name);
    const old = this.decode(t, stored.json);
    if (body.metadata.resourceVersion && body.metadata.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(refOf(t), name, MODIFIED);
    }
    const next = deepClone(body);
    this.decodeFields(t, next, opts, (paths) => strictDecodingError(t, body, paths));
    return conflictOnRace(this.finishUpdate(t, old, next, opts, opts.subresource, undefined, stored.json));
  }

  /**
   * Everything an update does after the new content is known: carry server-owned fields over,
   * default, validate, track field managers, skip no-ops, admit, store (or delete when the
   * last finalizer of a deleting object went away).
   */
  private async finishUpdate(
    t: ResourceType,
    old: ObjectWithMeta,
    next: ObjectWithMeta,
    opts: WriteOptions,
    subresource: string | undefined,
    managed?: 'apply' | 'precomputed',
    /** The stored text `old` was decoded from: another copy of it is decoded from it rather than cloned. */
    oldJson?: string,
  ): Promise<WriteResult> {
    next.apiVersion = groupVersion(t);
    next.kind = t.kind;
    if (!isPlainObject(next.metadata)) next.metadata = {};
    let obj: ObjectWithMeta;
    const statusResets = subresource === 'status' ? statusResetsOf(t) : undefined;
    if (subresource === 'status' && statusResets === undefined) {
      // Custom resources: the stored object with the request's status, nothing else.
      obj = { ...(oldJson !== undefined ? this.decode(t, oldJson) : deepClone(old)), status: next.status };
      if (next.status === undefined) delete obj.status;
      obj.metadata.managedFields = next.metadata.managedFields ?? old.metadata.managedFields;
    } else {
      obj = next;
      keepServerMetadata(t, obj.metadata, old.metadata);
      if (statusResets !== undefined) {
        // A built-in kind's status strategy: the stored spec, the request's metadata but what it resets.
        keepSpec(obj, old);
        for (const f of statusResets) copyField(obj.metadata, old.metadata, f);
      } else {
        if (t.status) copyField(obj, old, 'status');
        if (!t.crd) prepareForUpdate(t.group, t.kind, obj, old);
      }
    }
    this.normalizeContent(t, obj);
    if (t.generation) {
      const changed = subresource !== 'status' && (!jsonEqual(specPart(obj), specPart(old)) || generationMetadataChanged(t, obj, old));
      obj.metadata.generation = (old.metadata.generation ?? 1) + (changed ? 1 : 0);
    } else {
      delete obj.metadata.generation;
    }
    this.validate(t, obj, old);
    if (managed === undefined) {
      const mf = recordUpdate({
        oldObject: old,
        newObject: obj,
        previous: next.metadata.managedFields ?? old.metadata.managedFields ?? [],
        // A read-modify-write sends the managedFields it read; one that rewrites them is not trusted as stored.
        previousIsStored: next.metadata.managedFields === undefined || jsonEqual(next.metadata.managedFields, old.metadata.managedFields),
        manager: this.managerOf(opts),
        apiVersion: groupVersion(t),
        subresource,
        time: nowRfc3339(),
        schema: this.schemaOf(t),
        statusSubresource: t.status,
        statusMetadataResets: statusResets,
      });
      if (mf.length > 0) obj.metadata.managedFields = mf;
      else delete obj.metadata.managedFields;
    }
    obj.metadata.resourceVersion = old.metadata.resourceVersion;
    const finalizing = !!obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).length === 0;
    if (!finalizing && jsonEqual(obj, old)) return { code: 200, object: old, exists: true };
    if (finalizing) delete obj.metadata.finalizers;
    if (!opts.internal) await this.admit(t, 'UPDATE', obj, old, opts, subresource);
    const current = this.store.get(resourceKey(t), old.metadata.namespace ?? '', old.metadata.name ?? '');
    if (!current) throw notFound(refOf(t), old.metadata.name ?? '');
    if (String(current.rv) !== old.metadata.resourceVersion) throw new ChangedDuringAdmission(conflict(refOf(t), old.metadata.name ?? '', MODIFIED));
    if (opts.dryRun) return { code: 200, object: obj, exists: true };
    if (finalizing) {
      // The update is not stored: the object as it was is deleted (the DELETED event shows it).
      this.removeNow(t, old);
      return { code: 200, object: obj, exists: false };
    }
    return this.committed(200, t, obj, old);
  }

  /**
   * Stores `next` for a subresource that computed it from `old` itself, managedFields included (the
   * scale subresource). Its caller has admitted the write (webhooks see Scale objects there) and
   * checked a resourceVersion the client sent; a change since `old` was read is a 409.
   */
  async updateFromSubresource(t: ResourceType, old: ObjectWithMeta, next: ObjectWithMeta, subresource: string, opts: WriteOptions): Promise<WriteResult> {
    return conflictOnRace(this.finishUpdate(t, old, next, { ...opts, internal: true }, subresource, 'precomputed'));
  }

  /**
   * A patch that does not name a resourceVersion applies to whatever is stored: when the object
   * changed while admission webhooks were called, kube-apiserver tries it again on the new object
   * (GuaranteedUpdate) instead of answering 409; so does this.
   */
  async patch(
    t: ResourceType,
    namespace: string,
    name: string,
    type: PatchType,
    patchBody: unknown,
    opts: WriteOptions & { subresource?: string; force?: boolean } = {},
  ): Promise<WriteResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.patchOnce(t, namespace, name, type, patchBody, opts);
      } catch (e) {
        if (!(e instanceof ChangedDuringAdmission)) throw e;
        if (attempt >= PATCH_ATTEMPTS) throw e.conflict;
      }
    }
  }

  private async patchOnce(
    t: ResourceType,
    namespace: string,
    name: string,
    type: PatchType,
    patchBody: unknown,
    opts: WriteOptions & { subresource?: string; force?: boolean },
  ): Promise<WriteResult> {
    const stored = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    if (type === 'apply') return this.apply(t, namespace, name, patchBody, stored, opts);
    if (!stored) throw notFound(refOf(t), name);
    const old = this.decode(t, stored.json);
    let next: unknown;
    // A second decode is the patch's own copy (cheaper than cloning the first).
    const base = this.decode(t, stored.json) as unknown as JsonObject;
    if (type === 'merge') next = mergePatch(base, patchBody);
    else if (type === 'json') next = jsonPatch(base, patchBody);
    else next = strategicMergePatch(base, patchBody as JsonObject, this.schemaOf(t));
    if (!isPlainObject(next)) throw badRequest('the server rejected our request due to an error in our request');
    const obj = next as ObjectWithMeta;
    // Under Strict the error shows the patch (strategic) or the patched object as sent, unknown fields included.
    const shown = opts.fieldValidation !== 'Strict' ? undefined : type === 'strategic' ? { patchMap: patchBody } : { patched: deepClone(next) };
    this.decodeFields(t, obj, opts, (paths) => strictPatchError(shown ?? { patched: next }, paths));
    if (!isPlainObject(obj.metadata)) obj.metadata = {};
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined && rv !== old.metadata.resourceVersion) throw conflict(refOf(t), name, MODIFIED);
    if (obj.metadata.name !== name) throw badRequest(`the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${name})`);
    if (!Array.isArray(obj.metadata.managedFields)) obj.metadata.managedFields = old.metadata.managedFields;
    return this.finishUpdate(t, old, obj, opts, opts.subresource, undefined, stored.json);
  }

  private async apply(
    t: ResourceType,
    namespace: string,
    name: string,
    applied: unknown,
    stored: StoredObject | undefined,
    opts: WriteOptions & { subresource?: string; force?: boolean },
  ): Promise<WriteResult> {
    if (!isPlainObject(applied)) throw badRequest('the server rejected our request due to an error in our request');
    const cfg = applied as ObjectWithMeta;
    if (!isPlainObject(cfg.metadata)) cfg.metadata = {};
    if (cfg.metadata.name !== undefined && cfg.metadata.name !== name) {
      throw badRequest(`the name of the object (${String(cfg.metadata.name)}) does not match the name on the URL (${name})`);
    }
    this.checkKind(t, cfg);
    this.decodeFields(t, cfg, opts, (paths) => strictApplyError(t, t.namespaced ? namespace : '', name, paths));
    const manager = opts.fieldManager ?? '';
    const old = stored ? this.decode(t, stored.json) : undefined;
    const merged = applyPatch({
      live: old,
      applied: cfg,
      previous: old?.metadata.managedFields ?? [],
      previousIsStored: true,
      manager,
      apiVersion: groupVersion(t),
      subresource: opts.subresource,
      time: nowRfc3339(),
      force: opts.force ?? false,
      schema: this.schemaOf(t),
      statusSubresource: t.status,
      statusMetadataResets: statusResetsOf(t),
    });
    if (!old) {
      if (opts.subresource) throw notFound(refOf(t), name);
      merged.metadata.name = name;
      const managedFields = merged.metadata.managedFields;
      const result = await this.createApplied(t, namespace, merged, managedFields ?? [], opts);
      return result;
    }
    if (merged.metadata.resourceVersion !== undefined && merged.metadata.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(refOf(t), name, MODIFIED);
    }
    return conflictOnRace(this.finishUpdate(t, old, merged, opts, opts.subresource, 'apply', stored?.json));
  }

  /** Create through server-side apply: the apply entry the field manager computed is kept. */
  private async createApplied(t: ResourceType, namespace: string, obj: ObjectWithMeta, managedFields: ObjectWithMeta['metadata']['managedFields'] & object, opts: WriteOptions): Promise<WriteResult> {
    // The merged object shares nothing with the request (mergeApplied): no copy of it is needed.
    const own = { ...obj, metadata: { ...obj.metadata, managedFields: [] } };
    const created = await this.createFrom(t, namespace, own, own, { ...opts, dryRun: true });
    const o = created.object;
    o.metadata.managedFields = managedFields;
    if (opts.dryRun) return created;
    await Promise.resolve();
    if (this.store.get(resourceKey(t), t.namespaced ? namespace : '', o.metadata.name ?? '')) throw alreadyExists(refOf(t), o.metadata.name ?? '');
    return this.committed(201, t, o, undefined);
  }

  /**
   * DELETE. With finalizers (or a Foreground/Orphan policy, which add one) the object only gets
   * its deletionTimestamp; otherwise it goes at once.
   */
  async delete(t: ResourceType, namespace: string, name: string, options: DeleteOptions = {}, opts: WriteOptions = {}): Promise<WriteResult> {
    const stored = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    if (!stored) throw notFound(refOf(t), name);
    const old = this.decode(t, stored.json);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) {
      throw conflict({ group: t.group, resource: t.kind }, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${old.metadata.uid}). The object might have been deleted and then recreated`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict({ group: t.group, resource: t.kind }, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${old.metadata.resourceVersion}). The object might have been modified`);
    }
    let policy = options.propagationPolicy;
    if (!policy && options.orphanDependents === true) policy = 'Orphan';
    const finalizers = [...(old.metadata.finalizers ?? [])];
    const gcFinalizer = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
    if (old.metadata.deletionTimestamp) {
      // Already deleting: a new policy may still swap the GC finalizer, nothing else changes.
      if (gcFinalizer && !finalizers.includes(gcFinalizer)) {
        const obj = deepClone(old);
        obj.metadata.finalizers = [...finalizers.filter((f) => f !== 'foregroundDeletion' && f !== 'orphan'), gcFinalizer];
        if (opts.dryRun) return { code: 200, object: obj, exists: true };
        return this.committed(200, t, obj, old);
      }
      return { code: 200, object: old, exists: true };
    }
    if (gcFinalizer && !finalizers.includes(gcFinalizer)) finalizers.push(gcFinalizer);
    if (t.kind === 'Namespace' && t.group === '') {
      const obj = deepClone(old);
      obj.metadata.deletionTimestamp = nowRfc3339();
      obj.metadata.deletionGracePeriodSeconds = 0;
      if (finalizers.length > 0) obj.metadata.finalizers = finalizers;
      obj.status = { ...(isPlainObject(obj.status) ? obj.status : {}), phase: 'Terminating' };
      if (!opts.internal && this.admitter) await this.admit(t, 'DELETE', undefined, old, opts, undefined, options);
      if (opts.dryRun) return { code: 200, object: obj, exists: true };
      return this.committed(200, t, obj, old);
    }
    const isCrd = t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io';
    if (isCrd && !finalizers.includes(CRD_CLEANUP_FINALIZER)) finalizers.push(CRD_CLEANUP_FINALIZER);
    if (!opts.internal && this.admitter) await this.admit(t, 'DELETE', undefined, old, opts, undefined, options);
    if (finalizers.length > 0) {
      const obj = deepClone(old);
      if (isCrd) markCrdTerminating(obj);
      obj.metadata.deletionTimestamp = nowRfc3339();
      obj.metadata.deletionGracePeriodSeconds = 0;
      obj.metadata.finalizers = finalizers;
      if (t.crd) obj.metadata.generation = (old.metadata.generation ?? 1) + 1;
      if (opts.dryRun) return { code: 200, object: obj, exists: true };
      return this.committed(200, t, obj, old);
    }
    if (opts.dryRun) return { code: 200, object: old, exists: false };
    this.removeNow(t, old);
    return { code: 200, object: old, exists: false };
  }

  /** Removes a namespace whose content is gone (namespace controller). */
  finalizeNamespace(name: string): void {
    const t = BUILTIN_TYPES.find((x) => x.kind === 'Namespace')!;
    const ns = this.tryGet(t, '', name);
    if (!ns || !ns.metadata.deletionTimestamp) return;
    const spec = (ns.spec as JsonObject | undefined) ?? {};
    if (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) {
      const obj = deepClone(ns);
      obj.spec = { ...spec };
      delete (obj.spec as JsonObject).finalizers;
      if (Object.keys(obj.spec as object).length === 0) obj.spec = {};
      if ((obj.metadata.finalizers ?? []).length === 0) {
        this.removeNow(t, obj);
        return;
      }
      this.commit(t, obj, ns);
      return;
    }
    if ((ns.metadata.finalizers ?? []).length === 0) this.removeNow(t, ns);
  }

  /** Writes status conditions of a terminating namespace (namespace controller). */
  setNamespaceStatus(name: string, status: JsonObject): void {
    const t = BUILTIN_TYPES.find((x) => x.kind === 'Namespace')!;
    const ns = this.tryGet(t, '', name);
    if (!ns) return;
    if (jsonEqual(ns.status, status)) return;
    const obj = deepClone(ns);
    obj.status = status;
    obj.metadata.managedFields = recordUpdate({
      oldObject: ns,
      newObject: obj,
      previous: ns.metadata.managedFields ?? [],
      previousIsStored: true,
      manager: 'kube-controller-manager',
      apiVersion: 'v1',
      subresource: 'status',
      time: nowRfc3339(),
      schema: this.schemaOf(t),
      statusSubresource: true,
    });
    this.commit(t, obj, ns);
  }

  /**
   * What the pods/binding subresource stores (kube's BindingREST.assignPod): the pod's
   * spec.nodeName, which a pod update may not change, and its PodScheduled condition. A pod that is
   * being deleted or already bound is refused with 409.
   */
  bindPod(namespace: string, name: string, nodeName: string): WriteResult {
    const t = BUILTIN_TYPES.find((x) => x.group === '' && x.kind === 'Pod')!;
    const old = this.get(t, namespace, name);
    const ref = { group: '', resource: 'pods/binding' };
    if (old.metadata.deletionTimestamp) throw conflict(ref, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    const spec = (old.spec ?? {}) as JsonObject;
    if (spec.nodeName) throw conflict(ref, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`);
    const obj = deepClone(old);
    (obj.spec as JsonObject).nodeName = nodeName;
    const status = (isPlainObject(obj.status) ? obj.status : {}) as JsonObject;
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as JsonObject[];
    const scheduled: JsonObject = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowRfc3339() };
    const i = conditions.findIndex((c) => c.type === 'PodScheduled');
    if (i >= 0) conditions[i] = scheduled;
    else conditions.push(scheduled);
    obj.status = { ...status, conditions };
    return this.committed(201, t, obj, old);
  }

  /** Server-internal update (controllers): no admission, manager as given. */
  async updateInternal(t: ResourceType, obj: ObjectWithMeta, manager: string): Promise<WriteResult> {
    return this.update(t, obj.metadata.namespace ?? '', obj.metadata.name ?? '', obj, { fieldManager: manager, internal: true });
  }

  private async admit(
    t: ResourceType,
    operation: AdmissionAttributes['operation'],
    obj: ObjectWithMeta | undefined,
    old: ObjectWithMeta | undefined,
    opts: WriteOptions,
    subresource?: string,
    deleteOptions?: DeleteOptions,
  ): Promise<void> {
    if (opts.internal) return;
    // RBAC objects are checked for escalation before the validating webhooks, as kube's RBAC storage does.
    // A write that names no user is checked as nobody's (fails closed): only internal writes skip it.
    if (obj && operation !== 'DELETE') checkRbacWrite(this, t, obj, old, opts.user ?? ANONYMOUS);
    if (!this.admitter) return;
    await this.admitter.admit(this, {
      type: t,
      operation,
      object: obj,
      oldObject: old,
      namespace: (obj ?? old)?.metadata.namespace ?? '',
      name: (obj ?? old)?.metadata.name ?? '',
      subresource: subresource ?? '',
      dryRun: !!opts.dryRun,
      user: opts.user,
      fieldManager: opts.explicitFieldManager ? opts.fieldManager : undefined,
      deleteOptions,
    });
  }

  /** For the watch layer: answer 410 when a resourceVersion is older than the kept history. */
  eventsSince(t: ResourceType, rv: number) {
    const events = this.store.eventsSince(rv, resourceKey(t));
    if (!events) throw gone(`too old resource version: ${rv} (${this.store.rv})`);
    return events;
  }
}

/**
 * Defaults a real server applies while decoding the request (so the writer owns the fields):
 * a Namespace's name label, a Secret's stringData folded into data, a CRD's conversion strategy.
 */
function decodeDefaults(t: ResourceType, obj: ObjectWithMeta): void {
  if (t.crd) return;
  if (t.group === '' && t.kind === 'Namespace') {
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
  } else if (t.group === '' && t.kind === 'Secret' && isPlainObject(obj.stringData)) {
    const data: Record<string, unknown> = isPlainObject(obj.data) ? { ...obj.data } : {};
    for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
    obj.data = data;
    delete obj.stringData;
  } else if (t.kind === 'CustomResourceDefinition') {
    defaultCrd(obj);
  }
}

/** The condition kube-apiserver adds to a CRD whose deletion waits for its custom resources to go. */
function markCrdTerminating(crd: ObjectWithMeta): void {
  const status = isPlainObject(crd.status) ? (crd.status as JsonObject) : {};
  const conditions = Array.isArray(status.conditions) ? (status.conditions as JsonObject[]).filter((c) => c.type !== 'Terminating') : [];
  conditions.push(terminatingCondition(nowRfc3339()) as unknown as JsonObject);
  crd.status = { ...status, conditions };
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

/** A character as Go's encoding/json quotes it in syntax errors ('x', '\\u0081'). */
function goQuoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return `'"'`;
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return `'\\u${code.toString(16).padStart(4, '0')}'`;
  return `'${ch}'`;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): ContinueToken {
  const bytes = Buffer.from(token, 'base64url');
  const text = bytes.toString('latin1');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    const shown = goQuoteChar(text.trimStart()[0] ?? '');
    throw badRequest(`invalid continue token: continue key is not valid: invalid character ${shown} looking for beginning of value`);
  }
  const tok = parsed as ContinueToken;
  if (!isPlainObject(parsed) || tok.v !== 'meta.k8s.io/v1' || typeof tok.rv !== 'number' || typeof tok.start !== 'string') {
    throw badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  return tok;
}

export { StatusError };
