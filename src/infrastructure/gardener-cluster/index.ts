// Wiring of the GardenerCluster controller into a manager of the KCP.
//
//   setupGardenerClusterController(manager, { garden, kcp, project: 'kyma-dev', namespace: 'kcp-system' })
//
// GardenerClusters are watched (label, annotation or generation changes, as upstream's predicates),
// and so are the kubeconfig Secrets the controller writes (a deleted or edited Secret is repaired).
import { GardenerCluster, type GardenerClusterObject, LabelKymaManagedBy, ManagedByInfrastructureManager } from '../../api/infrastructuremanager/index.js';
import { CachedReader, NotingClient, OwnWrites } from '../../runtime/cache/own-writes.js';
import type { Client } from '../../runtime/client/interface.js';
import { type Controller, newControllerManagedBy } from '../../runtime/controller.js';
import type { Logger } from '../../runtime/log.js';
import type { Manager } from '../../runtime/manager.js';
import { annotationsChanged, generationChanged, labelsChanged, or } from '../../runtime/predicates.js';
import { gardenerKubeconfigProvider, type KubeconfigProvider } from './admin-kubeconfig.js';
import { GardenerClusterReconciler } from './controller.js';
import { type RotationPolicy, rotationPolicy } from './rotation.js';
import { SECRET_KIND, type SecretObject } from './secret.js';

export { gardenerKubeconfigProvider, postJson, type IssuedKubeconfig, type KubeconfigProvider } from './admin-kubeconfig.js';
export { GardenerClusterReconciler } from './controller.js';
export {
  DEFAULT_EXPIRATION_SECONDS,
  DEFAULT_MINIMAL_ROTATION_TIME_RATIO,
  DEFAULT_ROTATION_PERIOD_RATIO,
  formatLastSync,
  msUntilRotation,
  parseLastSync,
  rotationAfterMs,
  rotationPolicy,
  type RotationPolicy,
} from './rotation.js';
export { kubeconfigIn, newKubeconfigSecret, secretLabels, secretSelector, type SyncedKubeconfig } from './secret.js';

export const GARDENER_CLUSTER_CONTROLLER_NAME = 'gardener-cluster';

export interface GardenerClusterControllerOptions {
  /** Client of the garden cluster (Gardener project access). */
  garden: Client;
  /** Client of the KCP, where GardenerClusters and the kubeconfig Secrets live. */
  kcp: Client;
  /** Gardener project: Shoots live in namespace `garden-<project>`. */
  project: string;
  /** Namespace of the GardenerClusters and their Secrets (upstream: kcp-system); all namespaces when unset. */
  namespace?: string;
  /** Validity requested for each kubeconfig (upstream `--kubeconfig-expiration-time`, default 24 h). */
  expirationSeconds?: number;
  /** Upstream `--minimal-rotation-time` (default 0.6). */
  minimalRotationTimeRatio?: number;
  /** Share of the rotation period after which a Secret is rotated (upstream constant 0.95). */
  rotationPeriodRatio?: number;
  /** Parallel reconciles (upstream `--gardener-cluster-ctrl-workers-cnt`, default 25). */
  workers?: number;
  /** Timeout of one reconcile (upstream `--gardener-ctrl-reconcilation-timeout`, default 60 s). */
  reconcileTimeoutMs?: number;
  /** When Gardener does not know the Shoot, look again after this long (default 15 s). */
  missingShootRetryMs?: number;
  /** Where kubeconfigs come from; default: the Shoot's adminkubeconfig subresource through `garden`. */
  kubeconfigProvider?: KubeconfigProvider;
  logger?: Logger;
  now?: () => number;
}

export interface GardenerClusterControllerHandle {
  controller: Controller;
  reconciler: GardenerClusterReconciler;
  policy: RotationPolicy;
}

export function setupGardenerClusterController(manager: Manager, opts: GardenerClusterControllerOptions): GardenerClusterControllerHandle {
  const policy = rotationPolicy({
    expirationSeconds: opts.expirationSeconds,
    minimalRotationTimeRatio: opts.minimalRotationTimeRatio,
    rotationPeriodRatio: opts.rotationPeriodRatio,
  });
  const log = (opts.logger ?? manager.logger).child(GARDENER_CLUSTER_CONTROLLER_NAME);
  const scope = opts.namespace ? { namespace: opts.namespace } : {};
  const secretScope = { ...scope, labelSelector: `${LabelKymaManagedBy}=${ManagedByInfrastructureManager}` };
  // Reads come from the informers the controller watches anyway (a Secret outside them, e.g. one
  // that lost its labels, is read from the API server), except while this controller's own write of
  // the object has not reached them.
  const clusterWrites = new OwnWrites(manager.informer<GardenerClusterObject>(GardenerCluster, scope));
  const secretWrites = new OwnWrites(manager.informer<SecretObject>(SECRET_KIND, secretScope));
  const kcp = new NotingClient(opts.kcp, [
    { kind: GardenerCluster, writes: clusterWrites },
    { kind: SECRET_KIND, writes: secretWrites },
  ]);
  const reconciler = new GardenerClusterReconciler({
    kcp,
    clusters: new CachedReader(kcp, GardenerCluster, clusterWrites),
    secrets: new CachedReader(kcp, SECRET_KIND, secretWrites),
    provider: opts.kubeconfigProvider ?? gardenerKubeconfigProvider(opts.garden, `garden-${opts.project}`, policy.expirationSeconds),
    policy,
    log,
    reconcileTimeoutMs: opts.reconcileTimeoutMs ?? 60_000,
    missingShootRetryMs: opts.missingShootRetryMs ?? 15_000,
    secretNamespace: opts.namespace,
    metrics: {
      state: manager.registry.gauge({ name: 'im_gardener_clusters_state', help: 'State of each GardenerCluster: 1 for its current state and condition reason.', labelNames: ['runtimeId', 'shootName', 'state', 'reason'] }),
      rotation: manager.registry.gauge({ name: 'im_kubeconfig_expiration', help: 'When the kubeconfig of a runtime is rotated next, in epoch seconds.', labelNames: ['runtimeId', 'shootName'] }),
    },
    now: opts.now,
  });
  const controller = newControllerManagedBy(manager)
    .named(GARDENER_CLUSTER_CONTROLLER_NAME)
    .for(GardenerCluster, { ...scope, predicates: [or(labelsChanged, annotationsChanged, generationChanged)] })
    .owns(SECRET_KIND, secretScope)
    .withOptions({ maxConcurrentReconciles: opts.workers ?? 25 })
    .complete((req, signal) => reconciler.reconcile(req, signal));
  return { controller, reconciler, policy };
}
