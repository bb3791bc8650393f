// What gardenlet does for a Shoot, simulated: one level-triggered reconcile that reads the Shoot and
// moves it one step along its operation (Create: Pending -> Processing -> Succeeded, Reconcile after
// spec changes, Delete after deletion), creates and removes the shoot's logical cluster (with a Node
// per machine of its worker pools, see machines.ts), and fails on request (see options.ts). The
// pace (when the next step is due) is the only thing kept in memory.
import { randomUUID } from 'node:crypto';
import {
  AnnotationGardenerOperation,
  FinalizerGardener,
  GardenerOperationReconcile,
  GardenerOperationRetry,
  isRetryableErrorCode,
  type LastError,
  type LastOperation,
  type LastOperationType,
  LastOperationStateError,
  LastOperationStateFailed,
  LastOperationStatePending,
  LastOperationStateProcessing,
  LastOperationStateSucceeded,
  LastOperationTypeCreate,
  LastOperationTypeDelete,
  LastOperationTypeReconcile,
  LabelShootStatus,
  type ShootObject,
} from '../../api/gardener/index.js';
import type { LogicalCluster } from '../../apiserver/cluster.js';
import { nowRfc3339 } from '../../apiserver/objects.js';
import type { ResourceType } from '../../apiserver/resources.js';
import type { RunningApiServer } from '../../apiserver/server.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { type Logger, silentLogger } from '../../runtime/log.js';
import { AnnotationFailMessage, AnnotationFailOperations, AnnotationFailRecover, AnnotationFailWith } from '../constants.js';
import type { WorkResult } from '../keyed-loop.js';
import { syncShootNodes } from './machines.js';
import { type GardenerSimulatorOptions, shootClusterName, SIMULATOR_FIELD_MANAGER } from './options.js';
import { healthLabel, lastOperation, shootConditions, shootConstraints } from './status.js';

type ShootStatus = NonNullable<ShootObject['status']>;

export interface ShootClusterHooks {
  /** A shoot's logical cluster was created (the kubelet simulation attaches to it). */
  clusterCreated?(name: string): void;
  /** A shoot's logical cluster was removed. */
  clusterDeleted?(name: string): void;
}

interface InjectedFailure {
  code: string;
  recover: boolean;
  message: string;
}

/** The failure a Shoot asks for in the given operation, if any. */
export function injectedFailure(shoot: ShootObject, type: LastOperationType): InjectedFailure | undefined {
  const a = shoot.metadata.annotations ?? {};
  const code = a[AnnotationFailWith];
  if (!code) return undefined;
  const ops = (a[AnnotationFailOperations] ?? `${LastOperationTypeCreate},${LastOperationTypeReconcile}`).split(',').map((s) => s.trim());
  if (!ops.includes(type)) return undefined;
  const recoverText = a[AnnotationFailRecover];
  const recover = recoverText === undefined ? isRetryableErrorCode(code) : recoverText === 'true';
  return { code, recover, message: a[AnnotationFailMessage] ?? `simulated failure of the ${type} operation: ${code}` };
}

export class ShootOperator {
  /** When the step after a given status is due: key -> (status signature, due time). */
  private readonly pace = new Map<string, { signature: string; dueAt: number }>();
  /** The Shoot as this reconcile last wrote it, by key (a key is never reconciled twice at once). */
  private readonly written = new Map<string, ShootObject>();

  constructor(
    private readonly server: RunningApiServer,
    private readonly garden: LogicalCluster,
    private readonly shoots: ResourceType,
    private readonly opts: GardenerSimulatorOptions,
    private readonly hooks: ShootClusterHooks = {},
    // Operations at info (a few lines per Shoot and operation, fine at fleet size), steps at debug.
    private readonly log: Logger = silentLogger,
  ) {}

  async reconcile(key: string): Promise<WorkResult> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    try {
      return await this.reconcileShoot(key, namespace, name);
    } finally {
      this.written.delete(key);
    }
  }

  private async reconcileShoot(key: string, namespace: string, name: string): Promise<WorkResult> {
    const shoot = this.garden.tryGet(this.shoots, namespace, name) as ShootObject | undefined;
    if (!shoot) {
      this.pace.delete(key);
      // The Shoot went without our Delete operation (finalizer removed by hand): do not leak its cluster.
      await this.removeCluster(shootClusterName(namespace, name));
      return undefined;
    }
    if (shoot.metadata.deletionTimestamp) return this.reconcileDeletion(key, shoot);
    if (!(shoot.metadata.finalizers ?? []).includes(FinalizerGardener)) {
      await this.writeMetadata(shoot, (m) => (m.finalizers = [...(m.finalizers ?? []), FinalizerGardener]));
      if (this.log.enabled('debug')) this.log.debug('finalizer added', { shoot: key });
      return undefined;
    }
    const requested = shoot.metadata.annotations?.[AnnotationGardenerOperation];
    if (requested === GardenerOperationReconcile || requested === GardenerOperationRetry) return this.onOperationAnnotation(shoot, requested);
    const result = await this.step(key, shoot);
    await this.syncHealthLabel(key, this.written.get(key) ?? shoot);
    return result;
  }

  // ---- one step of a create or reconcile ----------------------------------------------------

  private async step(key: string, shoot: ShootObject): Promise<WorkResult> {
    const status = shoot.status ?? {};
    const op = status.lastOperation;
    const generation = shoot.metadata.generation ?? 1;
    if (!op) {
      await this.write(shoot, this.initialStatus(shoot));
      this.log.info('Shoot operation started', { shoot: key, operation: LastOperationTypeCreate, provider: shoot.spec.provider.type, region: shoot.spec.region, ...this.failureFields(shoot, LastOperationTypeCreate) });
      return undefined;
    }
    const specMoved = generation !== (status.observedGeneration ?? 0);
    const settled = op.state === LastOperationStateSucceeded || op.state === LastOperationStateFailed || op.state === LastOperationStateError;
    if (settled && specMoved) return this.startOperation(shoot, LastOperationTypeReconcile, 'spec changed');
    const wait = this.waitFor(key, shoot, op);
    if (wait === undefined || wait > 0) return wait;
    switch (op.state) {
      case LastOperationStatePending:
        if (this.log.enabled('debug')) this.log.debug('Shoot operation processing', { shoot: key, operation: op.type });
        return this.write(shoot, { ...status, lastOperation: lastOperation(op.type, LastOperationStateProcessing, 0) });
      case LastOperationStateProcessing:
        return this.advance(shoot, op);
      case LastOperationStateError:
      case LastOperationStateFailed:
        // Recovery: the operation is retried where it stopped; the kept lastErrors mark the failure as spent.
        this.log.info('Shoot operation resumed after the injected failure', { shoot: key, operation: op.type, progress: op.progress });
        return this.write(shoot, { ...status, lastOperation: lastOperation(op.type, LastOperationStateProcessing, op.progress) });
      default:
        return undefined;
    }
  }

  /** Moves a Processing operation by one increment, failing half-way when asked to, succeeding at 100. */
  private async advance(shoot: ShootObject, op: LastOperation): Promise<WorkResult> {
    const status = shoot.status ?? {};
    const next = Math.min(100, op.progress + Math.ceil(100 / Math.max(1, this.opts.progressSteps)));
    const failure = injectedFailure(shoot, op.type);
    if (failure && next >= 50 && !(status.lastErrors ?? []).some((e) => (e.codes ?? []).includes(failure.code))) {
      const state = isRetryableErrorCode(failure.code) ? LastOperationStateError : LastOperationStateFailed;
      const lastErrors: LastError[] = [{ description: failure.message, taskID: 'simulated-task', codes: [failure.code], lastUpdateTime: nowRfc3339() }];
      await this.write(shoot, { ...status, lastOperation: lastOperation(op.type, state, op.progress), lastErrors });
      this.log.info(`Shoot operation ${state === LastOperationStateError ? 'in Error' : 'Failed'} (injected)`, {
        shoot: keyOf(shoot),
        operation: op.type,
        state,
        code: failure.code,
        progress: op.progress,
        recovers: failure.recover,
        message: failure.message,
      });
      return undefined;
    }
    if (op.type === LastOperationTypeDelete) return this.advanceDeletion(shoot, op, next);
    if (next < 100) {
      if (this.log.enabled('debug')) this.log.debug('Shoot operation progressed', { shoot: keyOf(shoot), operation: op.type, progress: next });
      return this.write(shoot, { ...status, lastOperation: lastOperation(op.type, LastOperationStateProcessing, next) });
    }
    const access = await this.ensureCluster(shoot);
    const done: ShootStatus = {
      ...status,
      lastOperation: lastOperation(op.type, LastOperationStateSucceeded, 100),
      conditions: shootConditions(true, status.conditions),
      constraints: shootConstraints(status.constraints),
      advertisedAddresses: [{ name: 'external', url: access.url }],
      seedName: status.seedName ?? `sim-${shoot.spec.provider.type}-${shoot.spec.region}`.slice(0, 63),
      hibernated: false,
      networking: observedNetworking(shoot),
    };
    delete done.lastErrors;
    await this.write(shoot, done);
    this.log.info('Shoot operation Succeeded', { shoot: keyOf(shoot), operation: op.type, cluster: shootClusterName(shoot.metadata.namespace ?? '', shoot.metadata.name ?? '') });
    return undefined;
  }

  /** The failure a Shoot asks for, as log fields (what the simulator will do half-way). */
  private failureFields(shoot: ShootObject, type: LastOperationType): Record<string, unknown> {
    const failure = injectedFailure(shoot, type);
    return failure ? { injectedFailure: failure.code, recovers: failure.recover } : {};
  }

  private initialStatus(shoot: ShootObject): ShootStatus {
    const namespace = shoot.metadata.namespace ?? '';
    return {
      lastOperation: lastOperation(LastOperationTypeCreate, LastOperationStatePending, 0),
      observedGeneration: shoot.metadata.generation ?? 1,
      technicalID: shootClusterName(namespace, shoot.metadata.name ?? ''),
      uid: randomUUID(),
      gardener: { id: 'gardener-simulator', name: 'gardener-simulator', version: 'v1.0.0-simulated' },
      conditions: shootConditions(false, undefined),
      constraints: shootConstraints(undefined),
      hibernated: false,
    };
  }

  private async startOperation(shoot: ShootObject, type: LastOperationType, why: string): Promise<WorkResult> {
    const status: ShootStatus = {
      ...(shoot.status ?? {}),
      lastOperation: lastOperation(type, LastOperationStateProcessing, 0),
      observedGeneration: shoot.metadata.generation ?? 1,
    };
    delete status.lastErrors;
    await this.write(shoot, status);
    this.log.info('Shoot operation started', { shoot: keyOf(shoot), operation: type, why, generation: shoot.metadata.generation, ...this.failureFields(shoot, type) });
    return undefined;
  }

  /** `gardener.cloud/operation`: `reconcile` starts a Reconcile, `retry` resumes a failed operation; Gardener then removes the annotation. */
  private async onOperationAnnotation(shoot: ShootObject, requested: string): Promise<WorkResult> {
    const op = shoot.status?.lastOperation;
    const busy = !op || op.state === LastOperationStateProcessing || op.state === LastOperationStatePending;
    const failed = op !== undefined && (op.state === LastOperationStateFailed || op.state === LastOperationStateError);
    const fields = { shoot: keyOf(shoot), annotation: `${AnnotationGardenerOperation}=${requested}`, lastOperation: op ? `${op.type} ${op.state}` : 'none' };
    if (requested === GardenerOperationReconcile && !busy) await this.startOperation(shoot, LastOperationTypeReconcile, `annotation ${AnnotationGardenerOperation}=${requested}`);
    else if (requested === GardenerOperationRetry && op && failed) {
      await this.write(shoot, { ...(shoot.status ?? {}), lastOperation: lastOperation(op.type, LastOperationStateProcessing, op.progress) });
      this.log.info('Shoot operation retried on request', { ...fields, operation: op.type, progress: op.progress });
    } else this.log.info('operation annotation removed without effect', { ...fields, why: requested === GardenerOperationRetry ? 'the last operation did not fail' : 'an operation is in progress' });
    const fresh = this.garden.tryGet(this.shoots, shoot.metadata.namespace ?? '', shoot.metadata.name ?? '') as ShootObject | undefined;
    if (fresh) await this.writeMetadata(fresh, (m) => delete m.annotations?.[AnnotationGardenerOperation]);
    return undefined;
  }

  // ---- deletion -------------------------------------------------------------------------

  private async reconcileDeletion(key: string, shoot: ShootObject): Promise<WorkResult> {
    const status = shoot.status ?? {};
    const op = status.lastOperation;
    if (!(shoot.metadata.finalizers ?? []).includes(FinalizerGardener)) return undefined;
    if (!op || op.type !== LastOperationTypeDelete) return this.startOperation(shoot, LastOperationTypeDelete, 'Shoot deleted');
    const wait = this.waitFor(key, shoot, op);
    if (wait === undefined || wait > 0) return wait;
    if (op.state === LastOperationStateProcessing) return this.advance(shoot, op);
    if (op.state === LastOperationStateError || op.state === LastOperationStateFailed) {
      this.log.info('Shoot operation resumed after the injected failure', { shoot: key, operation: op.type, progress: op.progress });
      return this.write(shoot, { ...status, lastOperation: lastOperation(op.type, LastOperationStateProcessing, op.progress) });
    }
    if (op.state === LastOperationStateSucceeded) return this.finishDeletion(shoot);
    return undefined;
  }

  private async advanceDeletion(shoot: ShootObject, op: LastOperation, next: number): Promise<WorkResult> {
    const status = shoot.status ?? {};
    if (next < 100) {
      if (this.log.enabled('debug')) this.log.debug('Shoot operation progressed', { shoot: keyOf(shoot), operation: op.type, progress: next });
      return this.write(shoot, { ...status, lastOperation: lastOperation(op.type, LastOperationStateProcessing, next) });
    }
    await this.removeCluster(shootClusterName(shoot.metadata.namespace ?? '', shoot.metadata.name ?? ''));
    const done: ShootStatus = { ...status, lastOperation: lastOperation(op.type, LastOperationStateSucceeded, 100), conditions: shootConditions(false, status.conditions) };
    delete done.lastErrors;
    delete done.advertisedAddresses;
    await this.write(shoot, done);
    this.log.info('Shoot operation Succeeded', { shoot: keyOf(shoot), operation: op.type });
    const fresh = this.garden.tryGet(this.shoots, shoot.metadata.namespace ?? '', shoot.metadata.name ?? '') as ShootObject | undefined;
    return fresh ? this.finishDeletion(fresh) : undefined;
  }

  private async finishDeletion(shoot: ShootObject): Promise<WorkResult> {
    await this.writeMetadata(shoot, (m) => (m.finalizers = (m.finalizers ?? []).filter((f) => f !== FinalizerGardener)));
    if (this.log.enabled('debug')) this.log.debug('finalizer removed; the Shoot goes', { shoot: keyOf(shoot) });
    return undefined;
  }

  // ---- pacing ---------------------------------------------------------------------------

  /**
   * Milliseconds until the step after the current status is due (0: now), or undefined when the
   * status waits for nothing (Succeeded; Error/Failed without recovery).
   */
  private waitFor(key: string, shoot: ShootObject, op: LastOperation): number | undefined {
    const duration = this.stepDuration(shoot, op);
    if (duration === undefined) {
      this.pace.delete(key);
      return undefined;
    }
    const signature = `${shoot.metadata.uid ?? ''}|${op.type}|${op.state}|${op.progress}|${op.lastUpdateTime}`;
    let entry = this.pace.get(key);
    if (!entry || entry.signature !== signature) {
      entry = { signature, dueAt: Date.now() + duration };
      this.pace.set(key, entry);
    }
    return Math.max(0, entry.dueAt - Date.now());
  }

  private stepDuration(shoot: ShootObject, op: LastOperation): number | undefined {
    const steps = Math.max(1, this.opts.progressSteps);
    switch (op.state) {
      case LastOperationStatePending:
        return this.opts.pendingMs;
      case LastOperationStateProcessing: {
        const total = op.type === LastOperationTypeCreate ? this.opts.createMs : op.type === LastOperationTypeDelete ? this.opts.deleteMs : this.opts.reconcileMs;
        return Math.round(total / steps);
      }
      case LastOperationStateError:
      case LastOperationStateFailed: {
        const failure = injectedFailure(shoot, op.type);
        return failure?.recover ? this.opts.recoverAfterMs : undefined;
      }
      case LastOperationStateSucceeded:
        return op.type === LastOperationTypeDelete ? 0 : undefined;
      default:
        return undefined;
    }
  }

  // ---- clusters -------------------------------------------------------------------------

  private async ensureCluster(shoot: ShootObject): Promise<{ url: string }> {
    const name = shootClusterName(shoot.metadata.namespace ?? '', shoot.metadata.name ?? '');
    const existed = this.server.hasCluster(name);
    const access = await this.server.createCluster(name);
    // The workers' machines join before the cluster is handed over, so its kubelets find them.
    await syncShootNodes(this.server.cluster(name), shoot, name);
    if (!existed) {
      this.log.info('cluster created', { cluster: name, shoot: keyOf(shoot), workers: (shoot.spec.provider.workers ?? []).map((w) => w.name) });
      this.hooks.clusterCreated?.(name);
    }
    return access;
  }

  private async removeCluster(name: string): Promise<void> {
    if (!this.server.hasCluster(name)) return;
    await this.server.deleteCluster(name);
    this.log.info('cluster removed', { cluster: name });
    this.hooks.clusterDeleted?.(name);
  }

  // ---- writes ---------------------------------------------------------------------------

  /** Writes the status subresource (as gardenlet does). The commit re-queues the Shoot. */
  private async write(shoot: ShootObject, status: ShootStatus): Promise<WorkResult> {
    const { object } = await this.garden.update(this.shoots, shoot.metadata.namespace ?? '', shoot.metadata.name ?? '', { ...shoot, status } as ObjectWithMeta, {
      subresource: 'status',
      internal: true,
      fieldManager: SIMULATOR_FIELD_MANAGER,
    });
    this.written.set(keyOf(shoot), object as ShootObject);
    return undefined;
  }

  private async writeMetadata(shoot: ShootObject, edit: (m: ShootObject['metadata']) => void): Promise<void> {
    const next = structuredClone(shoot);
    edit(next.metadata);
    await this.garden.update(this.shoots, shoot.metadata.namespace ?? '', shoot.metadata.name ?? '', next as ObjectWithMeta, { internal: true, fieldManager: SIMULATOR_FIELD_MANAGER });
  }

  /** Keeps the `shoot.gardener.cloud/status` label in line with the last operation (of the Shoot as it is now). */
  private async syncHealthLabel(key: string, shoot: ShootObject): Promise<void> {
    if (shoot.metadata.deletionTimestamp) return;
    const want = healthLabel(shoot.status?.lastOperation);
    if (shoot.metadata.labels?.[LabelShootStatus] === want) return;
    await this.writeMetadata(shoot, (m) => (m.labels = { ...(m.labels ?? {}), [LabelShootStatus]: want }));
    if (this.log.enabled('debug')) this.log.debug('health label set', { shoot: key, label: `${LabelShootStatus}=${want}` });
  }
}

function keyOf(shoot: ShootObject): string {
  return `${shoot.metadata.namespace ?? ''}/${shoot.metadata.name ?? ''}`;
}

function observedNetworking(shoot: ShootObject): ShootStatus['networking'] {
  const n = shoot.spec.networking ?? {};
  const out: NonNullable<ShootStatus['networking']> = {};
  if (n.pods) out.pods = [n.pods];
  if (n.nodes) out.nodes = [n.nodes];
  if (n.services) out.services = [n.services];
  return out;
}
