// PodSpec defaulting (SetDefaults_PodSpec, _Container, _Probe, _Volume ...) and validation, shared
// by Pods and every kind with a pod template.
import { fieldErrors, type FieldError } from '../errors.js';
import { asObj, asStr, ensureObj, objItems, setDefault, type Obj } from './json.js';
import { validateAnnotations, validateLabels } from './meta.js';
import { inclusiveRangeError, isDns1123Label, isDns1123Subdomain, isEnvVarName, isValidPortName } from './names.js';

const DEFAULT_FILE_MODE = 420; // 0644

/** Always for `:latest` or an untagged image without digest, else IfNotPresent. */
export function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  if (colon < 0) return 'Always';
  return image.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: unknown): void {
  const p = asObj(probe);
  if (!p) return;
  setDefault(p, 'timeoutSeconds', 1);
  setDefault(p, 'periodSeconds', 10);
  setDefault(p, 'successThreshold', 1);
  setDefault(p, 'failureThreshold', 3);
  const http = asObj(p.httpGet);
  if (http) {
    if (!http.path) http.path = '/';
    if (!http.scheme) http.scheme = 'HTTP';
  }
  const grpc = asObj(p.grpc);
  if (grpc) setDefault(grpc, 'service', '');
}

function defaultLifecycleHandler(handler: unknown): void {
  const http = asObj(asObj(handler)?.httpGet);
  if (http) {
    if (!http.path) http.path = '/';
    if (!http.scheme) http.scheme = 'HTTP';
  }
}

function defaultContainer(c: Obj): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultPullPolicy(asStr(c.image));
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  // ResourceRequirements is a struct without omitempty: always serialized.
  setDefault(c, 'resources', {});
  for (const port of objItems(c.ports)) if (!port.protocol) port.protocol = 'TCP';
  for (const env of objItems(c.env)) {
    const fieldRef = asObj(asObj(env.valueFrom)?.fieldRef);
    if (fieldRef && !fieldRef.apiVersion) fieldRef.apiVersion = 'v1';
    const resourceRef = asObj(asObj(env.valueFrom)?.resourceFieldRef);
    if (resourceRef) setDefault(resourceRef, 'divisor', '0');
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  const lifecycle = asObj(c.lifecycle);
  if (lifecycle) {
    defaultLifecycleHandler(lifecycle.postStart);
    defaultLifecycleHandler(lifecycle.preStop);
  }
}

const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral',
];

function defaultVolume(v: Obj): void {
  if (!VOLUME_SOURCES.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = asObj(v[key]);
    if (src) setDefault(src, 'defaultMode', DEFAULT_FILE_MODE);
  }
  const hostPath = asObj(v.hostPath);
  if (hostPath) setDefault(hostPath, 'type', '');
  const downward = asObj(v.downwardAPI);
  for (const item of objItems(downward?.items)) {
    const fieldRef = asObj(item.fieldRef);
    if (fieldRef && !fieldRef.apiVersion) fieldRef.apiVersion = 'v1';
  }
  for (const source of objItems(asObj(v.projected)?.sources)) {
    const token = asObj(source.serviceAccountToken);
    if (token) setDefault(token, 'expirationSeconds', 3600);
  }
  const iscsi = asObj(v.iscsi);
  if (iscsi) setDefault(iscsi, 'iscsiInterface', 'default');
  const rbd = asObj(v.rbd);
  if (rbd) {
    setDefault(rbd, 'pool', 'rbd');
    setDefault(rbd, 'user', 'admin');
    setDefault(rbd, 'keyring', '/etc/ceph/keyring');
  }
}

/** SetDefaults for a PodSpec and everything in it. */
export function defaultPodSpec(spec: Obj): void {
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  if (!spec.schedulerName) spec.schedulerName = 'default-scheduler';
  const hostNetwork = spec.hostNetwork === true;
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const c of objItems(spec[key])) {
      defaultContainer(c);
      if (hostNetwork) for (const port of objItems(c.ports)) setDefault(port, 'hostPort', port.containerPort);
    }
  }
  for (const v of objItems(spec.volumes)) defaultVolume(v);
}

/** A pod template: its ObjectMeta serializes creationTimestamp as null, its spec gets pod defaults. */
export function defaultPodTemplate(template: Obj): void {
  const meta = ensureObj(template, 'metadata');
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  defaultPodSpec(ensureObj(template, 'spec'));
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];

function validatePorts(ports: unknown, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objItems(ports).forEach((p, i) => {
    const pp = `${at}[${i}]`;
    const name = asStr(p.name);
    if (name) {
      for (const msg of isValidPortName(name)) errs.push(fieldErrors.invalid(`${pp}.name`, name, msg));
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${pp}.name`, JSON.stringify(name)));
      names.add(name);
    }
    const port = typeof p.containerPort === 'number' ? p.containerPort : 0;
    if (port === 0) errs.push(fieldErrors.required(`${pp}.containerPort`));
    else if (port < 1 || port > 65535) errs.push(fieldErrors.invalid(`${pp}.containerPort`, port, inclusiveRangeError(1, 65535)));
    if (typeof p.hostPort === 'number' && p.hostPort !== 0 && (p.hostPort < 1 || p.hostPort > 65535)) {
      errs.push(fieldErrors.invalid(`${pp}.hostPort`, p.hostPort, inclusiveRangeError(1, 65535)));
    }
    const protocol = asStr(p.protocol);
    if (!protocol) errs.push(fieldErrors.required(`${pp}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErrors.notSupported(`${pp}.protocol`, protocol, PROTOCOLS));
  });
  return errs;
}

function validateEnv(env: unknown, at: string): FieldError[] {
  const errs: FieldError[] = [];
  objItems(env).forEach((e, i) => {
    const name = asStr(e.name);
    if (!name) errs.push(fieldErrors.required(`${at}[${i}].name`));
    else for (const msg of isEnvVarName(name)) errs.push(fieldErrors.invalid(`${at}[${i}].name`, name, msg));
    const from = asObj(e.valueFrom);
    if (from && e.value !== undefined && e.value !== '') {
      errs.push(fieldErrors.invalid(`${at}[${i}].valueFrom`, '', 'may not be specified when `value` is not empty'));
    }
  });
  return errs;
}

function validateContainers(containers: unknown, at: string, required: boolean): FieldError[] {
  const list = objItems(containers);
  if (list.length === 0) return required ? [fieldErrors.required(at)] : [];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((c, i) => {
    const cp = `${at}[${i}]`;
    const name = asStr(c.name);
    if (!name) errs.push(fieldErrors.required(`${cp}.name`));
    else for (const msg of isDns1123Label(name)) errs.push(fieldErrors.invalid(`${cp}.name`, name, msg));
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${cp}.name`, JSON.stringify(name)));
    names.add(name);
    if (!asStr(c.image)) errs.push(fieldErrors.required(`${cp}.image`));
    errs.push(...validatePorts(c.ports, `${cp}.ports`));
    errs.push(...validateEnv(c.env, `${cp}.env`));
    objItems(c.volumeMounts).forEach((m, j) => {
      const mp = `${cp}.volumeMounts[${j}]`;
      if (!asStr(m.name)) errs.push(fieldErrors.required(`${mp}.name`));
      if (!asStr(m.mountPath)) errs.push(fieldErrors.required(`${mp}.mountPath`));
    });
    const policy = asStr(c.imagePullPolicy);
    if (!policy) errs.push(fieldErrors.required(`${cp}.imagePullPolicy`));
    else if (!PULL_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported(`${cp}.imagePullPolicy`, policy, PULL_POLICIES));
  });
  return errs;
}

function validateVolumes(volumes: unknown, at: string): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  objItems(volumes).forEach((v, i) => {
    const name = asStr(v.name);
    if (!name) errs.push(fieldErrors.required(`${at}[${i}].name`));
    else for (const msg of isDns1123Label(name)) errs.push(fieldErrors.invalid(`${at}[${i}].name`, name, msg));
    if (name && names.has(name)) errs.push(fieldErrors.duplicate(`${at}[${i}].name`, JSON.stringify(name)));
    names.add(name);
    const sources = VOLUME_SOURCES.filter((s) => v[s] !== undefined && v[s] !== null);
    if (sources.length === 0) errs.push(fieldErrors.required(`${at}[${i}]`, 'must specify a volume type'));
    else if (sources.length > 1) errs.push(fieldErrors.forbidden(`${at}[${i}].${sources[1]}`, `may not specify more than 1 volume type`));
  });
  return { names, errs };
}

/** ValidatePodSpec (the common checks). */
export function validatePodSpec(spec: Obj, at: string): FieldError[] {
  const { errs } = validateVolumes(spec.volumes, `${at}.volumes`);
  errs.push(...validateContainers(spec.containers, `${at}.containers`, true));
  errs.push(...validateContainers(spec.initContainers, `${at}.initContainers`, false));
  const restart = asStr(spec.restartPolicy);
  if (!restart) errs.push(fieldErrors.required(`${at}.restartPolicy`));
  else if (!RESTART_POLICIES.includes(restart)) errs.push(fieldErrors.notSupported(`${at}.restartPolicy`, restart, RESTART_POLICIES));
  const dns = asStr(spec.dnsPolicy);
  if (!dns) errs.push(fieldErrors.required(`${at}.dnsPolicy`));
  else if (!DNS_POLICIES.includes(dns)) errs.push(fieldErrors.notSupported(`${at}.dnsPolicy`, dns, DNS_POLICIES));
  errs.push(...validateLabels(spec.nodeSelector, `${at}.nodeSelector`));
  const sa = asStr(spec.serviceAccountName);
  if (sa) for (const msg of isDns1123Subdomain(sa)) errs.push(fieldErrors.invalid(`${at}.serviceAccountName`, sa, msg));
  if (typeof spec.activeDeadlineSeconds === 'number' && (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > 2147483647)) {
    errs.push(fieldErrors.invalid(`${at}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, inclusiveRangeError(1, 2147483647)));
  }
  for (const key of ['hostname', 'subdomain']) {
    const v = asStr(spec[key]);
    if (v) for (const msg of isDns1123Label(v)) errs.push(fieldErrors.invalid(`${at}.${key}`, v, msg));
  }
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) {
    errs.push(fieldErrors.invalid(`${at}.terminationGracePeriodSeconds`, spec.terminationGracePeriodSeconds, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** ValidatePodTemplateSpec: note the template's labels are reported at `<at>.labels`, as upstream does. */
export function validatePodTemplateSpec(template: Obj, at: string): FieldError[] {
  const meta = asObj(template.metadata) ?? {};
  return [
    ...validateLabels(meta.labels, `${at}.labels`),
    ...validateAnnotations(meta.annotations, `${at}.annotations`),
    ...validatePodSpec(asObj(template.spec) ?? {}, `${at}.spec`),
  ];
}

export function templateLabels(template: Obj): Obj | undefined {
  return asObj(asObj(template.metadata)?.labels);
}
