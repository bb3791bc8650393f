// Core v1 kinds without a family of their own: Namespace, ConfigMap, Secret, ServiceAccount,
// Endpoints, PersistentVolumeClaim, Pod.
import { fieldErrors, type FieldError } from '../errors.js';
import { jsonEqual } from '../../kube/json.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { asArr, asObj, asStr, ensureObj, objItems, setDefault, sortedKeys, type Obj } from './json.js';
import { NAMESPACED_SUBDOMAIN, type KindBehaviour } from './kinds.js';
import { validateObjectMeta, validateObjectMetaUpdate, type MetaRules } from './meta.js';
import { inclusiveRangeError, isConfigMapKey, isDns1123Label, isQualifiedName } from './names.js';
import { defaultPodSpec, validatePodSpec } from './pod.js';
import { tooLong } from './render.js';
import { defaultPersistentVolumeClaimSpec } from './workloads.js';

const MAX_DATA_SIZE = 1024 * 1024;
const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

// --- Namespace

const NAMESPACE_META: MetaRules = { name: 'label', namespaced: false, kubeFinalizers: true };
const NAME_LABEL = 'kubernetes.io/metadata.name';

/** The server keeps kubernetes.io/metadata.name equal to the name, whatever the client sent. */
function labelNamespace(obj: ObjectWithMeta): void {
  const name = asStr(obj.metadata.name);
  if (!name) return;
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [NAME_LABEL]: name };
}

export const namespace: KindBehaviour = {
  meta: NAMESPACE_META,
  defaults: (obj) => {
    labelNamespace(obj);
    const status = ensureObj(obj, 'status');
    if (!status.phase) status.phase = 'Active';
  },
  prepareCreate: (obj) => {
    obj.status = { phase: 'Active' };
    const spec = ensureObj(obj, 'spec');
    const finalizers = asArr(spec.finalizers);
    if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
    labelNamespace(obj);
  },
  prepareUpdate: (obj, old) => {
    const oldSpec = asObj(old.spec);
    const spec = ensureObj(obj, 'spec');
    if (oldSpec?.finalizers !== undefined) spec.finalizers = oldSpec.finalizers;
    else delete spec.finalizers;
    if (old.status !== undefined) obj.status = old.status;
    labelNamespace(obj);
  },
  validate: (obj, old) => {
    if (old) return validateObjectMetaUpdate(obj, old);
    const errs = validateObjectMeta(obj, NAMESPACE_META);
    for (const f of asArr(asObj(obj.spec)?.finalizers).map(asStr)) {
      for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid('spec.finalizers', f, msg));
      if (!f.includes('/') && f !== 'kubernetes' && f !== 'orphan' && f !== 'foregroundDeletion') {
        errs.push(fieldErrors.invalid('spec.finalizers', f, 'name is neither a standard finalizer name nor is it fully qualified'));
      }
    }
    return errs;
  },
};

// --- ConfigMap

function dataSize(m: Obj | undefined): number {
  let n = 0;
  for (const k of sortedKeys(m)) n += asStr(m?.[k]).length;
  return n;
}

function validateConfigMap(obj: ObjectWithMeta): FieldError[] {
  const errs = validateObjectMeta(obj, NAMESPACED_SUBDOMAIN);
  const data = asObj(obj.data);
  const binary = asObj(obj.binaryData);
  for (const key of sortedKeys(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, msg));
    if (binary && key in binary) errs.push(fieldErrors.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
  }
  for (const key of sortedKeys(binary)) for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`binaryData[${key}]`, key, msg));
  // binaryData is base64 in JSON; its decoded size counts.
  const size = dataSize(data) + sortedKeys(binary).reduce((n, k) => n + Buffer.byteLength(asStr(binary?.[k]), 'base64'), 0);
  if (size > MAX_DATA_SIZE) errs.push(tooLong('', MAX_DATA_SIZE));
  return errs;
}

export const configMap: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  validate: (obj, old) => {
    if (!old) return validateConfigMap(obj);
    const errs = validateObjectMetaUpdate(obj, old);
    if (old.immutable === true) {
      if (obj.immutable !== true) errs.push(fieldErrors.forbidden('immutable', IMMUTABLE_SET));
      if (!jsonEqual(obj.data ?? {}, old.data ?? {})) errs.push(fieldErrors.forbidden('data', IMMUTABLE_SET));
      if (!jsonEqual(obj.binaryData ?? {}, old.binaryData ?? {})) errs.push(fieldErrors.forbidden('binaryData', IMMUTABLE_SET));
    }
    errs.push(...validateConfigMap(obj));
    return errs;
  },
};

// --- Secret

/** stringData is write-only: merged into data (base64) and dropped, as the v1 conversion does. */
export function foldStringData(obj: ObjectWithMeta): void {
  const stringData = asObj(obj.stringData);
  if (stringData) {
    const data = ensureObj(obj, 'data');
    for (const k of Object.keys(stringData)) data[k] = Buffer.from(asStr(stringData[k]), 'utf8').toString('base64');
  }
  delete obj.stringData;
}

function validateSecret(obj: ObjectWithMeta): FieldError[] {
  const errs = validateObjectMeta(obj, NAMESPACED_SUBDOMAIN);
  const data = asObj(obj.data) ?? {};
  let size = 0;
  for (const key of sortedKeys(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, msg));
    size += Buffer.byteLength(asStr(data[key]), 'base64');
  }
  if (size > MAX_DATA_SIZE) errs.push(tooLong('data', MAX_DATA_SIZE));
  const has = (k: string): boolean => k in data;
  switch (asStr(obj.type)) {
    case 'kubernetes.io/service-account-token':
      if (!asStr(obj.metadata.annotations?.['kubernetes.io/service-account.name'])) errs.push(fieldErrors.required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    case 'kubernetes.io/dockercfg':
      if (!has('.dockercfg')) errs.push(fieldErrors.required('data[.dockercfg]'));
      break;
    case 'kubernetes.io/dockerconfigjson':
      if (!has('.dockerconfigjson')) errs.push(fieldErrors.required('data[.dockerconfigjson]'));
      break;
    case 'kubernetes.io/basic-auth':
      // Upstream builds these paths from the literal "data[%s]".
      if (!has('username') && !has('password')) errs.push(fieldErrors.required('data[%s][username]'), fieldErrors.required('data[%s][password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!asStr(data['ssh-privatekey'])) errs.push(fieldErrors.required('data[%s][ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(fieldErrors.required('data[tls.crt]'));
      if (!has('tls.key')) errs.push(fieldErrors.required('data[tls.key]'));
      break;
    default:
      break;
  }
  return errs;
}

export const secret: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => {
    foldStringData(obj);
    if (!obj.type) obj.type = 'Opaque';
  },
  prepareCreate: foldStringData,
  prepareUpdate: (obj) => foldStringData(obj),
  validate: (obj, old) => {
    if (!old) return validateSecret(obj);
    const errs = validateObjectMetaUpdate(obj, old);
    if (asStr(obj.type) !== asStr(old.type)) errs.push(fieldErrors.invalid('type', asStr(obj.type), 'field is immutable'));
    if (old.immutable === true) {
      if (obj.immutable !== true) errs.push(fieldErrors.forbidden('immutable', IMMUTABLE_SET));
      if (!jsonEqual(obj.data ?? {}, old.data ?? {})) errs.push(fieldErrors.forbidden('data', IMMUTABLE_SET));
    }
    errs.push(...validateSecret(obj));
    return errs;
  },
};

// --- ServiceAccount

function validateServiceAccount(obj: ObjectWithMeta): FieldError[] {
  return validateObjectMeta(obj, NAMESPACED_SUBDOMAIN);
}

export const serviceAccount: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  validate: (obj, old) => (old ? [...validateObjectMetaUpdate(obj, old), ...validateServiceAccount(obj)] : validateServiceAccount(obj)),
};

// --- Endpoints

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const ENDPOINT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function isIp(v: string): boolean {
  return IPV4.test(v) || (v.includes(':') && /^[0-9a-fA-F:.]+$/.test(v));
}

function validateEndpoints(obj: ObjectWithMeta): FieldError[] {
  const errs = validateObjectMeta(obj, NAMESPACED_SUBDOMAIN);
  objItems(obj.subsets).forEach((subset, i) => {
    const at = `subsets[${i}]`;
    const addresses = objItems(subset.addresses);
    const notReady = objItems(subset.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) errs.push(fieldErrors.required(at, 'must specify `addresses` or `notReadyAddresses`'));
    for (const [key, list] of [['addresses', addresses], ['notReadyAddresses', notReady]] as const) {
      list.forEach((a, j) => {
        const ip = asStr(a.ip);
        if (!isIp(ip)) errs.push(fieldErrors.invalid(`${at}.${key}[${j}].ip`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
        const hostname = asStr(a.hostname);
        if (hostname) for (const msg of isDns1123Label(hostname)) errs.push(fieldErrors.invalid(`${at}.${key}[${j}].hostname`, hostname, msg));
      });
    }
    objItems(subset.ports).forEach((p, j) => {
      const pp = `${at}.ports[${j}]`;
      const name = asStr(p.name);
      if (name) for (const msg of isDns1123Label(name)) errs.push(fieldErrors.invalid(`${pp}.name`, name, msg));
      const port = typeof p.port === 'number' ? p.port : 0;
      if (port < 1 || port > 65535) errs.push(fieldErrors.invalid(`${pp}.port`, port, inclusiveRangeError(1, 65535)));
      const protocol = asStr(p.protocol);
      if (!protocol) errs.push(fieldErrors.required(`${pp}.protocol`));
      else if (!ENDPOINT_PROTOCOLS.includes(protocol)) errs.push(fieldErrors.notSupported(`${pp}.protocol`, protocol, ENDPOINT_PROTOCOLS));
    });
  });
  return errs;
}

export const endpoints: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => {
    for (const subset of objItems(obj.subsets)) for (const p of objItems(subset.ports)) if (!p.protocol) p.protocol = 'TCP';
  },
  validate: (obj, old) => (old ? [...validateObjectMetaUpdate(obj, old), ...validateEndpoints(obj)] : validateEndpoints(obj)),
};

// --- PersistentVolumeClaim

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

function validatePvcSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const modes = asArr(spec.accessModes).map(asStr);
  if (modes.length === 0) errs.push(fieldErrors.required('spec.accessModes', 'at least 1 access mode is required'));
  for (const m of modes) if (!ACCESS_MODES.includes(m)) errs.push(fieldErrors.notSupported('spec.accessModes', m, ACCESS_MODES));
  const requests = asObj(asObj(spec.resources)?.requests);
  if (!requests || requests.storage === undefined) errs.push(fieldErrors.required('spec.resources[storage]'));
  const mode = spec.volumeMode;
  if (mode !== undefined && mode !== 'Filesystem' && mode !== 'Block') errs.push(fieldErrors.notSupported('spec.volumeMode', mode, ['Block', 'Filesystem']));
  return errs;
}

export const persistentVolumeClaim: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => {
    defaultPersistentVolumeClaimSpec(ensureObj(obj, 'spec'));
    const status = ensureObj(obj, 'status');
    if (!status.phase) status.phase = 'Pending';
  },
  prepareCreate: (obj) => {
    obj.status = { phase: 'Pending' };
  },
  validate: (obj, old) => {
    const spec = asObj(obj.spec) ?? {};
    if (!old) return [...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validatePvcSpec(spec)];
    const errs = [...validateObjectMetaUpdate(obj, old), ...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validatePvcSpec(spec)];
    const oldSpec = { ...(asObj(old.spec) ?? {}) };
    const newSpec = { ...spec };
    // Bound claims may grow: resources.requests may change once volumeName is set.
    if (oldSpec.volumeName) {
      delete oldSpec.resources;
      delete newSpec.resources;
    }
    if (!jsonEqual(oldSpec, newSpec)) errs.push(fieldErrors.forbidden('spec', 'spec is immutable after creation except resources.requests for bound claims'));
    return errs;
  },
};

// --- Pod

function podQosClass(spec: Obj): string {
  let anyResources = false;
  let guaranteed = true;
  for (const c of [...objItems(spec.containers), ...objItems(spec.initContainers)]) {
    const res = asObj(c.resources) ?? {};
    const requests = asObj(res.requests) ?? {};
    const limits = asObj(res.limits) ?? {};
    if (Object.keys(requests).length + Object.keys(limits).length > 0) anyResources = true;
    for (const r of ['cpu', 'memory']) {
      if (limits[r] === undefined || (requests[r] !== undefined && requests[r] !== limits[r])) guaranteed = false;
    }
  }
  if (!anyResources) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const DEFAULT_TOLERATIONS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

export const pod: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => {
    const spec = ensureObj(obj, 'spec');
    // SetDefaults_Pod: limits become requests where requests are missing.
    for (const c of [...objItems(spec.containers), ...objItems(spec.initContainers)]) {
      const res = asObj(c.resources);
      const limits = asObj(res?.limits);
      if (res && limits) {
        const requests = ensureObj(res, 'requests');
        for (const k of Object.keys(limits)) setDefault(requests, k, limits[k]);
      }
    }
    setDefault(spec, 'enableServiceLinks', true);
    defaultPodSpec(spec);
  },
  prepareCreate: (obj) => {
    const spec = ensureObj(obj, 'spec');
    // What the ServiceAccount, Priority and DefaultTolerationSeconds admission plugins add.
    if (!spec.serviceAccountName) spec.serviceAccountName = asStr(spec.serviceAccount) || 'default';
    spec.serviceAccount = spec.serviceAccountName;
    if (!spec.priorityClassName) setDefault(spec, 'priority', 0);
    setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
    const tolerations = objItems(spec.tolerations);
    for (const key of DEFAULT_TOLERATIONS) {
      if (!tolerations.some((t) => t.key === key || (t.operator === 'Exists' && !t.key))) {
        tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
      }
    }
    spec.tolerations = tolerations;
    obj.status = { phase: 'Pending', qosClass: podQosClass(spec) };
  },
  validate: (obj, old) => {
    const spec = asObj(obj.spec) ?? {};
    if (!old) return [...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validatePodSpec(spec, 'spec')];
    const errs = [...validateObjectMetaUpdate(obj, old), ...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN)];
    const mutableMasked = (s: Obj): Obj => {
      const copy = JSON.parse(JSON.stringify(s)) as Obj;
      for (const key of ['containers', 'initContainers']) for (const c of objItems(copy[key])) delete c.image;
      delete copy.activeDeadlineSeconds;
      delete copy.tolerations;
      delete copy.terminationGracePeriodSeconds;
      return copy;
    };
    if (!jsonEqual(mutableMasked(spec), mutableMasked(asObj(old.spec) ?? {}))) {
      errs.push(
        fieldErrors.forbidden(
          'spec',
          'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
        ),
      );
    }
    return errs;
  },
};

