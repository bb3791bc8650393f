// Service: defaults, cluster IP and node port allocation, what updates keep, validation.
import { fieldErrors, type FieldError } from '../errors.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { asArr, asObj, asStr, ensureObj, objItems, setDefault, type Obj } from './json.js';
import type { CreateContext, KindBehaviour } from './kinds.js';
import { validateLabels, validateObjectMeta, validateObjectMetaUpdate, type MetaRules } from './meta.js';
import { inclusiveRangeError, isDns1123Label, isValidPortName } from './names.js';
import { goStringSlice, invalidRendered } from './render.js';

const SERVICE_META: MetaRules = { name: 'dns1035', namespaced: true, kubeFinalizers: true };
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function spec(obj: ObjectWithMeta): Obj {
  return ensureObj(obj, 'spec');
}

function defaultService(obj: ObjectWithMeta): void {
  const s = spec(obj);
  if (!s.sessionAffinity) s.sessionAffinity = 'None';
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  if (s.sessionAffinity === 'ClientIP') setDefault(ensureObj(ensureObj(s, 'sessionAffinityConfig'), 'clientIP'), 'timeoutSeconds', 10800);
  if (!s.type) s.type = 'ClusterIP';
  for (const p of objItems(s.ports)) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const external = s.type === 'NodePort' || s.type === 'LoadBalancer';
  if (external && !s.externalTrafficPolicy) s.externalTrafficPolicy = 'Cluster';
  if ((external || s.type === 'ClusterIP') && !s.internalTrafficPolicy) s.internalTrafficPolicy = 'Cluster';
  if (s.type === 'LoadBalancer') setDefault(s, 'allocateLoadBalancerNodePorts', true);
}

function isHeadless(s: Obj): boolean {
  return s.clusterIP === 'None';
}

function randomNodePort(): number {
  return 30000 + Math.floor(Math.random() * 2768);
}

function allocate(obj: ObjectWithMeta, ctx: CreateContext): void {
  const s = spec(obj);
  const type = asStr(s.type) || 'ClusterIP';
  if (type === 'ExternalName') return;
  const given = asStr(s.clusterIP) || asStr(asArr(s.clusterIPs)[0]);
  if (isHeadless(s) || given === 'None') {
    s.clusterIP = 'None';
    s.clusterIPs = ['None'];
    if (!s.ipFamilyPolicy) s.ipFamilyPolicy = asObj(s.selector) && Object.keys(asObj(s.selector) ?? {}).length > 0 ? 'SingleStack' : 'RequireDualStack';
  } else {
    const ip = given || ctx.allocateClusterIP();
    s.clusterIP = ip;
    s.clusterIPs = [ip];
    if (!s.ipFamilyPolicy) s.ipFamilyPolicy = 'SingleStack';
  }
  if (!Array.isArray(s.ipFamilies) || s.ipFamilies.length === 0) s.ipFamilies = ['IPv4'];
  const needsNodePorts = type === 'NodePort' || (type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
  if (needsNodePorts) {
    const next = ctx.allocateNodePort ?? randomNodePort;
    for (const p of objItems(s.ports)) if (!p.nodePort) p.nodePort = next();
  }
}

/** Update keeps what the server allocated when the client leaves it out. */
function keepAllocated(obj: ObjectWithMeta, old: ObjectWithMeta): void {
  const s = spec(obj);
  const o = asObj(old.spec) ?? {};
  if (s.type === 'ExternalName' || o.type === 'ExternalName') return;
  if (!s.clusterIP && o.clusterIP) {
    s.clusterIP = o.clusterIP;
    if (s.clusterIPs === undefined) s.clusterIPs = o.clusterIPs;
  } else if (s.clusterIP && s.clusterIP !== o.clusterIP && (s.clusterIPs === undefined || JSON.stringify(s.clusterIPs) === JSON.stringify(o.clusterIPs))) {
    s.clusterIPs = [s.clusterIP];
  }
  if (s.clusterIPs === undefined && o.clusterIPs !== undefined) s.clusterIPs = o.clusterIPs;
  if (s.ipFamilies === undefined && o.ipFamilies !== undefined) s.ipFamilies = o.ipFamilies;
  if (s.ipFamilyPolicy === undefined && o.ipFamilyPolicy !== undefined) s.ipFamilyPolicy = o.ipFamilyPolicy;
  const type = asStr(s.type) || 'ClusterIP';
  if (type === 'NodePort' || type === 'LoadBalancer') {
    const oldPorts = objItems(o.ports);
    for (const p of objItems(s.ports)) {
      if (p.nodePort) continue;
      const match = oldPorts.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (match?.nodePort) p.nodePort = match.nodePort;
    }
  }
}

function validatePorts(s: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const ports = objItems(s.ports);
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `spec.ports[${i}]`;
    const name = asStr(p.name);
    if (ports.length > 1 && !name) errs.push(fieldErrors.required(`${at}.name`));
    else if (name) for (const msg of isDns1123Label(name)) errs.push(fieldErrors.invalid(`${at}.name`, name, msg));
    if (name && names.has(name)) errs.push(fieldErrors.duplicate(`${at}.name`, JSON.stringify(name)));
    names.add(name);
    const port = typeof p.port === 'number' ? p.port : 0;
    if (port < 1 || port > 65535) errs.push(fieldErrors.invalid(`${at}.port`, port, inclusiveRangeError(1, 65535)));
    const protocol = asStr(p.protocol);
    if (!protocol) errs.push(fieldErrors.required(`${at}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErrors.notSupported(`${at}.protocol`, protocol, PROTOCOLS));
    const target = p.targetPort;
    if (typeof target === 'number' && (target < 1 || target > 65535)) errs.push(fieldErrors.invalid(`${at}.targetPort`, target, inclusiveRangeError(1, 65535)));
    if (typeof target === 'string') for (const msg of isValidPortName(target)) errs.push(fieldErrors.invalid(`${at}.targetPort`, target, msg));
    if (typeof p.nodePort === 'number' && p.nodePort !== 0 && (s.type === 'ClusterIP' || s.type === 'ExternalName')) {
      errs.push(fieldErrors.forbidden(`${at}.nodePort`, 'may not be used when `type` is \'ClusterIP\''));
    }
  });
  return errs;
}

function validateService(obj: ObjectWithMeta): FieldError[] {
  const errs = validateObjectMeta(obj, SERVICE_META);
  const s = asObj(obj.spec) ?? {};
  const type = asStr(s.type);
  if (objItems(s.ports).length === 0 && !isHeadless(s) && type !== 'ExternalName') errs.push(fieldErrors.required('spec.ports'));
  if (type === 'ExternalName') {
    const externalName = asStr(s.externalName);
    if (!externalName) errs.push(fieldErrors.required('spec.externalName'));
    if (asStr(s.clusterIP)) errs.push(fieldErrors.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
  }
  errs.push(...validatePorts(s));
  errs.push(...validateLabels(s.selector, 'spec.selector'));
  const affinity = asStr(s.sessionAffinity);
  if (!affinity) errs.push(fieldErrors.required('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(fieldErrors.notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (!type) errs.push(fieldErrors.required('spec.type'));
  else if (!SERVICE_TYPES.includes(type)) errs.push(fieldErrors.notSupported('spec.type', type, SERVICE_TYPES));
  const ip = asStr(s.clusterIP);
  const ips = asArr(s.clusterIPs).map(asStr);
  if (ip && ips.length > 0 && ips[0] !== ip) errs.push(fieldErrors.invalid('spec.clusterIPs', ips[0], 'first value must match `clusterIP`'));
  return errs;
}

export const service: KindBehaviour = {
  meta: SERVICE_META,
  defaults: defaultService,
  prepareCreate: (obj, ctx) => {
    obj.status = { loadBalancer: {} };
    defaultService(obj);
    allocate(obj, ctx);
  },
  prepareUpdate: keepAllocated,
  validate: (obj, old) => {
    if (!old) return validateService(obj);
    const errs = validateObjectMetaUpdate(obj, old);
    const s = asObj(obj.spec) ?? {};
    const o = asObj(old.spec) ?? {};
    const externalName = s.type === 'ExternalName' || o.type === 'ExternalName';
    if (!externalName && !(isHeadless(s) && isHeadless(o))) {
      const before = asArr(o.clusterIPs).map(asStr);
      const now = asArr(s.clusterIPs).map(asStr);
      before.forEach((ip, i) => {
        if (i < now.length && now[i] !== ip) errs.push(invalidRendered(`spec.clusterIPs[${i}]`, goStringSlice(now), 'may not change once set'));
      });
    }
    errs.push(...validateService(obj));
    return errs;
  },
};
