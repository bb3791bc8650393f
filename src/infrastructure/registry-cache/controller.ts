// The registry cache controller (upstream internal/controller/registrycache, which grew out of the
// customconfig controller): for each runtime whose kubeconfig Secret the infrastructure manager keeps,
// it reads the RegistryCacheConfig resources (`core.kyma-project.io/v1beta1`) that users create in
// the runtime cluster and copies them into the Runtime's `spec.imageRegistryCache`. The Runtime
// controller then patches the Shoot's `registry-cache` extension from that list
// (src/infrastructure/converter/extenders/registry-cache.ts).
//
// Registry caching is on for a runtime when its Kyma (`kyma-system/default` in the runtime) lists the
// `registry-cache` module or the RegistryCacheConfig CRD is installed there. When it is off and the
// Runtime still has caches, the list is emptied (the Shoot's extension is then disabled). Runtime
// clusters are read again every `resyncMs` (upstream 5 min); a change of the Secret (a new cluster,
// a rotation) reads them at once.
import { jsonEqual } from '../../kube/json.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import {
  LabelKymaManagedBy,
  LabelKymaRuntimeID,
  ManagedByInfrastructureManager,
  Runtime,
  type RuntimeObject,
} from '../../api/infrastructuremanager/index.js';
import { Kyma, type KymaObject } from '../../api/operator/index.js';
import { isNotFound } from '../../runtime/client/errors.js';
import { findObject } from '../../runtime/client/find.js';
import type { Client } from '../../runtime/client/interface.js';
import { type Controller, newControllerManagedBy, type ReconcileResult, type Request } from '../../runtime/controller.js';
import type { Logger } from '../../runtime/log.js';
import type { Manager } from '../../runtime/manager.js';
import { annotationsChanged, generationChanged, labelsChanged, or } from '../../runtime/predicates.js';
import { type RemoteClusterCache, secretClusterKey } from '../../runtime/remote/cache.js';
import { SECRET_KIND, type SecretObject } from '../gardener-cluster/secret.js';

export const REGISTRY_CACHE_CONTROLLER_NAME = 'registry-cache-config';
/** Field manager of the Runtime writes (upstream's). */
export const REGISTRY_CACHE_FIELD_MANAGER = 'customconfigcontroller';
/** The module whose presence in the runtime's Kyma turns registry caching on. */
export const RegistryCacheModuleName = 'registry-cache';
/** The users' registry cache configurations in the runtime cluster. */
export const RegistryCacheConfigKind: KindRef = { apiVersion: 'core.kyma-project.io/v1beta1', kind: 'RegistryCacheConfig' };
export const RegistryCacheConfigCRDName = 'registrycacheconfigs.core.kyma-project.io';
const CRD_KIND: KindRef = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
/** Upstream looks at every runtime again after 5 minutes. */
export const DEFAULT_REGISTRY_CACHE_RESYNC_MS = 5 * 60_000;

export interface RegistryCacheControllerOptions {
  kcp: Client;
  remoteClusters: RemoteClusterCache;
  /** Namespace of the Runtimes and their kubeconfig Secrets. */
  namespace: string;
  resyncMs?: number;
  workers?: number;
  logger?: Logger;
}

type ImageRegistryCache = NonNullable<RuntimeObject['spec']['imageRegistryCache']>[number];
type RegistryCacheConfig = KubeObject & { spec?: Record<string, unknown> };

/** A kubeconfig Secret the infrastructure manager keeps (upstream secretControlledByKIM). */
export function secretControlledByKIM(secret: SecretObject): boolean {
  const labels = secret.metadata.labels ?? {};
  return labels[LabelKymaRuntimeID] !== undefined && labels[LabelKymaManagedBy] === ManagedByInfrastructureManager;
}

export class RegistryCacheReconciler {
  private readonly resyncMs: number;

  constructor(private readonly opts: RegistryCacheControllerOptions & { log: Logger }) {
    this.resyncMs = opts.resyncMs ?? DEFAULT_REGISTRY_CACHE_RESYNC_MS;
  }

  async reconcile(req: Request, signal: AbortSignal): Promise<ReconcileResult> {
    const secret = await findObject<SecretObject>(this.opts.kcp, SECRET_KIND, req, { signal });
    if (!secret || !secretControlledByKIM(secret)) return {};
    const runtimeID = secret.metadata.labels?.[LabelKymaRuntimeID] ?? '';
    const runtime = await findObject<RuntimeObject>(this.opts.kcp, Runtime, { namespace: req.namespace, name: runtimeID }, { signal });
    if (!runtime || runtime.metadata.deletionTimestamp) return {};
    const log = this.opts.log.child(undefined, { runtime: `${req.namespace ?? ''}/${runtimeID}` });

    const remote = this.opts.remoteClusters.client(secretClusterKey(req));
    const enabled = await registryCacheEnabled(remote, signal);
    const current = runtime.spec.imageRegistryCache ?? [];
    if (!enabled && current.length === 0) return { requeueAfterMs: this.resyncMs };

    const caches = enabled ? await registryCachesOf(remote, signal) : [];
    if (!jsonEqual(caches, current)) {
      await this.opts.kcp.apply<RuntimeObject>(
        { apiVersion: Runtime.apiVersion, kind: Runtime.kind, metadata: { name: runtimeID, namespace: req.namespace }, spec: { imageRegistryCache: caches } } as RuntimeObject,
        { fieldManager: REGISTRY_CACHE_FIELD_MANAGER, force: true, signal },
      );
      log.info('registry cache configuration of the runtime updated', { caches: caches.map((c) => `${c.namespace}/${c.name}`) });
    }
    return { requeueAfterMs: this.resyncMs };
  }
}

/** The runtime's Kyma lists the registry-cache module, or the RegistryCacheConfig CRD is there (upstream's fallback). */
async function registryCacheEnabled(remote: Client, signal: AbortSignal): Promise<boolean> {
  const kyma = await findObject<KymaObject>(remote, Kyma, { namespace: 'kyma-system', name: 'default' }, { signal }).catch((e: unknown) => {
    if (isNotFound(e)) return undefined; // no Kyma kind in the runtime
    throw e;
  });
  if (kyma?.spec.modules?.some((m) => m.name === RegistryCacheModuleName)) return true;
  return (await findObject(remote, CRD_KIND, { name: RegistryCacheConfigCRDName }, { signal })) !== undefined;
}

/** Every RegistryCacheConfig of the runtime, in a stable order (namespace, name). */
async function registryCachesOf(remote: Client, signal: AbortSignal): Promise<ImageRegistryCache[]> {
  let items: RegistryCacheConfig[];
  try {
    items = (await remote.list<RegistryCacheConfig>(RegistryCacheConfigKind, { signal })).items;
  } catch (e) {
    if (isNotFound(e)) return []; // the module is listed but its CRD is not installed yet
    throw e;
  }
  return items
    .map((c) => ({ name: c.metadata.name ?? '', namespace: c.metadata.namespace ?? '', uid: c.metadata.uid ?? '', config: c.spec ?? {} }))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

export function setupRegistryCacheController(manager: Manager, opts: RegistryCacheControllerOptions): Controller {
  const log = (opts.logger ?? manager.logger).child(REGISTRY_CACHE_CONTROLLER_NAME);
  const reconciler = new RegistryCacheReconciler({ ...opts, log });
  return newControllerManagedBy(manager)
    .named(REGISTRY_CACHE_CONTROLLER_NAME)
    .for(SECRET_KIND, {
      namespace: opts.namespace,
      labelSelector: `${LabelKymaManagedBy}=${ManagedByInfrastructureManager}`,
      predicates: [or(generationChanged, labelsChanged, annotationsChanged)],
    })
    .withOptions({ maxConcurrentReconciles: opts.workers ?? 4 })
    .complete((req, signal) => reconciler.reconcile(req, signal));
}
