// `kcp install`: prepares a KCP for `kcp run` — the control plane's CRDs, the namespace, the
// controllers' ServiceAccount and their least-privilege RBAC, all with server-side apply.
//
// This module is the one source of that RBAC: deploy/manifests/rbac.yaml is its output
// (`kcp install --dry-run --skip-crds`), and test/deploy checks the two agree.
import { runtimeAdmissionConfigurationName } from '../controlplane/runtime-admission.js';
import yaml from 'js-yaml';
import { controlPlaneKinds } from '../api/index.js';
import { GardenerCluster, Runtime } from '../api/infrastructuremanager/index.js';
import { Kyma, Manifest, ModuleConfig, ModuleReleaseMeta, ModuleTemplate, Namespaces, SyncResource, Watcher } from '../api/operator/index.js';
import { renderCrds } from '../api/render.js';
import type { Client } from '../runtime/client/index.js';
import type { KubeObject } from '../kube/object.js';
import { type FlagTable, flagString, type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';
import { clientFromKubeconfigFlag } from './run.js';
import { sleep } from '../util/sleep.js';
import { isEstablished } from '../lifecycle/crd-established.js';

export const INSTALL_FIELD_MANAGER = 'kcp-install';
/** Name of the ServiceAccount, Role, RoleBinding; the cluster-scoped ones add the namespace. */
export const CONTROLLERS_NAME = 'kcp-controllers';

export const INSTALL_USAGE = `Usage:
  kcp install --kubeconfig FILE [--namespace kcp-system] [--skip-crds]
  kcp install --dry-run [-o yaml] [--namespace kcp-system] [--skip-crds]
      Applies to the KCP, with server-side apply (field manager ${INSTALL_FIELD_MANAGER}): the CRDs of the
      control plane's kinds (config/crd), the namespace, the ServiceAccount ${CONTROLLERS_NAME} and
      the least-privilege RBAC \`kcp run\` needs (a Role in the namespace, a ClusterRole to read
      CRDs), then waits until the CRDs are Established. Idempotent. --dry-run prints the objects as
      YAML instead and needs no cluster.`;

export const INSTALL_FLAGS: FlagTable = { 'dry-run': 'switch', 'skip-crds': 'switch', kubeconfig: 'value', namespace: 'value', output: 'value' };

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  /** Only these objects (get, update, patch, delete; a create cannot be limited by name). */
  resourceNames?: string[];
  verbs: string[];
}

const READ = ['get', 'list', 'watch'];
const READ_WRITE = [...READ, 'create', 'update', 'patch', 'delete'];
const STATUS_WRITE = ['get', 'update', 'patch'];

interface KindAccess {
  kind: { group: string; plural: string; kind: string };
  verbs: string[];
  /** The controllers write its status subresource. */
  status?: boolean;
  /**
   * Objects of it own others with blockOwnerDeletion (or carry our finalizers): with the
   * OwnerReferencesPermissionEnforcement admission plugin that needs update on `<plural>/finalizers`.
   */
  finalizers?: boolean;
}

/**
 * What the controllers do with each control-plane kind in the KCP. Runtimes and Kymas are created
 * and deleted by the broker, not by the controllers; catalog kinds are written by module teams.
 * ModuleReleaseMetas get the mandatory-module finalizer. Watchers are created (the defaults, when missing, and one per module that opts in to ModuleConfig),
 * get the Watcher controller's finalizer and status; only the module Watchers are deleted again.
 * ModuleConfigs are written by the lifecycle manager; SyncResources (written by module managers)
 * get its finalizer and status.
 */
export const KIND_ACCESS: readonly KindAccess[] = [
  { kind: Runtime, verbs: [...READ, 'patch'], status: true, finalizers: true },
  { kind: GardenerCluster, verbs: READ_WRITE, status: true, finalizers: true },
  { kind: Kyma, verbs: [...READ, 'update', 'patch'], status: true, finalizers: true },
  { kind: Manifest, verbs: READ_WRITE, status: true, finalizers: true },
  { kind: ModuleTemplate, verbs: READ },
  { kind: ModuleReleaseMeta, verbs: [...READ, 'patch'] },
  { kind: Watcher, verbs: [...READ, 'create', 'update', 'patch', 'delete'], status: true, finalizers: true },
  { kind: ModuleConfig, verbs: READ_WRITE, status: true },
  { kind: SyncResource, verbs: [...READ, 'update', 'patch'], status: true, finalizers: true },
];

/** Rules of the Role in the controllers' namespace (every object the controllers touch lives there). */
export function namespacedRules(): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const a of KIND_ACCESS) {
    rules.push({ apiGroups: [a.kind.group], resources: [a.kind.plural], verbs: a.verbs });
    if (a.status) rules.push({ apiGroups: [a.kind.group], resources: [`${a.kind.plural}/status`], verbs: STATUS_WRITE });
    if (a.finalizers) rules.push({ apiGroups: [a.kind.group], resources: [`${a.kind.plural}/finalizers`], verbs: ['update'] });
  }
  // Kubeconfig Secrets: written by the GardenerCluster controller, read by the Runtime controller and the lifecycle manager.
  rules.push({ apiGroups: [''], resources: ['secrets'], verbs: READ_WRITE });
  // Istio, when the KCP has it: the Watcher controller's VirtualService per Watcher, bound to Gateways it only reads.
  rules.push({ apiGroups: ['networking.istio.io'], resources: ['virtualservices'], verbs: ['get', 'list', 'create', 'update', 'delete'] });
  rules.push({ apiGroups: ['networking.istio.io'], resources: ['gateways'], verbs: ['get', 'list'] });
  // Events are recorded as events.k8s.io/v1 (repeats patched into a series).
  rules.push({ apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] });
  // Leader election and sharding: Leases taken, renewed, listed (shard group) and released/deleted.
  rules.push({ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: READ_WRITE });
  // --leader-pod-label: the leader labels its own Pod (src/controlplane/leader-pod.ts).
  rules.push({ apiGroups: [''], resources: ['pods'], verbs: ['patch'] });
  return rules;
}

/**
 * Rules of the ClusterRole: reading CRDs (`kcp run` checks at start that they are installed) and
 * keeping the control plane's one ValidatingWebhookConfiguration (the Runtime admission webhook),
 * which `kcp install` creates: the controllers may not create webhook configurations (one with
 * rules for everything would receive every object written), only update their own (its CA rotates).
 */
export function clusterRules(namespace = 'kcp-system'): PolicyRule[] {
  return [
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: READ },
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], resourceNames: [runtimeAdmissionConfigurationName(namespace)], verbs: ['get', 'update'] },
  ];
}

/** The CRDs of the control plane's kinds, exactly as config/crd holds them. */
export function controlPlaneCrds(): KubeObject[] {
  return [...renderCrds(controlPlaneKinds).values()].map((text) => yaml.load(text) as KubeObject);
}

/** File names under config/crd of the control plane's CRDs (the Shoot CRD there is the garden's, not the KCP's). */
export function controlPlaneCrdFiles(): string[] {
  return [...renderCrds(controlPlaneKinds).keys()];
}

export function clusterScopedName(namespace: string): string {
  return `${CONTROLLERS_NAME}-${namespace}`;
}

/** Namespace, ServiceAccount and RBAC of the controllers, in apply order. */
export function rbacObjects(namespace: string): KubeObject[] {
  const labels = { 'app.kubernetes.io/name': CONTROLLERS_NAME, 'app.kubernetes.io/part-of': 'kcp' };
  const subject = { kind: 'ServiceAccount', name: CONTROLLERS_NAME, namespace };
  const clusterName = clusterScopedName(namespace);
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: CONTROLLERS_NAME, namespace, labels } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: CONTROLLERS_NAME, namespace, labels }, rules: namespacedRules() },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: CONTROLLERS_NAME, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CONTROLLERS_NAME },
      subjects: [subject],
    },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: clusterName, labels }, rules: clusterRules(namespace) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: clusterName, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterName },
      subjects: [subject],
    },
    // Created here, without webhooks: the control plane fills in its webhook and CA at start.
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: runtimeAdmissionConfigurationName(namespace), labels } },
  ] as KubeObject[];
}

/** Everything `kcp install` applies, in order. */
export function installObjects(namespace: string, opts: { skipCrds?: boolean } = {}): KubeObject[] {
  return [...(opts.skipCrds ? [] : controlPlaneCrds()), ...rbacObjects(namespace)];
}

/** Multi-document YAML of the objects (what --dry-run prints and deploy/manifests/rbac.yaml holds). */
export function toYaml(objects: KubeObject[]): string {
  return objects.map((o) => yaml.dump(o, { lineWidth: -1, noRefs: true })).join('---\n');
}

export interface InstallOptions {
  namespace?: string;
  skipCrds?: boolean;
  /** How long to wait for the CRDs to be Established (default 60 s). */
  establishTimeoutMs?: number;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** Applies everything with server-side apply, then waits until the CRDs are Established. */
export async function install(client: Client, opts: InstallOptions = {}): Promise<KubeObject[]> {
  const namespace = opts.namespace ?? Namespaces.ControlPlane;
  const log = opts.log ?? (() => undefined);
  const applied: KubeObject[] = [];
  for (const obj of installObjects(namespace, opts)) {
    const out = await client.apply(obj, { fieldManager: INSTALL_FIELD_MANAGER, force: true, signal: opts.signal });
    applied.push(out);
    log(`${obj.kind.toLowerCase()}/${obj.metadata.name} serverside-applied`);
  }
  const crds = applied.filter((o) => o.kind === 'CustomResourceDefinition');
  const deadline = Date.now() + (opts.establishTimeoutMs ?? 60_000);
  for (const crd of crds) {
    const name = crd.metadata.name ?? '';
    for (let current = crd; !isEstablished(current); ) {
      if (Date.now() > deadline) throw new Error(`CRD ${name} is not Established`);
      await sleep(100);
      current = await client.get(crd, { name }, { signal: opts.signal });
    }
  }
  if (crds.length > 0) log(`${crds.length} CRDs established`);
  return applied;
}

export async function runInstall(args: ParsedArgs, out: (text: string) => void = (t) => process.stdout.write(t)): Promise<void> {
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}: kcp install takes only flags (see kcp install --help)`);
  const namespace = flagString(args, 'namespace', Namespaces.ControlPlane) ?? Namespaces.ControlPlane;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace) || namespace.length > 63) throw new UsageError(`--namespace must be a DNS label, got ${JSON.stringify(namespace)}`);
  const output = flagString(args, 'output');
  if (output !== undefined && output !== 'yaml') throw new UsageError(`--output supports only yaml, got ${JSON.stringify(output)}`);
  const skipCrds = args.flags.has('skip-crds');
  if (args.flags.has('dry-run')) {
    out(toYaml(installObjects(namespace, { skipCrds })));
    return;
  }
  const kubeconfig = flagString(args, 'kubeconfig') ?? process.env.KUBECONFIG;
  if (!kubeconfig) throw new UsageError(`--kubeconfig is required (or --dry-run) (see kcp install --help)`);
  const client = clientFromKubeconfigFlag('kubeconfig', kubeconfig, { qps: 0 });
  try {
    await install(client, { namespace, skipCrds, log: (line) => out(`${line}\n`) });
  } finally {
    client.close();
  }
}

export const command: Command = {
  summary: 'install the CRDs, namespace, ServiceAccount and RBAC of `kcp run` into a KCP',
  usage: INSTALL_USAGE,
  flags: () => INSTALL_FLAGS,
  run: (args) => runInstall(args),
};
