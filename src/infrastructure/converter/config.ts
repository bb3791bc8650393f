// The converter configuration (upstream pkg/config ConverterConfig, JSON names kept where upstream has
// them), validated once at start so that a bad setting fails loudly, naming the field.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { runtimeProviderTypes, type RuntimeProviderType } from '../../api/infrastructuremanager/index.js';
import { KUBERNETES_VERSION_PATTERN, MAINTENANCE_TIME_PATTERN, oidcSigningAlgorithms } from '../../api/gardener/index.js';
import { ConverterConfigError } from './errors.js';

export interface OidcProviderConfig {
  clientID: string;
  groupsClaim: string;
  issuerURL: string;
  signingAlgs: string[];
  usernameClaim: string;
  usernamePrefix: string;
}

export interface MachineImageDefaults {
  /** Image name used when a worker names none, e.g. `gardenlinux`. */
  defaultName: string;
  /** Image version used when a worker names none. */
  defaultVersion: string;
  /** Per-provider overrides of the defaults (a provider without an entry uses the defaults above). */
  providers: Partial<Record<RuntimeProviderType, { name: string; version: string }>>;
}

export interface MaintenanceTimeWindow {
  begin: string;
  end: string;
}

/** Maintenance windows by region: the first rule whose `region` regex matches wins, else `default`. */
export interface MaintenanceWindowPolicy {
  rules: { match: { region: string }; windows: MaintenanceTimeWindow[] }[];
  default?: MaintenanceTimeWindow;
}

export interface AuditLogTenant {
  tenantID: string;
  serviceURL: string;
  /** Secret in the garden project with the audit log service credentials. */
  secretName: string;
}

export interface AuditLogConfig {
  /** ConfigMap with the kube-apiserver audit policy, referenced from the Shoot. */
  policyConfigMapName: string;
  /** Audit log tenants by provider and region; a Runtime with no tenant gets no audit log extension. */
  tenants: Partial<Record<RuntimeProviderType, Record<string, AuditLogTenant>>>;
}

export interface ProviderDefaults {
  aws: { enableIMDSv2: boolean };
  azure: { natGatewayIdleConnectionTimeoutMinutes: number };
  openstack: { floatingPoolName: string; loadBalancerProvider: string };
}

export interface ConverterConfig {
  kubernetes: {
    defaultVersion: string;
    enableKubernetesVersionAutoUpdate: boolean;
    enableMachineImageVersionAutoUpdate: boolean;
    /** OIDC settings used for a Runtime that names neither client ID nor issuer. */
    defaultOperatorOidc?: OidcProviderConfig;
    kubeApiServer: { maxTokenExpiration?: string; runtimeConfig?: Record<string, boolean>; featureGates?: Record<string, boolean> };
  };
  /** External DNS provider; all three empty means Gardener's own DNS (no `spec.dns.providers`). */
  dns: { secretName: string; domainPrefix: string; providerType: string };
  provider: ProviderDefaults;
  machineImage: MachineImageDefaults;
  gardener: { projectName: string; enableCredentialBinding: boolean };
  auditLogging?: AuditLogConfig;
  maintenanceWindow: { windowMapPath?: string; policy?: MaintenanceWindowPolicy };
  /** Seed tolerations by region. */
  tolerations: Record<string, { key: string; value?: string }[]>;
  networking: { enableDualStackIP: boolean };
}

export interface LoadConverterConfigOptions {
  /** Directory `maintenanceWindow.windowMapPath` is relative to (default: the working directory). */
  baseDir?: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Field readers: each throws a ConverterConfigError naming the path.

function objAt(parent: Obj, key: string, path: string, required: boolean): Obj | undefined {
  const v = parent[key];
  if (v === undefined || v === null) {
    if (required) throw new ConverterConfigError(path, 'is required');
    return undefined;
  }
  if (!isObj(v)) throw new ConverterConfigError(path, 'must be an object');
  return v;
}

function strAt(parent: Obj, key: string, path: string, opts: { required?: boolean; pattern?: RegExp; allowEmpty?: boolean } = {}): string | undefined {
  const v = parent[key];
  if (v === undefined || v === null) {
    if (opts.required) throw new ConverterConfigError(path, 'is required');
    return undefined;
  }
  if (typeof v !== 'string') throw new ConverterConfigError(path, 'must be a string');
  if (v === '' && opts.allowEmpty !== true && opts.required === true) throw new ConverterConfigError(path, 'must not be empty');
  if (opts.pattern && v !== '' && !opts.pattern.test(v)) throw new ConverterConfigError(path, `"${v}" does not match ${opts.pattern.source}`);
  return v;
}

function boolAt(parent: Obj, key: string, path: string, fallback: boolean): boolean {
  const v = parent[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw new ConverterConfigError(path, 'must be true or false');
  return v;
}

function boolMapAt(parent: Obj, key: string, path: string): Record<string, boolean> | undefined {
  const o = objAt(parent, key, path, false);
  if (!o) return undefined;
  for (const [k, v] of Object.entries(o)) if (typeof v !== 'boolean') throw new ConverterConfigError(`${path}.${k}`, 'must be true or false');
  return o as Record<string, boolean>;
}

const versionPattern = new RegExp(KUBERNETES_VERSION_PATTERN);
const maintenanceTimePattern = new RegExp(`^${MAINTENANCE_TIME_PATTERN}$`);

// ---------------------------------------------------------------------------------------------
// Sections.

function readOidc(parent: Obj, key: string, path: string): OidcProviderConfig | undefined {
  const o = objAt(parent, key, path, false);
  if (!o) return undefined;
  const issuerURL = strAt(o, 'issuerURL', `${path}.issuerURL`, { required: true, pattern: /^https:\/\// }) ?? '';
  const algs = o.signingAlgs;
  if (!Array.isArray(algs) || algs.length === 0) throw new ConverterConfigError(`${path}.signingAlgs`, 'must be a non-empty list');
  algs.forEach((a, i) => {
    if (typeof a !== 'string' || !(oidcSigningAlgorithms as readonly string[]).includes(a)) {
      throw new ConverterConfigError(`${path}.signingAlgs[${i}]`, `must be one of ${oidcSigningAlgorithms.join(', ')}`);
    }
  });
  return {
    clientID: strAt(o, 'clientID', `${path}.clientID`, { required: true }) ?? '',
    groupsClaim: strAt(o, 'groupsClaim', `${path}.groupsClaim`, { required: true }) ?? '',
    issuerURL,
    signingAlgs: algs as string[],
    usernameClaim: strAt(o, 'usernameClaim', `${path}.usernameClaim`, { required: true }) ?? '',
    usernamePrefix: strAt(o, 'usernamePrefix', `${path}.usernamePrefix`, { required: true }) ?? '',
  };
}

function readKubernetes(root: Obj): ConverterConfig['kubernetes'] {
  const k = objAt(root, 'kubernetes', 'kubernetes', true) ?? {};
  const api = objAt(k, 'kubeApiServer', 'kubernetes.kubeApiServer', false) ?? {};
  return {
    defaultVersion: strAt(k, 'defaultVersion', 'kubernetes.defaultVersion', { required: true, pattern: versionPattern }) ?? '',
    enableKubernetesVersionAutoUpdate: boolAt(k, 'enableKubernetesVersionAutoUpdate', 'kubernetes.enableKubernetesVersionAutoUpdate', false),
    enableMachineImageVersionAutoUpdate: boolAt(k, 'enableMachineImageVersionAutoUpdate', 'kubernetes.enableMachineImageVersionAutoUpdate', false),
    defaultOperatorOidc: readOidc(k, 'defaultOperatorOidc', 'kubernetes.defaultOperatorOidc'),
    kubeApiServer: {
      maxTokenExpiration: strAt(api, 'maxTokenExpiration', 'kubernetes.kubeApiServer.maxTokenExpiration', { pattern: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/ }),
      runtimeConfig: boolMapAt(api, 'runtimeConfig', 'kubernetes.kubeApiServer.runtimeConfig'),
      featureGates: boolMapAt(api, 'featureGates', 'kubernetes.kubeApiServer.featureGates'),
    },
  };
}

function readDns(root: Obj): ConverterConfig['dns'] {
  const d = objAt(root, 'dns', 'dns', false) ?? {};
  const dns = {
    secretName: strAt(d, 'secretName', 'dns.secretName') ?? '',
    domainPrefix: strAt(d, 'domainPrefix', 'dns.domainPrefix', { pattern: /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/ }) ?? '',
    providerType: strAt(d, 'providerType', 'dns.providerType') ?? '',
  };
  const set = Object.entries(dns).filter(([, v]) => v !== '');
  // Either all three (an external DNS provider) or none (Gardener's internal DNS).
  if (set.length > 0 && set.length < 3) {
    const missing = Object.entries(dns).find(([, v]) => v === '');
    throw new ConverterConfigError(`dns.${missing?.[0] ?? 'secretName'}`, 'must be set when any DNS setting is set (or leave all three empty for Gardener\'s internal DNS)');
  }
  return dns;
}

function readProvider(root: Obj): ProviderDefaults {
  const p = objAt(root, 'provider', 'provider', false) ?? {};
  const aws = objAt(p, 'aws', 'provider.aws', false) ?? {};
  const azure = objAt(p, 'azure', 'provider.azure', false) ?? {};
  const openstack = objAt(p, 'openstack', 'provider.openstack', false) ?? {};
  const timeout = azure.natGatewayIdleConnectionTimeoutMinutes;
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 4 || timeout > 120)) {
    throw new ConverterConfigError('provider.azure.natGatewayIdleConnectionTimeoutMinutes', 'must be an integer between 4 and 120');
  }
  return {
    aws: { enableIMDSv2: boolAt(aws, 'enableIMDSv2', 'provider.aws.enableIMDSv2', false) },
    azure: { natGatewayIdleConnectionTimeoutMinutes: typeof timeout === 'number' ? timeout : 4 },
    openstack: {
      floatingPoolName: strAt(openstack, 'floatingPoolName', 'provider.openstack.floatingPoolName') || 'FloatingIP-external-kyma-01',
      loadBalancerProvider: strAt(openstack, 'loadBalancerProvider', 'provider.openstack.loadBalancerProvider') || 'f5',
    },
  };
}

function readMachineImage(root: Obj): MachineImageDefaults {
  const m = objAt(root, 'machineImage', 'machineImage', true) ?? {};
  const providers: MachineImageDefaults['providers'] = {};
  const per = objAt(m, 'providers', 'machineImage.providers', false) ?? {};
  for (const [name, value] of Object.entries(per)) {
    const path = `machineImage.providers.${name}`;
    if (!(runtimeProviderTypes as readonly string[]).includes(name)) throw new ConverterConfigError(path, `unknown provider; one of ${runtimeProviderTypes.join(', ')}`);
    if (!isObj(value)) throw new ConverterConfigError(path, 'must be an object');
    providers[name as RuntimeProviderType] = {
      name: strAt(value, 'name', `${path}.name`, { required: true }) ?? '',
      version: strAt(value, 'version', `${path}.version`, { required: true }) ?? '',
    };
  }
  return {
    defaultName: strAt(m, 'defaultName', 'machineImage.defaultName', { required: true }) ?? '',
    defaultVersion: strAt(m, 'defaultVersion', 'machineImage.defaultVersion', { required: true }) ?? '',
    providers,
  };
}

function readGardener(root: Obj): ConverterConfig['gardener'] {
  const g = objAt(root, 'gardener', 'gardener', true) ?? {};
  return {
    projectName: strAt(g, 'projectName', 'gardener.projectName', { required: true, pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/ }) ?? '',
    enableCredentialBinding: boolAt(g, 'enableCredentialBinding', 'gardener.enableCredentialBinding', false),
  };
}

function readAuditLog(root: Obj): AuditLogConfig | undefined {
  const a = objAt(root, 'auditLogging', 'auditLogging', false);
  if (!a) return undefined;
  const tenants: AuditLogConfig['tenants'] = {};
  const byProvider = objAt(a, 'tenants', 'auditLogging.tenants', false) ?? {};
  for (const [provider, regions] of Object.entries(byProvider)) {
    const path = `auditLogging.tenants.${provider}`;
    if (!(runtimeProviderTypes as readonly string[]).includes(provider)) throw new ConverterConfigError(path, `unknown provider; one of ${runtimeProviderTypes.join(', ')}`);
    if (!isObj(regions)) throw new ConverterConfigError(path, 'must be an object of regions');
    const out: Record<string, AuditLogTenant> = {};
    for (const [region, t] of Object.entries(regions)) {
      const tp = `${path}.${region}`;
      if (!isObj(t)) throw new ConverterConfigError(tp, 'must be an object');
      out[region] = {
        tenantID: strAt(t, 'tenantID', `${tp}.tenantID`, { required: true }) ?? '',
        serviceURL: strAt(t, 'serviceURL', `${tp}.serviceURL`, { required: true, pattern: /^https?:\/\// }) ?? '',
        secretName: strAt(t, 'secretName', `${tp}.secretName`, { required: true }) ?? '',
      };
    }
    tenants[provider as RuntimeProviderType] = out;
  }
  return { policyConfigMapName: strAt(a, 'policyConfigMapName', 'auditLogging.policyConfigMapName', { required: true }) ?? '', tenants };
}

function readWindow(v: unknown, path: string): MaintenanceTimeWindow {
  if (!isObj(v)) throw new ConverterConfigError(path, 'must be an object with begin and end');
  return {
    begin: strAt(v, 'begin', `${path}.begin`, { required: true, pattern: maintenanceTimePattern }) ?? '',
    end: strAt(v, 'end', `${path}.end`, { required: true, pattern: maintenanceTimePattern }) ?? '',
  };
}

function readPolicy(v: unknown, path: string): MaintenanceWindowPolicy {
  if (!isObj(v)) throw new ConverterConfigError(path, 'must be an object with rules and default');
  const rules = v.rules ?? [];
  if (!Array.isArray(rules)) throw new ConverterConfigError(`${path}.rules`, 'must be a list');
  return {
    rules: rules.map((r, i) => {
      const rp = `${path}.rules[${i}]`;
      if (!isObj(r)) throw new ConverterConfigError(rp, 'must be an object');
      const match = objAt(r, 'match', `${rp}.match`, true) ?? {};
      const region = strAt(match, 'region', `${rp}.match.region`, { required: true }) ?? '';
      try {
        new RegExp(region);
      } catch {
        throw new ConverterConfigError(`${rp}.match.region`, `"${region}" is not a valid regular expression`);
      }
      const windows = r.windows;
      if (!Array.isArray(windows) || windows.length === 0) throw new ConverterConfigError(`${rp}.windows`, 'must be a non-empty list');
      return { match: { region }, windows: windows.map((w, k) => readWindow(w, `${rp}.windows[${k}]`)) };
    }),
    default: v.default === undefined ? undefined : readWindow(v.default, `${path}.default`),
  };
}

function readMaintenance(root: Obj, opts: LoadConverterConfigOptions): ConverterConfig['maintenanceWindow'] {
  const m = objAt(root, 'maintenanceWindow', 'maintenanceWindow', false) ?? {};
  const windowMapPath = strAt(m, 'windowMapPath', 'maintenanceWindow.windowMapPath');
  if (m.policy !== undefined && windowMapPath) throw new ConverterConfigError('maintenanceWindow.policy', 'set either policy or windowMapPath, not both');
  if (m.policy !== undefined) return { policy: readPolicy(m.policy, 'maintenanceWindow.policy') };
  if (!windowMapPath) return {};
  const file = isAbsolute(windowMapPath) ? windowMapPath : resolve(opts.baseDir ?? process.cwd(), windowMapPath);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConverterConfigError('maintenanceWindow.windowMapPath', `cannot read ${file}: ${(err as Error).message}`);
  }
  return { windowMapPath, policy: readPolicy(parsed, `maintenanceWindow.windowMapPath(${windowMapPath})`) };
}

function readTolerations(root: Obj): ConverterConfig['tolerations'] {
  const t = objAt(root, 'tolerations', 'tolerations', false) ?? {};
  const out: ConverterConfig['tolerations'] = {};
  for (const [region, list] of Object.entries(t)) {
    const path = `tolerations.${region}`;
    if (!Array.isArray(list)) throw new ConverterConfigError(path, 'must be a list of tolerations');
    out[region] = list.map((item, i) => {
      if (!isObj(item)) throw new ConverterConfigError(`${path}[${i}]`, 'must be an object');
      const value = strAt(item, 'value', `${path}[${i}].value`);
      const key = strAt(item, 'key', `${path}[${i}].key`, { required: true }) ?? '';
      return value === undefined ? { key } : { key, value };
    });
  }
  return out;
}

/**
 * Reads and validates the converter configuration (JSON text or an already parsed object). Throws a
 * ConverterConfigError naming the first bad field.
 */
export function loadConverterConfig(textOrObject: string | object, opts: LoadConverterConfigOptions = {}): ConverterConfig {
  let root: unknown = textOrObject;
  if (typeof textOrObject === 'string') {
    try {
      root = JSON.parse(textOrObject);
    } catch (err) {
      throw new ConverterConfigError('$', `not valid JSON: ${(err as Error).message}`);
    }
  }
  if (!isObj(root)) throw new ConverterConfigError('$', 'must be a JSON object');
  // Upstream nests the converter settings under `converter` in its manager config; accept both.
  const cfg = isObj(root.converter) ? root.converter : root;
  const networking = objAt(cfg, 'networking', 'networking', false) ?? {};
  return {
    kubernetes: readKubernetes(cfg),
    dns: readDns(cfg),
    provider: readProvider(cfg),
    machineImage: readMachineImage(cfg),
    gardener: readGardener(cfg),
    auditLogging: readAuditLog(cfg),
    maintenanceWindow: readMaintenance(cfg, opts),
    tolerations: readTolerations(cfg),
    networking: { enableDualStackIP: boolAt(networking, 'enableDualStackIP', 'networking.enableDualStackIP', false) },
  };
}

/** Is DNS left to Gardener (no external provider configured)? Upstream DNSConfig.IsGardenerInternal. */
export function isGardenerInternalDns(config: ConverterConfig): boolean {
  return config.dns.secretName === '' && config.dns.domainPrefix === '' && config.dns.providerType === '';
}

/** The machine image a worker of `provider` gets when it names none. */
export function defaultMachineImage(config: ConverterConfig, provider: RuntimeProviderType): { name: string; version: string } {
  return config.machineImage.providers[provider] ?? { name: config.machineImage.defaultName, version: config.machineImage.defaultVersion };
}
