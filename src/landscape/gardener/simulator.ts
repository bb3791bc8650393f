// The Gardener simulator: runs next to the embedded API server, plays Gardener for the logical
// cluster `garden` (Shoot CRD, admission webhook, adminkubeconfig subresource, gardenlet's work on
// Shoots) and creates a logical cluster per successfully created Shoot.
import { crdOf } from '../../api/crd.js';
import { ADMIN_KUBECONFIG_SUBRESOURCE, GARDENER_CORE_GROUP, Seed, SeedConditionGardenletReady, type SeedObject, Shoot } from '../../api/gardener/index.js';
import type { AnyKind } from '../../api/render.js';
import type { LogicalCluster } from '../../apiserver/cluster.js';
import { StatusError } from '../../apiserver/errors.js';
import type { ResourceType } from '../../apiserver/resources.js';
import type { RunningApiServer } from '../../apiserver/server.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { type Logger, silentLogger } from '../../runtime/log.js';
import { KeyedLoop } from '../keyed-loop.js';
import { adminKubeconfigHandler } from './adminkubeconfig.js';
import {
  defaultSimulatorOptions,
  GARDEN_CLUSTER,
  type GardenerSimulatorOptions,
  PROJECT_NAMESPACE_PREFIX,
  shootClusterName,
  SIMULATOR_FIELD_MANAGER,
} from './options.js';
import { type ShootClusterHooks, ShootOperator } from './shoot-operator.js';
import { ShootAdmissionWebhook } from './webhook.js';
import { sleep } from '../../util/sleep.js';

const SHOOTS_KEY = `${GARDENER_CORE_GROUP}/${Shoot.plural}`;

export interface GardenerSimulatorConfig extends Partial<GardenerSimulatorOptions> {
  /** Called when a shoot's logical cluster is created or removed (the kubelet simulation listens). */
  hooks?: ShootClusterHooks;
  /** Errors of the simulator's own work (default: logged at error, or printed to stderr without a logger). */
  onError?: (err: unknown) => void;
  /** What the simulator decides: operations started, failed on request, succeeded, clusters created and removed (info); steps (debug). */
  logger?: Logger;
}

export class GardenerSimulator {
  readonly options: GardenerSimulatorOptions;
  private webhook: ShootAdmissionWebhook | undefined;
  private loop: KeyedLoop | undefined;
  private unsubscribe: (() => void) | undefined;
  private garden: LogicalCluster | undefined;
  private readonly hooks: ShootClusterHooks;
  private readonly onError: (err: unknown) => void;
  private readonly log: Logger;

  constructor(
    private readonly server: RunningApiServer,
    config: GardenerSimulatorConfig = {},
  ) {
    const { hooks, onError, logger, ...options } = config;
    this.options = { ...defaultSimulatorOptions, ...stripUndefined(options) };
    this.hooks = hooks ?? {};
    this.log = logger ?? silentLogger;
    this.onError = onError ?? (logger ? (err) => logger.error('gardener simulator failed', { error: err }) : (err) => console.error('gardener simulator:', err));
  }

  /**
   * Creates the garden cluster (if missing) with the Shoot CRD, registers admission and the
   * adminkubeconfig subresource, and starts working on Shoots. Stops when the signal aborts.
   */
  async start(signal?: AbortSignal): Promise<void> {
    await this.server.createCluster(GARDEN_CLUSTER);
    const garden = this.server.cluster(GARDEN_CLUSTER);
    this.garden = garden;
    const shoots = await installCrd(garden, Shoot, signal);
    await this.ensureSeeds(await installCrd(garden, Seed, signal));
    this.webhook = await ShootAdmissionWebhook.start(this.options);
    await this.webhook.register(garden);
    this.server.registerSubresource(GARDENER_CORE_GROUP, Shoot.plural, ADMIN_KUBECONFIG_SUBRESOURCE, adminKubeconfigHandler(this.server, this.options));
    const operator = new ShootOperator(this.server, garden, shoots, this.options, this.hooks, this.log);
    const loop = new KeyedLoop((key) => operator.reconcile(key).catch((err: unknown) => retryOnConflict(err)), {
      concurrency: this.options.concurrency,
      onError: (_key, err) => this.onError(err),
      retryAfterMs: 500,
      // Each Shoot is paced by the clock; when the simulator falls behind, the Shoots that came first
      // go on first, so clusters become ready one after another rather than all at the end.
      oldestFirst: true,
    });
    this.loop = loop;
    this.unsubscribe = garden.store.onCommit((ev) => {
      if (ev.resource === SHOOTS_KEY) loop.enqueue(`${ev.namespace}/${ev.name}`);
    });
    for (const o of garden.store.list(SHOOTS_KEY)) loop.enqueue(`${o.namespace}/${o.name}`);
    signal?.addEventListener('abort', () => {
      this.stop().catch((err: unknown) => this.onError(err));
    }, { once: true });
  }

  /** Creates the project namespace `garden-<project>` with Gardener's project labels. */
  async ensureProject(project: string): Promise<string> {
    const garden = this.requireGarden();
    const name = `${PROJECT_NAMESPACE_PREFIX}${project}`;
    const nsType = garden.resolve('', 'v1', 'namespaces')!;
    if (!garden.tryGet(nsType, '', name)) {
      const ns: ObjectWithMeta = {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { 'project.gardener.cloud/name': project, 'gardener.cloud/role': 'project' } },
      };
      await garden.create(nsType, '', ns, { internal: true, fieldManager: SIMULATOR_FIELD_MANAGER });
    }
    return name;
  }

  /** Creates the configured Seeds that are missing (visible, gardenlet ready), as a landscape's operators set them up. */
  private async ensureSeeds(seeds: ResourceType): Promise<void> {
    const garden = this.requireGarden();
    const now = new Date().toISOString();
    for (const seed of this.options.seeds) {
      if (garden.tryGet(seeds, '', seed.name)) continue;
      const obj: SeedObject = {
        apiVersion: Seed.apiVersion,
        kind: Seed.kind,
        metadata: { name: seed.name, labels: { 'seed.gardener.cloud/provider': seed.provider, 'seed.gardener.cloud/region': seed.region } },
        spec: { provider: { type: seed.provider, region: seed.region }, settings: { scheduling: { visible: true } } },
        status: { conditions: [{ type: SeedConditionGardenletReady, status: 'True', lastTransitionTime: now, lastUpdateTime: now, reason: 'GardenletReady', message: 'Gardenlet is posting ready status.' }] },
      };
      await garden.create(seeds, '', obj as ObjectWithMeta, { internal: true, fieldManager: SIMULATOR_FIELD_MANAGER });
    }
  }

  /** Name of the logical cluster a Shoot gets (`shoot--<project>--<name>`). */
  clusterNameOf(namespace: string, shootName: string): string {
    return shootClusterName(namespace, shootName);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.loop?.stop();
    this.loop = undefined;
    await this.webhook?.stop();
    this.webhook = undefined;
  }

  private requireGarden(): LogicalCluster {
    if (!this.garden) throw new Error('the Gardener simulator is not started');
    return this.garden;
  }
}

/** Installs (or keeps) a Gardener kind's CRD in the garden cluster and waits until it is served. */
async function installCrd(garden: LogicalCluster, kind: AnyKind, signal: AbortSignal | undefined): Promise<ResourceType> {
  const crdType = garden.resolve('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  const crd = crdOf(kind) as ObjectWithMeta;
  if (!garden.tryGet(crdType, '', crd.metadata.name ?? '')) {
    await garden.create(crdType, '', crd, { internal: true, fieldManager: SIMULATOR_FIELD_MANAGER });
  }
  const deadline = Date.now() + 10_000;
  for (;;) {
    const t = garden.resolve(GARDENER_CORE_GROUP, kind.version, kind.plural);
    if (t) return t;
    if (signal?.aborted) throw new Error(`aborted while waiting for the ${kind.kind} CRD`);
    if (Date.now() > deadline) throw new Error(`the ${kind.kind} CRD was not served within 10 s`);
    await sleep(10);
  }
}

/** A conflict means the Shoot changed under us: look again at once (the change re-queued it anyway). */
function retryOnConflict(err: unknown): number {
  if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return 20;
  throw err;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
