// The paths and operations of a served resource, in the shape kube-apiserver publishes them: one
// path per collection, object, subresource and (deprecated) watch URL; operations carrying
// x-kubernetes-action and x-kubernetes-group-version-kind; every write taking dryRun, fieldManager
// and fieldValidation (kubectl reads the last on PATCH to choose server-side field validation).
import { groupVersion, type ResourceType } from '../resources.js';
import { scaleSubresourceOf } from '../scale.js';
import { DELETE_OPTIONS, type Flavor, GVK_EXTENSION, type Gvk, PATCH, ref, type Schema, SCALE, STATUS, WATCH_EVENT } from './schema.js';

export type PathItem = Record<string, unknown>;

/** Media types of PATCH bodies: built-in kinds also take strategic merge patches, custom resources do not. */
export function patchMediaTypes(t: ResourceType): string[] {
  return t.crd
    ? ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']
    : ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
}

/** What the server answers with: JSON, and protobuf for built-in kinds (no YAML answers). */
function answerMediaTypes(t: ResourceType): { object: string[]; watch: string[] } {
  return t.crd
    ? { object: ['application/json'], watch: ['application/json;stream=watch'] }
    : { object: ['application/json', 'application/vnd.kubernetes.protobuf'], watch: ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'] };
}

type ParamType = 'string' | 'boolean' | 'integer';

const LIST_PARAMS: [string, ParamType][] = [
  ['allowWatchBookmarks', 'boolean'],
  ['continue', 'string'],
  ['fieldSelector', 'string'],
  ['labelSelector', 'string'],
  ['limit', 'integer'],
  ['resourceVersion', 'string'],
  ['resourceVersionMatch', 'string'],
  ['sendInitialEvents', 'boolean'],
  ['timeoutSeconds', 'integer'],
  ['watch', 'boolean'],
];
const WRITE_PARAMS: [string, ParamType][] = [
  ['dryRun', 'string'],
  ['fieldManager', 'string'],
  ['fieldValidation', 'string'],
];
const PATCH_PARAMS: [string, ParamType][] = [...WRITE_PARAMS, ['force', 'boolean']];
const DELETE_PARAMS: [string, ParamType][] = [
  ['dryRun', 'string'],
  ['gracePeriodSeconds', 'integer'],
  ['orphanDependents', 'boolean'],
  ['propagationPolicy', 'string'],
];

function param(name: string, type: ParamType, where: 'query' | 'path', flavor: Flavor): Schema {
  const p: Schema = { name, in: where };
  if (where === 'path') p.required = true;
  if (flavor === 'v2') {
    p.type = type;
    p.uniqueItems = true;
  } else {
    p.schema = { type, uniqueItems: true };
  }
  return p;
}

const queryParams = (list: [string, ParamType][], flavor: Flavor) => list.map(([n, t]) => param(n, t, 'query', flavor));

/** `apps` -> `Apps`, `rbac.authorization.k8s.io` -> `RbacAuthorization`, a CRD's `demo.example.com` -> `DemoExampleCom`, core -> `Core`. */
function groupId(t: ResourceType): string {
  if (t.group === '') return 'Core';
  const g = t.crd ? t.group : t.group.replace(/\.k8s\.io$/, '');
  return g
    .split(/[.-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

interface OperationSpec {
  verb: string; // operationId prefix: list, create, read, replace, patch, delete, watch
  action: string; // x-kubernetes-action
  idSuffix?: string;
  collection?: boolean; // deletecollection's "Collection" infix
  params: Schema[];
  body?: { schema: Schema; mediaTypes: string[] };
  responses: [string, Schema | undefined][]; // code, answer schema
  produces?: 'list' | 'watch'; // answers that may be streams; objects otherwise
  gvk?: Gvk; // what the operation reads and writes, when not the resource's kind (Scale)
}

interface Names {
  kind: string; // definition names
  list: string;
}

function operation(t: ResourceType, spec: OperationSpec, scoped: string, flavor: Flavor): Schema {
  const media = answerMediaTypes(t);
  const gv = groupVersion(t);
  const version = t.version.charAt(0).toUpperCase() + t.version.slice(1);
  const operationId = `${spec.verb}${groupId(t)}${version}${spec.collection ? 'Collection' : ''}${scoped}${t.kind}${spec.idSuffix ?? ''}`;
  const op: Schema = { tags: [gv.replace(/[./]/g, '_')], operationId };
  const produces = spec.produces === 'list' ? [...media.object, ...media.watch] : spec.produces === 'watch' ? media.watch : media.object;
  const params = [...spec.params];
  if (flavor === 'v2') {
    if (spec.body) params.unshift({ name: 'body', in: 'body', required: true, schema: spec.body.schema });
    op.consumes = spec.body?.mediaTypes ?? ['*/*'];
    op.produces = produces;
    op.schemes = ['https'];
    op.parameters = params;
    op.responses = Object.fromEntries([...spec.responses.map(([code, s]) => [code, { description: statusText(code), ...(s ? { schema: s } : {}) }]), ['401', { description: 'Unauthorized' }]]);
  } else {
    op.parameters = params;
    if (spec.body) op.requestBody = { content: Object.fromEntries(spec.body.mediaTypes.map((m) => [m, { schema: spec.body?.schema }])), required: true };
    op.responses = Object.fromEntries([
      ...spec.responses.map(([code, s]) => [code, { description: statusText(code), ...(s ? { content: Object.fromEntries(produces.map((m) => [m, { schema: s }])) } : {}) }]),
      ['401', { description: 'Unauthorized' }],
    ]);
  }
  op['x-kubernetes-action'] = spec.action;
  op[GVK_EXTENSION] = spec.gvk ?? { group: t.group, version: t.version, kind: t.kind };
  return op;
}

function statusText(code: string): string {
  return { '200': 'OK', '201': 'Created', '202': 'Accepted' }[code] ?? code;
}

/** The paths of a resource type: [path, path item] pairs. */
export function resourcePaths(t: ResourceType, names: Names, flavor: Flavor): [string, PathItem][] {
  const prefix = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  const has = (verb: string) => t.verbs.includes(verb);
  const kindRef = ref(names.kind, flavor);
  const listRef = ref(names.list, flavor);
  const statusRef = ref(STATUS, flavor);
  const watchRef = ref(WATCH_EVENT, flavor);
  const patchBody = { schema: ref(PATCH, flavor), mediaTypes: patchMediaTypes(t) };
  const objectBody = { schema: kindRef, mediaTypes: ['*/*'] };
  const deleteBody = { schema: ref(DELETE_OPTIONS, flavor), mediaTypes: ['*/*'] };
  const q = (list: [string, ParamType][]) => queryParams(list, flavor);
  const pretty = param('pretty', 'string', 'query', flavor);
  const nameParam = param('name', 'string', 'path', flavor);
  const nsParam = param('namespace', 'string', 'path', flavor);
  const scoped = t.namespaced ? 'Namespaced' : '';
  const base = t.namespaced ? `${prefix}/namespaces/{namespace}/${t.resource}` : `${prefix}/${t.resource}`;
  const scopeParams = t.namespaced ? [nsParam] : [];
  const out: [string, PathItem][] = [];
  const item = (path: string, params: Schema[], ops: [string, OperationSpec][], opScope = scoped) => {
    const entries = ops.map(([method, s]) => [method, operation(t, s, opScope, flavor)] as const);
    if (entries.length > 0) out.push([path, { ...Object.fromEntries(entries), parameters: [...params, pretty] }]);
  };

  const collectionOps: [string, OperationSpec][] = [];
  if (has('list')) collectionOps.push(['get', { verb: 'list', action: 'list', params: q(LIST_PARAMS), responses: [['200', listRef]], produces: 'list' }]);
  if (has('create')) collectionOps.push(['post', { verb: 'create', action: 'post', params: q(WRITE_PARAMS), body: objectBody, responses: [['200', kindRef], ['201', kindRef], ['202', kindRef]] }]);
  if (has('deletecollection')) {
    collectionOps.push(['delete', { verb: 'delete', action: 'deletecollection', collection: true, params: q([...DELETE_PARAMS, ...LIST_PARAMS.filter(([n]) => n !== 'watch' && n !== 'allowWatchBookmarks')]), body: deleteBody, responses: [['200', statusRef]] }]);
  }
  item(base, scopeParams, collectionOps);

  const objectOps: [string, OperationSpec][] = [];
  if (has('get')) objectOps.push(['get', { verb: 'read', action: 'get', params: [], responses: [['200', kindRef]] }]);
  if (has('update')) objectOps.push(['put', { verb: 'replace', action: 'put', params: q(WRITE_PARAMS), body: objectBody, responses: [['200', kindRef], ['201', kindRef]] }]);
  if (has('patch')) objectOps.push(['patch', { verb: 'patch', action: 'patch', params: q(PATCH_PARAMS), body: patchBody, responses: [['200', kindRef], ['201', kindRef]] }]);
  if (has('delete')) objectOps.push(['delete', { verb: 'delete', action: 'delete', params: q(DELETE_PARAMS), body: deleteBody, responses: [['200', statusRef], ['202', statusRef]] }]);
  item(`${base}/{name}`, [nameParam, ...scopeParams], objectOps);

  if (t.status) {
    item(`${base}/{name}/status`, [nameParam, ...scopeParams], [
      ['get', { verb: 'read', action: 'get', idSuffix: 'Status', params: [], responses: [['200', kindRef]] }],
      ['put', { verb: 'replace', action: 'put', idSuffix: 'Status', params: q(WRITE_PARAMS), body: objectBody, responses: [['200', kindRef], ['201', kindRef]] }],
      ['patch', { verb: 'patch', action: 'patch', idSuffix: 'Status', params: q(PATCH_PARAMS), body: patchBody, responses: [['200', kindRef], ['201', kindRef]] }],
    ]);
  }
  if (scaleSubresourceOf(t)) {
    const scaleRef = ref(SCALE, flavor);
    const gvk = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
    const scaleBody = { schema: scaleRef, mediaTypes: ['*/*'] };
    item(`${base}/{name}/scale`, [nameParam, ...scopeParams], [
      ['get', { verb: 'read', action: 'get', idSuffix: 'Scale', gvk, params: [], responses: [['200', scaleRef]] }],
      ['put', { verb: 'replace', action: 'put', idSuffix: 'Scale', gvk, params: q(WRITE_PARAMS), body: scaleBody, responses: [['200', scaleRef], ['201', scaleRef]] }],
      ['patch', { verb: 'patch', action: 'patch', idSuffix: 'Scale', gvk, params: q(PATCH_PARAMS), body: patchBody, responses: [['200', scaleRef], ['201', scaleRef]] }],
    ]);
  }
  if (t.kind === 'Namespace' && t.group === '') {
    item(`${base}/{name}/finalize`, [nameParam], [['put', { verb: 'replace', action: 'put', idSuffix: 'Finalize', params: q(WRITE_PARAMS), body: objectBody, responses: [['200', kindRef], ['201', kindRef]] }]]);
  }

  if (has('watch')) {
    const watchOp = (suffix: string): OperationSpec => ({ verb: 'watch', action: suffix ? 'watchlist' : 'watch', idSuffix: suffix, params: q(LIST_PARAMS), responses: [['200', watchRef]], produces: 'watch' });
    const watchBase = t.namespaced ? `${prefix}/watch/namespaces/{namespace}/${t.resource}` : `${prefix}/watch/${t.resource}`;
    item(watchBase, scopeParams, [['get', watchOp('List')]]);
    item(`${watchBase}/{name}`, [nameParam, ...scopeParams], [['get', watchOp('')]]);
    if (t.namespaced) item(`${prefix}/watch/${t.resource}`, [], [['get', watchOp('ListForAllNamespaces')]], '');
  }
  if (t.namespaced && has('list')) {
    item(`${prefix}/${t.resource}`, [], [['get', { verb: 'list', action: 'list', idSuffix: 'ForAllNamespaces', params: q(LIST_PARAMS), responses: [['200', listRef]], produces: 'list' }]], '');
  }
  return out;
}
