// The lifecycle manager's Prometheus metrics, named as upstream names them: one gauge series per
// Kyma and state (1 for the current state, 0 for the others), the same per module, and the
// requeue reasons upstream counts (requeue-reasons.ts).
import { stateValues } from '../api/operator/index.js';
import type { Counter, Registry, StateGauge } from '../runtime/metrics.js';
import { RequeueReasons, type RequeueType } from './requeue-reasons.js';
import { getFips } from 'node:crypto';

const STATES = stateValues.filter((s) => s !== '');

export type { RequeueType } from './requeue-reasons.js';

/** Upstream's FIPS modes (lifecycle_mgr_fips_mode): 0 off, 1 on, 2 only. */
export const FipsModes = { Off: 0, On: 1, Only: 2 } as const;

/**
 * The process's FIPS mode: on when Node's OpenSSL runs with a FIPS provider (crypto.getFips()),
 * "only" when it was started with --force-fips (FIPS cannot be switched off then; Go's
 * GODEBUG=fips140=only is upstream's equivalent).
 */
export function fipsMode(probe: { enabled: boolean; forced: boolean } = { enabled: getFips() === 1, forced: [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--force-fips') }): number {
  if (!probe.enabled) return FipsModes.Off;
  return probe.forced ? FipsModes.Only : FipsModes.On;
}

/** Why a Kyma reconcile looked at its runtime (see the Kyma controller's fullCheckReason). */
export type RuntimeCheckReason = 'watcher_off' | 'first' | 'ca_changed' | 'unhealthy' | 'changed' | 'catalog_changed' | 'watchers_changed' | 'shard_gained' | 'interval';

export class LifecycleMetrics {
  private readonly kymaState: StateGauge;
  private readonly moduleState: StateGauge;
  private readonly requeues: RequeueReasons;
  private readonly runtimeChecks: Counter;
  private readonly cachedPasses: Counter;
  private readonly runtimeKymaEvents: Counter;
  private readonly eventRechecks: Counter;
  private readonly webhookPasses: Counter;
  private readonly eventManifestKeys: Counter;
  private readonly modulesByKyma = new Map<string, Set<string>>();

  constructor(registry: Registry) {
    this.kymaState = registry.stateGauge({ name: 'lifecycle_mgr_kyma_state', help: 'The state of a Kyma: 1 for its current state, 0 for the others.', labelNames: ['kyma_name', 'state', 'shoot', 'instance_id'], stateLabel: 'state', states: STATES });
    this.moduleState = registry.stateGauge({
      name: 'lifecycle_mgr_module_state',
      help: 'The state of a module of a Kyma: 1 for its current state, 0 for the others.',
      labelNames: ['module_name', 'kyma_name', 'state', 'shoot', 'instance_id'],
      stateLabel: 'state',
      states: STATES,
    });
    this.requeues = new RequeueReasons(registry, 'kyma');
    this.runtimeChecks = registry.counter({ name: 'lifecycle_mgr_full_runtime_checks_total', help: 'Kyma reconciles that looked at the runtime (namespace, CRDs, runtime Kyma, catalog, webhook), by why.', labelNames: ['reason'] });
    registry.gauge({ name: 'lifecycle_mgr_fips_mode', help: 'current FIPS mode (0=off/1=on/2=only)' }).set(undefined, fipsMode());
    this.cachedPasses = registry.counter({ name: 'lifecycle_mgr_kyma_cached_passes_total', help: 'Kyma reconciles that worked from the KCP caches alone (no runtime request unless the mirrored status changed).' });
    this.runtimeKymaEvents = registry.counter({
      name: 'lifecycle_mgr_kyma_runtime_events_total',
      help: 'Watcher events on the runtime Kyma answered by a Kyma reconcile, by pass: event (read the runtime Kyma only), full (a full runtime check was due anyway), recheck (an event pass found the runtime Kyma unchanged and looked once more a second later).',
      labelNames: ['pass'],
    });
    this.webhookPasses = registry.counter({
      name: 'lifecycle_mgr_kyma_webhook_passes_total',
      help: "Kyma reconciles that read the runtime Kyma and the runtime watcher's webhook instead of making a full runtime check, by why: event (a watcher event on the webhook's own objects), recheck (the second look after such a pass found the webhook not available), unconfirmed (the last check found only the webhook not holding).",
      labelNames: ['why'],
    });
    this.eventManifestKeys = registry.counter({
      name: 'lifecycle_mgr_watcher_event_manifest_keys_total',
      help: "Manifest keys watcher events enqueued, by how the Manifest was found (owner: its inventory, its default CR, or the objects its pass in this process applied or is applying name the object; all: none does, so every Manifest of the Kyma) and queue lane (first: a Manifest under way; normal: one not reconciled yet).",
      labelNames: ['found', 'lane'],
    });
    this.eventRechecks = registry.counter({
      name: 'lifecycle_mgr_kyma_event_rechecks_total',
      help: 'Event passes that found the runtime Kyma unchanged, or the webhook not available, and asked for one more look a second later (an event can come before the API server stored its write).',
    });
  }

  eventRecheck(): void {
    this.eventRechecks.inc();
  }

  eventManifestKey(found: 'owner' | 'all', lane: 'first' | 'normal'): void {
    this.eventManifestKeys.inc({ found, lane });
  }

  webhookPass(why: 'event' | 'recheck' | 'unconfirmed'): void {
    this.webhookPasses.inc({ why });
  }

  runtimeCheck(reason: RuntimeCheckReason): void {
    this.runtimeChecks.inc({ reason });
  }

  cachedPass(): void {
    this.cachedPasses.inc();
  }

  runtimeKymaEvent(pass: 'event' | 'full' | 'recheck'): void {
    this.runtimeKymaEvents.inc({ pass });
  }

  kyma(name: string, state: string, ids: { shoot?: string; instanceId?: string }): void {
    this.kymaState.set({ kyma_name: name, shoot: ids.shoot ?? '', instance_id: ids.instanceId ?? '' }, state);
  }

  modules(kymaName: string, modules: { name: string; state: string }[], ids: { shoot?: string; instanceId?: string }): void {
    const seen = new Set(modules.map((m) => m.name));
    for (const gone of this.modulesByKyma.get(kymaName) ?? []) if (!seen.has(gone)) this.removeModule(kymaName, gone, ids);
    this.modulesByKyma.set(kymaName, seen);
    for (const m of modules) this.moduleState.set({ module_name: m.name, kyma_name: kymaName, shoot: ids.shoot ?? '', instance_id: ids.instanceId ?? '' }, m.state);
  }

  /** Counts a requeue under upstream's reason for this outcome (requeue-reasons.ts). */
  requeue(outcome: string, type: RequeueType = 'intended'): void {
    this.requeues.kyma(outcome, type);
  }

  /** Drops every series of a Kyma that is gone. */
  forget(kymaName: string, ids: { shoot?: string; instanceId?: string }): void {
    this.kymaState.remove({ kyma_name: kymaName, shoot: ids.shoot ?? '', instance_id: ids.instanceId ?? '' });
    for (const m of this.modulesByKyma.get(kymaName) ?? []) this.removeModule(kymaName, m, ids);
    this.modulesByKyma.delete(kymaName);
  }

  private removeModule(kymaName: string, module: string, ids: { shoot?: string; instanceId?: string }): void {
    this.moduleState.remove({ module_name: module, kyma_name: kymaName, shoot: ids.shoot ?? '', instance_id: ids.instanceId ?? '' });
  }
}
