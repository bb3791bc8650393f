// The module manager of the demo `functions` module, as a module team would run it next to the KCP
// (docs/module-sync.md, "Writing a module manager"). It reads the ModuleConfigs the lifecycle manager
// keeps for the module (one per Kyma, the module's custom resource as it is in the runtime) and
// answers each with a SyncResource: one ConfigMap `kyma-system/functions-config` whose data mirrors
// the custom resource's spec, which the lifecycle manager then applies into that Kyma's runtime.
//
// Like a real module manager it talks to the KCP only through a Client (its own, over HTTPS), with
// the rights of deploy/manifests/module-manager-rbac.yaml: it reads ModuleConfigs and writes
// SyncResources, never the runtimes. `kcp up` starts it with the embedded landscape
// (src/landscape/embedded.ts); tests start it with `startFunctionsModuleManager`.
import { Labels, ModuleConfig, type ModuleConfigObject, Namespaces, SyncResource, type SyncResourceObject } from '../../api/operator/index.js';
import { jsonEqual, isPlainObject } from '../../kube/json.js';
import { namespacedName } from '../../kube/keys.js';
import type { OwnerReference } from '../../kube/object.js';
import type { Client } from '../../runtime/client/interface.js';
import { type Controller, newControllerManagedBy, type Request } from '../../runtime/controller.js';
import { createLogger, type Logger } from '../../runtime/log.js';
import { Manager } from '../../runtime/manager.js';

/** The module this manager serves. */
export const FUNCTIONS_MODULE = 'functions';
/** Field manager of its server-side applies, and the `app.kubernetes.io/managed-by` value of the ConfigMap. */
export const FUNCTIONS_MODULE_MANAGER = 'functions-module-manager';
/** The one item of its SyncResources, and the ConfigMap it carries (in kyma-system of the runtime). */
export const FUNCTIONS_CONFIG_ITEM = 'functions-config';
export const FUNCTIONS_CONFIG_NAMESPACE = 'kyma-system';

const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** What a ConfigMap accepts as a data key (kube's IsConfigMapKey). */
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * The ConfigMap data mirroring a custom resource's spec: each top-level key becomes a key of the
 * ConfigMap, strings as they are, any other value as its JSON text. Keys a ConfigMap cannot hold
 * (other characters, more than 253 long) are left out rather than making the whole item fail in
 * the runtime. No spec (or not a mapping): no data.
 */
export function configMapData(spec: unknown): Record<string, string> {
  const data: Record<string, string> = {};
  if (!isPlainObject(spec)) return data;
  for (const key of Object.keys(spec).sort()) {
    const value = spec[key];
    if (value === undefined || !CONFIG_MAP_KEY.test(key) || key.length > 253) continue;
    data[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return data;
}

/**
 * The SyncResource answering a ModuleConfig of the functions module: named like the ModuleConfig
 * (`<kyma>-functions`) in its namespace, labelled with the Kyma and the module, controlled by the
 * ModuleConfig (so that garbage collection removes it with the ModuleConfig, i.e. when the module
 * is disabled), with one CreateAndSync item: the ConfigMap mirroring the module CR's spec.
 *
 * Undefined when the ModuleConfig holds no resource (the module's CR is not in the runtime, or not
 * yet copied): the manager then changes nothing and the last SyncResource stays, so a CR that is
 * briefly missing (being re-created, the runtime unreachable) does not empty the configuration in
 * the runtime. When the module is disabled the ModuleConfig goes, and the SyncResource with it.
 */
export function functionsSyncResource(config: ModuleConfigObject): SyncResourceObject | undefined {
  const resource = config.spec.resource;
  if (resource === undefined) return undefined;
  const kyma = config.spec.kyma;
  const owner: OwnerReference = {
    apiVersion: ModuleConfig.apiVersion,
    kind: ModuleConfig.kind,
    name: config.metadata.name ?? '',
    uid: config.metadata.uid ?? '',
    controller: true,
    // No blockOwnerDeletion: setting it needs `update` on moduleconfigs/finalizers (kube's
    // OwnerReferencesPermissionEnforcement), a right a module manager need not have; background
    // garbage collection removes the SyncResource after the ModuleConfig either way.
  };
  return {
    apiVersion: SyncResource.apiVersion,
    kind: SyncResource.kind,
    metadata: {
      name: config.metadata.name,
      namespace: config.metadata.namespace,
      labels: { [Labels.KymaName]: kyma, [Labels.ModuleName]: FUNCTIONS_MODULE },
      ownerReferences: [owner],
    },
    spec: {
      kyma,
      module: FUNCTIONS_MODULE,
      items: [
        {
          name: FUNCTIONS_CONFIG_ITEM,
          strategy: 'CreateAndSync',
          resource: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: FUNCTIONS_CONFIG_ITEM, namespace: FUNCTIONS_CONFIG_NAMESPACE, labels: { [MANAGED_BY_LABEL]: FUNCTIONS_MODULE_MANAGER } },
            data: configMapData(resource.spec),
          },
        },
      ],
    },
  };
}

/**
 * Whether `current` already is what applying `desired` would make it: the same spec (compared as
 * values, not as text), our labels, and our controller reference. Other fields (status, labels or
 * annotations of other managers) do not matter to this manager.
 */
export function syncResourceUpToDate(current: SyncResourceObject, desired: SyncResourceObject): boolean {
  if (!jsonEqual(current.spec, desired.spec)) return false;
  const labels = current.metadata.labels ?? {};
  if (!Object.entries(desired.metadata.labels ?? {}).every(([k, v]) => labels[k] === v)) return false;
  const refs = current.metadata.ownerReferences ?? [];
  return (desired.metadata.ownerReferences ?? []).every((want) => refs.some((have) => jsonEqual(have, want)));
}

export interface FunctionsModuleManagerOptions {
  /** Namespace of the ModuleConfigs and SyncResources (default kcp-system). */
  namespace?: string;
}

/**
 * Adds the controller to a manager: ModuleConfigs labelled `module-name=functions` in the
 * namespace are the primary kind; the SyncResources it owns enqueue their ModuleConfig, so a
 * SyncResource edited or deleted by someone else is written again.
 */
export function setupFunctionsModuleManager(manager: Manager, opts: FunctionsModuleManagerOptions = {}): Controller {
  const ns = opts.namespace ?? Namespaces.ControlPlane;
  const selector = `${Labels.ModuleName}=${FUNCTIONS_MODULE}`;
  const configs = manager.cache<ModuleConfigObject>(ModuleConfig, { namespace: ns, labelSelector: selector });
  const syncs = manager.cache<SyncResourceObject>(SyncResource, { namespace: ns, labelSelector: selector });
  const log = manager.logger;

  async function reconcile(req: Request, signal: AbortSignal): Promise<void> {
    const key = namespacedName(req);
    const config = configs.get(key);
    // Gone or going: garbage collection removes the SyncResource it controls.
    if (!config || config.metadata.deletionTimestamp) return;
    if (config.spec.module !== FUNCTIONS_MODULE) {
      log.warn('ModuleConfig labelled for functions names another module; left alone', { moduleConfig: key, module: config.spec.module });
      return;
    }
    const desired = functionsSyncResource(config);
    if (!desired) {
      log.debug('ModuleConfig holds no resource; the SyncResource stays as it is', { moduleConfig: key });
      return;
    }
    const current = syncs.get(key);
    if (current && syncResourceUpToDate(current, desired)) return;
    await manager.client.apply(desired, { fieldManager: FUNCTIONS_MODULE_MANAGER, force: true, signal });
    log.info(current ? 'SyncResource updated' : 'SyncResource created', { syncResource: key, kyma: config.spec.kyma });
  }

  return (
    newControllerManagedBy(manager)
      .named(FUNCTIONS_MODULE_MANAGER)
      .for(ModuleConfig, { namespace: ns, labelSelector: selector })
      .owns(SyncResource, { namespace: ns, labelSelector: selector })
      // One worker: keys are handled in the order their events arrived (tests rely on it to know that
      // an event was handled), and a few Kymas' ConfigMaps need no parallelism.
      .withOptions({ maxConcurrentReconciles: 1 })
      .complete(reconcile)
  );
}

export interface StartFunctionsModuleManagerOptions extends FunctionsModuleManagerOptions {
  /** The module manager's own client of the KCP (not shared with the control plane's controllers); the caller closes it. */
  client: Client;
  logger?: Logger;
}

export interface RunningModuleManager {
  manager: Manager;
  controller: Controller;
  /** Stops the manager gracefully (queue drained, informers stopped); resolves when it has stopped. */
  stop(): Promise<void>;
}

/** Starts a manager of its own with the functions controller; resolves once its caches are synced. */
export async function startFunctionsModuleManager(opts: StartFunctionsModuleManagerOptions): Promise<RunningModuleManager> {
  const logger = opts.logger ?? createLogger({ name: FUNCTIONS_MODULE_MANAGER });
  const manager = new Manager({ client: opts.client, name: FUNCTIONS_MODULE_MANAGER, logger, gracefulShutdownTimeoutMs: 10_000 });
  const controller = setupFunctionsModuleManager(manager, opts);
  const stopper = new AbortController();
  const running = manager.start(stopper.signal);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      stopper.abort();
      await running;
    })());
  // A manager that fails before its caches sync must not leave start() waiting forever.
  const failed = running.then(() => {
    throw new Error(`${FUNCTIONS_MODULE_MANAGER} stopped before its caches synced`);
  });
  failed.catch(() => undefined);
  try {
    await Promise.race([manager.ready(), failed]);
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
  return { manager, controller, stop };
}
