// Module state metrics of the Manifest controller and the hook other components (the Kyma
// controller's metrics, the CLI) may subscribe to.
import type { Registry } from '../../runtime/metrics.js';
import { type State, States } from '../../api/operator/index.js';
import type { DriftCheckReason } from './reconciler.js';
import { RequeueReasons, type RequeueType } from '../requeue-reasons.js';

export interface ModuleStateChange {
  manifest: string;
  namespace: string;
  kymaName: string;
  moduleName: string;
  state: State;
  previous: State | undefined;
}

export type ModuleStateHook = (change: ModuleStateChange) => void;

const ALL_STATES: State[] = [States.Ready, States.Processing, States.Error, States.Deleting, States.Warning, States.Unmanaged];

export class ManifestMetrics {
  private readonly stateGauge;
  private readonly requeues: RequeueReasons;
  private readonly driftChecks;
  private readonly cleanPasses;
  private readonly readinessPasses;
  private readonly readinessReadsSkipped;
  private readonly eventRechecks;

  constructor(
    registry: Registry,
    private readonly hook?: ModuleStateHook,
  ) {
    this.stateGauge = registry.stateGauge({
      name: 'lifecycle_mgr_manifest_state',
      help: '1 for the current state of a Manifest (one module in one runtime), 0 for the other states.',
      labelNames: ['manifest', 'kyma_name', 'module_name', 'state'],
      stateLabel: 'state',
      states: ALL_STATES,
    });
    // Upstream's counter, shared with the Kyma controller.
    this.requeues = new RequeueReasons(registry, 'manifest');
    this.driftChecks = registry.counter({
      name: 'lifecycle_mgr_drift_checks_total',
      help: 'Passes of an installed, unchanged Manifest that read its objects back from the runtime (a GET each, then readiness), by why.',
      labelNames: ['reason'],
    });
    this.cleanPasses = registry.counter({
      name: 'lifecycle_mgr_manifest_clean_passes_total',
      help: 'Passes of a Ready, unchanged Manifest without a request (with the runtime watcher, which reports changes of its objects).',
    });
    this.readinessPasses = registry.counter({
      name: 'lifecycle_mgr_manifest_readiness_passes_total',
      help: 'Passes of an unchanged Manifest that read its readiness (the manager and the module CR, or only those the status events bringing the pass named) and only the objects whose status change the runtime watcher reported: an installing one whose objects were applied or read back under a healthy webhook, or a Ready one with such an event.',
    });
    this.readinessReadsSkipped = registry.counter({
      name: 'lifecycle_mgr_manifest_readiness_reads_skipped_total',
      help: 'Readiness reads a readiness pass left out: the manager or the module CR that none of the status events bringing the pass named, taken from the last read (every status change since was reported), by object.',
      labelNames: ['object'],
    });
    this.eventRechecks = registry.counter({
      name: 'lifecycle_mgr_manifest_event_rechecks_total',
      help: 'Passes answering runtime watcher events that found nothing changed, or read an object an event named at the version read before, and asked for one more look a second later (an event can come before the API server stored its write).',
    });
  }

  eventRecheck(): void {
    this.eventRechecks.inc();
  }

  readinessPass(): void {
    this.readinessPasses.inc();
  }

  readinessReadSkipped(object: 'manager' | 'module_cr'): void {
    this.readinessReadsSkipped.inc({ object });
  }

  driftCheck(reason: DriftCheckReason): void {
    this.driftChecks.inc({ reason });
  }

  cleanPass(): void {
    this.cleanPasses.inc();
  }

  recordState(change: ModuleStateChange): void {
    const base = { manifest: change.manifest, kyma_name: change.kymaName, module_name: change.moduleName };
    this.stateGauge.set(base, change.state);
    if (change.previous !== change.state) this.hook?.(change);
  }

  forget(manifest: string, kymaName: string, moduleName: string): void {
    this.stateGauge.remove({ manifest, kyma_name: kymaName, module_name: moduleName });
  }

  /** Counts a requeue under upstream's reason for this outcome; `stateChanged`: the pass moved the state. */
  requeue(outcome: string, type: RequeueType, stateChanged = false): void {
    this.requeues.manifest(outcome, type, stateChanged);
  }
}
